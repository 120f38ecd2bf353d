package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/watch"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

const humanToolsDecl = `[
 {"name":"ask_user","description":"Ask the user a question","mode":"hold","inputSchema":{"type":"object","properties":{"question":{"type":"string"}}}},
 {"name":"request_access","description":"Ask a person for access; they answer later","mode":"park"}
]`

// mcpSession runs `interceptor mcp --role child --human-tools` on the given
// JSON-RPC lines (stdin closes after the last, once want replies are out).
func mcpSession(t *testing.T, dir, decl string, lines ...string) []gjson.Result {
	t.Helper()
	inR, inW := io.Pipe()
	var out syncBuf
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"mcp", "--role", "child", "--state-dir", dir, "--human-tools", decl, "--timeout", "10s"},
			&IO{In: inR, Out: &out, Err: &errb})
	}()
	for _, l := range lines {
		io.WriteString(inW, l+"\n")
	}
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "\n") < len(lines) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	inW.Close()
	if c := <-done; c != 0 {
		t.Fatalf("mcp exited %d: %s", c, errb.String())
	}
	var rs []gjson.Result
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		rs = append(rs, gjson.Parse(l))
	}
	return rs
}

// humanToolsState is a state dir and decl, a human tools declaration,
// written for mcpSession; session is the Claude Code session the MCP
// server takes its calls' session from (CLAUDE_CODE_SESSION_ID; "" none).
func humanToolsState(t *testing.T, decl, session string) (dir, declPath string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "state")
	declPath = filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(declPath, []byte(decl), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAUDE_CODE_SESSION_ID", session)
	return dir, declPath
}

// questionID is the id of the question a tools/call reply parked; the
// test fails when the reply has none.
func questionID(t *testing.T, reply gjson.Result) string {
	t.Helper()
	id := approvals.FindInput(reply.Get("result.content.0.text").Str)
	if id == "" || reply.Get("result.isError").Bool() {
		t.Fatalf("no question in the reply: %s", reply.Raw)
	}
	return id
}

func hookRun(t *testing.T, dir, payload string, args ...string) (string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if c := run(append(args, "--state-dir", dir), &IO{In: strings.NewReader(payload), Out: &out, Err: &errb}); c != 0 {
		t.Fatalf("%v exited %d: %s", args, c, errb.String())
	}
	return out.String(), errb.String()
}

// TestHumanToolsCLI: a parked call through the MCP server, bound by the
// post-tool hook, answered with approvals answer, delivered by the prompt
// hook exactly once; a held call answered through the CLI.
func TestHumanToolsCLI(t *testing.T) {
	dir, decl := humanToolsState(t, humanToolsDecl, "")

	rs := mcpSession(t, dir, decl,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"request_access","arguments":{"what":"prod"}}}`)
	names := rs[0].Get("result.tools.#.name").Array()
	if len(names) != 3 || names[0].Str != "permit" || names[1].Str != "ask_user" || names[2].Str != "request_access" {
		t.Fatalf("tools/list: %s", rs[0].Raw)
	}
	id, parked := questionID(t, rs[1]), rs[1].Get("result.content.0.text").Str
	list, _ := cli(t, "approvals", "list", "--state-dir", dir)
	if !strings.Contains(list, id) || !strings.Contains(list, "asks") || !strings.Contains(list, "request_access") {
		t.Fatalf("approvals list: %s", list)
	}
	if out, code := cli(t, "approvals", "allow", id, "--state-dir", dir); code == 0 || !strings.Contains(out, "approvals answer") {
		t.Fatalf("allow on a question: %d %s", code, out)
	}

	// Claude Code's post-tool hook sees the parked result and binds it.
	post, _ := sjson.Set(`{"session_id":"s1","transcript_path":"/t","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"mcp__human__request_access","tool_input":{"what":"prod"},"tool_response":[{"type":"text","text":""}],"mcp_server":{"name":"human"}}`,
		"tool_response.0.text", parked)
	if out, errs := hookRun(t, dir, post, "deliver"); out != "" || errs != "" {
		t.Fatalf("post-tool deliver printed %q %q", out, errs)
	}
	if out, code := cli(t, "approvals", "answer", id, "granted", "--state-dir", dir); code != 0 || !strings.Contains(out, "answered") {
		t.Fatalf("answer: %d %s", code, out)
	}
	prompt := `{"session_id":"s1","transcript_path":"/t","cwd":"/p","hook_event_name":"UserPromptSubmit","prompt":"next"}`
	out, _ := hookRun(t, dir, prompt, "deliver")
	if ctx := gjson.Get(out, "hookSpecificOutput.additionalContext").Str; !strings.Contains(ctx, "granted") || !strings.Contains(ctx, id) {
		t.Fatalf("deliver: %q", out)
	}
	if again, _ := hookRun(t, dir, prompt, "deliver"); again != "" {
		t.Fatalf("second deliver: %q", again)
	}
	if out, code := cli(t, "approvals", "answer", id, "twice", "--state-dir", dir); code == 0 || !strings.Contains(out, "already decided") {
		t.Fatalf("second answer: %d %s", code, out)
	}

	// A held call: answered from the CLI while the call waits. The answer
	// wakes the call with its first write (open/) and then moves the record
	// to history/: the test waits for the whole answer command, or its
	// rename races the temp dir's removal.
	answered := make(chan string, 1)
	go func() {
		failed := "no pending request to answer"
		defer func() { answered <- failed }() // also when pendingIDs gives up
		ids := pendingIDs(t, dir, 1)
		if out, code := cli(t, "approvals", "answer", ids[0], "the staging one", "--state-dir", dir); code != 0 {
			failed = fmt.Sprintf("exit %d: %s", code, out)
			return
		}
		failed = ""
	}()
	rs = mcpSession(t, dir, decl,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_user","arguments":{"question":"which repo?"}}}`)
	if failed := <-answered; failed != "" {
		t.Fatalf("answer of the held call: %s", failed)
	}
	if got := rs[0].Get("result.content.0.text").Str; got != "the staging one" {
		t.Fatalf("held result: %s", rs[0].Raw)
	}
}

// TestDeliverHookFailurePolicy: a deliver hook that cannot work exits 0,
// prints nothing on stdout and one line on stderr.
func TestDeliverHookFailurePolicy(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"deliver", "--state-dir", t.TempDir()}, &IO{In: strings.NewReader("not json"), Out: &out, Err: &errb})
	if code != 0 || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 {
		t.Fatalf("exit %d stdout %q stderr %q", code, out.String(), errb.String())
	}
}

// TestDeliverSessionEnd: a session-end event expires the session's open
// questions only with --expire-on-session-end; an answer after that is
// refused.
func TestDeliverSessionEnd(t *testing.T) {
	dir, decl := humanToolsState(t, humanToolsDecl, "s1")
	rs := mcpSession(t, dir, decl, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"request_access","arguments":{}}}`)
	id := questionID(t, rs[0])
	end := `{"session_id":"s1","transcript_path":"/t","cwd":"/p","hook_event_name":"SessionEnd","reason":"other"}`
	hookRun(t, dir, end, "deliver")
	if r, _ := approvals.New(dir).Get(id); r.Status != approvals.Pending || r.Session != "s1" {
		t.Fatalf("without --expire-on-session-end: %+v", r)
	}
	hookRun(t, dir, end, "deliver", "--expire-on-session-end")
	out, code := cli(t, "approvals", "answer", id, "late", "--state-dir", dir)
	if code == 0 || !strings.Contains(out, "the session ended") {
		t.Fatalf("answer after the session ended: %d %s", code, out)
	}
}

// TestWatchTypesAnAnswer: watch shows a human tool's question and sends the
// line typed (backspace taking back a character) as its answer; an empty
// line skips it.
func TestWatchTypesAnAnswer(t *testing.T) {
	q := approvals.New(filepath.Join(t.TempDir(), "state"))
	pw, out, waitFor, done := startWatch(t, q)
	waitFor("watching for approval requests")
	skip, _ := q.Enqueue(approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModePark, Tool: "request_access", Input: `{"what":"x"}`, Deadline: time.Now().Add(time.Minute)})
	waitFor("type the answer")
	pw.Write([]byte("\n"))
	waitFor("skipped " + skip.ID)
	r, _ := q.Enqueue(approvals.Request{Kind: approvals.KindInput, Mode: approvals.ModeHold, Tool: "ask_person", Input: `{"question":"which\u001b[2J repo?"}`, Deadline: time.Now().Add(time.Minute)})
	waitFor(r.ID + " ask_person asks")
	pw.Write([]byte("stagingX\x7f repo\r"))
	waitFor(r.ID + " answered")
	pw.Write([]byte{3}) // Ctrl-C quits
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, _ := q.Get(r.ID)
	if got.Status != approvals.Answered || got.Answer != "staging repo" || !strings.HasPrefix(got.DecidedBy, "watch") {
		t.Fatalf("answered record: %+v", got)
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Fatalf("a control character of the question reached the terminal:\n%q", out.String())
	}
	if s, _ := q.Get(skip.ID); s.Status != approvals.Pending {
		t.Fatalf("skipped question: %+v", s)
	}
}

// startWatch runs watch on q: keys go to the returned writer, waitFor waits
// (5 s at most) until its output holds a string, done yields its end.
func startWatch(t *testing.T, q *approvals.Store) (io.Writer, *syncBuf, func(string), <-chan error) {
	pr, pw := io.Pipe()
	out := &syncBuf{}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() { done <- watch.Run(ctx, q, pr, out) }()
	waitFor := func(s string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(out.String(), s) {
			if time.Now().After(deadline) {
				t.Fatalf("watch output lacks %q:\n%s", s, out.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return pw, out, waitFor, done
}
