package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tidwall/gjson"
)

func callTool(t *testing.T, tools []Tool, name, args string) (gjson.Result, bool) {
	t.Helper()
	for _, tl := range tools {
		if tl.Name == name {
			res, err := tl.Call(context.Background(), gjson.Parse(args))
			if err != nil {
				return gjson.Parse(`{"type":"error","message":` + `"` + err.Error() + `"}`), true
			}
			if !gjson.Valid(res.Text) {
				t.Fatalf("%s: result is not JSON: %s", name, res.Text)
			}
			return gjson.Parse(res.Text), res.IsError
		}
	}
	t.Fatalf("no tool %s", name)
	return gjson.Result{}, true
}

func TestSupervisorChildTools(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	q := approvals.New(dir)
	tools := WithChildren(SupervisorTools(q, "test"), children.New(dir), q)
	for _, want := range []string{"pending", "respond", "history", "create", "chat_async", "poll", "cancel", "list"} {
		found := false
		for _, tl := range tools {
			found = found || tl.Name == want
		}
		if !found {
			t.Errorf("the supervisor offers no %s tool", want)
		}
	}

	wd := t.TempDir()
	res, isErr := callTool(t, tools, "create", `{"name":"w1","client":"codex","working_dir":"`+wd+`","env":{"A":"secret"},"approvals":false}`)
	if isErr || res.Get("type").Str != "created" || res.Get("id").Str == "" {
		t.Fatalf("create: %s", res.Raw)
	}
	if res, isErr := callTool(t, tools, "create", `{"name":"w1","working_dir":"`+wd+`"}`); !isErr || res.Get("type").Str != "error" {
		t.Errorf("a second child named w1: %s", res.Raw)
	}
	if res, isErr := callTool(t, tools, "create", `{"name":"w2","client":"nope","working_dir":"`+wd+`"}`); !isErr {
		t.Errorf("create with an unknown client: %s", res.Raw)
	}
	list, _ := callTool(t, tools, "list", `{}`)
	if list.Get("children.#").Int() != 1 || list.Get("children.0.name").Str != "w1" || list.Get("children.0.env").Exists() {
		t.Errorf("list (env values must not show): %s", list.Raw)
	}
	if res, isErr := callTool(t, tools, "poll", `{"session_id":"0123456789abcdef-1"}`); !isErr || res.Get("type").Str != "error" {
		t.Errorf("poll of an unknown chat: %s", res.Raw)
	}

	// respond takes the reference names and answers type ok + approval_id.
	r, err := q.Enqueue(approvals.Request{Client: "codex", Tool: "mcp__wf__next_step", Input: `{}`, Deadline: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	res, isErr = callTool(t, tools, "respond", `{"approval_id":"`+r.ID+`","approve":false,"message":"no"}`)
	if isErr || res.Get("type").Str != "ok" || res.Get("approval_id").Str != r.ID || res.Get("status").Str != "denied" {
		t.Fatalf("respond with approval_id/approve: %s", res.Raw)
	}
	got, _ := q.Get(r.ID)
	if got.Status != approvals.Denied || got.Reason != "no" {
		t.Errorf("the queue holds %s %q", got.Status, got.Reason)
	}
	r2, _ := q.Enqueue(approvals.Request{Client: "codex", Tool: "x", Input: `{}`, Deadline: time.Now().Add(time.Minute)})
	if res, isErr := callTool(t, tools, "respond", `{"id":"`+r2.ID+`","allow":true}`); isErr || res.Get("status").Str != "allowed" {
		t.Errorf("respond with id/allow: %s", res.Raw)
	}
}

// A child permit with Match (create's approve) allows other tools at once
// and queues, tagged with its chat, only the matching ones.
func TestPermitMatchAndChat(t *testing.T) {
	q := approvals.New(filepath.Join(t.TempDir(), "state"))
	o := ChildOptions{Timeout: time.Minute, Chat: "0123456789abcdef-1", Match: regexp.MustCompile(`^mcp__wf__next_step$`)}
	got := Permit(context.Background(), q, o, gjson.Parse(`{"tool_name":"mcp__wf__start_session","input":{"a":1}}`))
	if gjson.Get(got, "behavior").Str != "allow" {
		t.Errorf("an unmatched tool: %s", got)
	}
	if rs, _ := q.List(approvals.Filter{}); len(rs) != 0 {
		t.Errorf("an unmatched tool was queued: %+v", rs)
	}
	done := make(chan string, 1)
	go func() {
		done <- Permit(context.Background(), q, o, gjson.Parse(`{"tool_name":"mcp__wf__next_step","input":{},"tool_use_id":"toolu_7"}`))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rs, err := q.WaitPending(ctx)
	if err != nil || len(rs) != 1 || rs[0].Chat != o.Chat || rs[0].ToolUseID != "toolu_7" {
		t.Fatalf("queued: %+v %v", rs, err)
	}
	q.Decide(rs[0].ID, hooks.Decision{Reason: "no", By: "test"})
	if got := <-done; gjson.Get(got, "behavior").Str != "deny" || gjson.Get(got, "message").Str != "no" {
		t.Errorf("a matched, denied tool: %s", got)
	}
}

// tools/list: respond keeps every argument of its own schema (answer for a
// human tool's question) next to the reference names; create's client enum
// is the registered drivers.
func TestSupervisorSchemas(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	q := approvals.New(dir)
	tools := WithChildren(SupervisorTools(q, "test"), children.New(dir), q)
	schema := func(name string) gjson.Result {
		for _, tl := range tools {
			if tl.Name == name {
				if !gjson.Valid(tl.InputSchema) {
					t.Fatalf("%s: schema is not JSON: %s", name, tl.InputSchema)
				}
				return gjson.Parse(tl.InputSchema)
			}
		}
		t.Fatalf("no tool %s", name)
		return gjson.Result{}
	}
	r := schema("respond")
	for _, p := range []string{"id", "approval_id", "allow", "approve", "answer", "message", "updated_input"} {
		if !r.Get("properties." + p).Exists() {
			t.Errorf("respond's schema lacks %s: %s", p, r.Raw)
		}
	}
	if r.Get("required").Exists() {
		t.Errorf("respond requires %s, but approval_id may stand for id", r.Get("required").Raw)
	}
	var enum []string
	for _, v := range schema("create").Get("properties.client.enum").Array() {
		enum = append(enum, v.Str)
	}
	if want := children.ClientNames(); strings.Join(enum, ",") != strings.Join(want, ",") {
		t.Errorf("create's client enum %v, want the drivers %v", enum, want)
	}
	for _, p := range []string{"human_tools", "approvals"} {
		if !schema("create").Get("properties." + p).Exists() {
			t.Errorf("create's schema lacks %s", p)
		}
	}
}

// create: a hook client child without its approve hook is refused with
// the install command; options a client cannot honour are refused;
// human_tools is stored for Claude Code.
func TestCreateRoutesAndOptions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	q := approvals.New(dir)
	tools := WithChildren(SupervisorTools(q, "test"), children.New(dir), q)
	wd, home := t.TempDir(), t.TempDir()
	env := `"env":{"HOME":"` + home + `","CODEX_HOME":"` + home + `/.codex","XDG_CONFIG_HOME":"` + home + `/.config"}`
	res, isErr := callTool(t, tools, "create", `{"name":"g","client":"gemini","working_dir":"`+wd+`",`+env+`}`)
	if !isErr || !strings.Contains(res.Get("message").Str, "interceptor install gemini") {
		t.Errorf("a gemini child without its approve hook: %s", res.Raw)
	}
	res, isErr = callTool(t, tools, "create", `{"name":"g","client":"gemini","working_dir":"`+wd+`","approvals":false,"mcp_config":{"mcpServers":{}},`+env+`}`)
	if !isErr || !strings.HasPrefix(res.Get("message").Str, "mcp_config: a gemini child cannot take it") {
		t.Errorf("a gemini child with mcp_config: %s", res.Raw)
	}
	if res, isErr := callTool(t, tools, "create", `{"name":"g","client":"gemini","working_dir":"`+wd+`","approvals":"no"}`); !isErr {
		t.Errorf("approvals \"no\": %s", res.Raw)
	}
	decl := filepath.Join(t.TempDir(), "human.json")
	if err := os.WriteFile(decl, []byte(`[{"name":"ask","description":"d","mode":"hold","inputSchema":{"type":"object"}}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if res, isErr := callTool(t, tools, "create", `{"name":"c","working_dir":"`+wd+`","human_tools":"`+decl+`"}`); isErr {
		t.Fatalf("a claude-code child with human_tools: %s", res.Raw)
	}
	list, _ := callTool(t, tools, "list", `{}`)
	if got := list.Get("children.0.human_tools").Str; got != decl {
		t.Errorf("list shows human_tools %q, want %q: %s", got, decl, list.Raw)
	}
}

// create's description says which clients take the per-child options and
// which ask through their approve hook, from the clients' descriptions: a
// client added there is named in it.
func TestCreateDescriptionFollowsTheClients(t *testing.T) {
	tenth := hooks.GeminiClient
	tenth.Name, tenth.Display = "tenth", "Tenth Agent"
	saved := hooks.Clients
	hooks.Clients = append(append([]*hooks.Client{}, saved...), &tenth)
	t.Cleanup(func() { hooks.Clients = saved })
	d := createDescription()
	for _, want := range []string{"client (claude-code, codex, gemini, opencode, tenth; default claude-code)",
		"Claude Code only: mcp_config", "Codex, Gemini CLI, OpenCode, Tenth Agent ask through the approve hook"} {
		if !strings.Contains(d, want) {
			t.Errorf("create's description lacks %q: %s", want, d)
		}
	}
}
