package mcpserver

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
)

// TestSupervisorSurvivesHostileArguments: the supervisor's tools, called
// over MCP with arguments of every wrong shape (not an object, wrong types,
// ids that climb out of the state dir or hold NUL and control characters,
// numbers no int holds, nesting 400 deep, a 1 MiB string, a FIFO-like
// /dev/zero as a config file), each answer with one reply of their own:
// an error the model reads, never a panic ("internal error") and never a
// decision; nothing outside the state dir changes, a pending request stays
// pending until a well-formed respond decides it, and the server answers
// after (a held promise of issue 22's review).
func TestSupervisorSurvivesHostileArguments(t *testing.T) {
	root := t.TempDir()
	dir, wd := filepath.Join(root, "state"), filepath.Join(root, "work")
	if err := os.Mkdir(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "bystander"), []byte("keep"), 0o600)
	q := approvals.New(dir)
	cs := children.New(dir)
	// A chat that starts gets a runner that records itself, runs no client
	// and ends: args are children runner --state-dir DIR --chat CHILD-N.
	cs.Bin = filepath.Join(root, "runner")
	runner := `#!/bin/sh
umask 077
chat="$4/children/${6%-*}/chat-${6##*-}"
printf '{"runner_pid":%d,"started":"2026-01-01T00:00:00Z"}\n' $$ > "$chat/runner.json"
`
	if err := os.WriteFile(cs.Bin, []byte(runner), 0o755); err != nil {
		t.Fatal(err)
	}
	s := start(t, &Server{Name: "supervisor", Version: "1", Tools: WithChildren(SupervisorTools(q, "test"), cs, q)})
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	s.recv()

	req, err := q.Enqueue(approvals.Request{Client: "claude-code", Tool: "mcp__wf__next_step", Input: `{}`, Deadline: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	ok, err := cs.Create(children.Child{Name: "ok", Client: "codex", WorkingDir: wd, Unsupervised: true, Env: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	started, err := cs.StartChat(ok.Name, "hello")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := started.Append(fmt.Sprintf(`{"type":"content","text":"event %d"}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	chat := started.ID
	before := outside(t, root, dir)

	deep := strings.Repeat("[", 400) + strings.Repeat("]", 400)
	long := strings.Repeat("x", 1<<20)
	q1 := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	calls := map[string][]string{
		"pending": {`{"wait_seconds":"5"}`, `{"wait_seconds":-1}`, `{"wait_seconds":true}`, `{"wait_seconds":1e-300}`, `{"wait_seconds":{}}`},
		"respond": {
			`{"id":"../../../etc/passwd","allow":true}`, `{"id":"/tmp","allow":true}`, `{"id":"a\u0000b","allow":false}`,
			`{"id":123,"allow":true}`, `{"id":"0123456789abcdef0123456789","allow":true}`, `{"approval_id":["x"],"approve":"yes"}`,
			`{"id":"x","answer":{"a":1}}`, `{"id":` + q1(req.ID) + `,"allow":"true"}`, `{"id":` + q1(req.ID) + `,"allow":1}`,
			`{"id":` + q1(req.ID) + `,"allow":true,"updated_input":"not json"}`, `{"id":` + q1(req.ID) + `,"allow":true,"updated_input":[1]}`,
			`{"id":` + q1(req.ID) + `,"allow":false,"updated_input":{"a":1}}`, `{"id":` + q1(req.ID) + `,"answer":"text for an approval"}`,
			`{"id":` + q1(req.ID+"/../"+req.ID) + `,"allow":true}`, `{"approval_id":` + q1(req.ID) + `}`,
		},
		"history": {`{"limit":-5}`, `{"limit":1e400}`, `{"limit":"9"}`, `{"id":"../x"}`, `{"id":{"a":1}}`, `{"id":null}`, `{"limit":9223372036854775807}`},
		"create": {
			`{"name":"../escape","working_dir":` + q1(wd) + `,"approvals":false}`, `{"name":"a/b","approvals":false}`, `{"name":"x\u0000y"}`,
			`{"name":5}`, `{"name":"c1","client":"../../bin/sh","approvals":false}`, `{"name":"c2","working_dir":` + q1(wd) + `,"mcp_config":"/dev/zero"}`,
			`{"name":"c3","working_dir":` + q1(wd) + `,"human_tools":"/dev/zero"}`, `{"name":"c4","env":{"A=B":"x"},"approvals":false}`,
			`{"name":"c5","env":{"A":1},"approvals":false}`, `{"name":"c6","env":[1]}`, `{"name":"c7","approvals":"false"}`,
			`{"name":"c8","approve":"(","working_dir":` + q1(wd) + `}`, `{"name":"c9","mcp_config":{"mcpServers":` + deep + `},"working_dir":` + q1(wd) + `}`,
			`{"name":` + q1(long) + `}`, `{"name":"c10","model":` + q1(long) + `,"working_dir":"/nonexistent/dir","approvals":false}`,
			`{"name":"c11","working_dir":"/dev/zero","approvals":false}`, `{"name":"ok","working_dir":` + q1(wd) + `,"approvals":false}`,
		},
		"chat_async": {`{"name":"nope","prompt":"x"}`, `{"id":"../../x","prompt":"x"}`, `{"name":"ok","prompt":5}`, `{"name":["ok"],"prompt":"x"}`, `{"prompt":"x"}`},
		"poll": {
			`{"session_id":"../../etc"}`, `{"session_id":"0123456789abcdef-99999999999999999999"}`, `{"session_id":5}`,
			`{"session_id":` + q1(chat) + `,"from_seq":1e400}`, `{"session_id":` + q1(chat) + `,"from_seq":-1}`,
			`{"session_id":` + q1(chat) + `,"limit":1e400}`, `{"session_id":` + q1(chat) + `,"limit":9223372036854775807}`,
			`{"session_id":` + q1(chat) + `,"from_seq":9223372036854775807}`, `{"session_id":` + q1(chat) + `,"wait_seconds":"x"}`,
			`{"session_id":` + q1(chat) + `,"wait_seconds":-3}`,
		},
		"cancel": {`{"session_id":"../../x"}`, `{"session_id":"0123456789abcdef-1"}`, `{"session_id":` + q1(chat) + `}`, `{"session_id":{}}`},
		"list":   {`{"x":1}`},
	}
	for name := range calls {
		// Arguments that are no object at all, or nest deep.
		calls[name] = append(calls[name], `null`, `[]`, `"str"`, `42`, `{}`, `{"deep":`+deep+`}`)
	}
	id := 100
	for name, list := range calls {
		for _, args := range list {
			id++
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args))
			r := s.recv()
			show := args[:min(len(args), 120)]
			if r.Get("id").Int() != int64(id) || r.Get("result").Exists() == r.Get("error").Exists() {
				t.Fatalf("%s %s: reply %.300s", name, show, r.Raw)
			}
			text := r.Get("result.content.0.text").Str + r.Get("error.message").Str
			if strings.Contains(text, "internal error") {
				t.Errorf("%s %s: the tool panicked: %.300s", name, show, text)
			}
			if !r.Get("result.isError").Bool() && !r.Get("error").Exists() && (name == "respond" || name == "create" || name == "chat_async" || name == "cancel") {
				t.Logf("%s %s: accepted: %.200s", name, show, text) // a change made: say which
			}
		}
	}
	if got, err := q.Get(req.ID); err != nil || got.Status != approvals.Pending {
		t.Fatalf("after the hostile responds the request is %s (%v); want still pending", got.Status, err)
	}
	s.send(`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"respond","arguments":{"id":` + q1(req.ID) + `,"allow":false,"message":"no"}}}`)
	if r := s.recv(); r.Get("result.isError").Bool() || !strings.Contains(r.Get("result.content.0.text").Str, `"denied"`) {
		t.Fatalf("a well-formed respond after the hostile ones: %s", r.Raw)
	}
	s.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if r := s.recv(); r.Get("id").Str != "p" || r.Get("result").Raw != "{}" {
		t.Fatalf("ping after the hostile calls: %s", r.Raw)
	}
	after := outside(t, root, dir)
	for p, v := range before {
		if after[p] != v {
			t.Errorf("outside the state dir, %s changed", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("outside the state dir, %s appeared", p)
		}
	}
}

// outside maps every path under root but outside skip to its size, mode
// and content's start: what a call must not touch.
func outside(t *testing.T, root, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p == skip {
			return filepath.SkipDir
		}
		fi, _ := d.Info()
		b, _ := os.ReadFile(p)
		out[p] = fmt.Sprintf("%v %d %q", fi.Mode(), fi.Size(), b[:min(len(b), 64)])
		return nil
	})
	return out
}
