package children

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// normalizeFixture runs a recorded real output through the client's
// normalizer.
func normalizeFixture(t *testing.T, client, file string) ([]gjson.Result, Normalizer) {
	t.Helper()
	c, err := LookupClient(client)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := c.NewNormalizer()
	var out []gjson.Result
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		evs, err := encodeEvents(n.Line(sc.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, ev := range evs {
			if !gjson.Valid(ev) {
				t.Fatalf("%s: not JSON: %s", file, ev)
			}
			out = append(out, gjson.Parse(ev))
		}
	}
	return out, n
}

// summary is one line per event: type and its key field.
func summary(evs []gjson.Result) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(e.Get("type").Str)
		switch e.Get("type").Str {
		case "tool_use":
			b.WriteString(" " + e.Get("name").Str + " " + e.Get("input.step").Str)
		case "tool_result":
			if e.Get("is_error").Bool() {
				b.WriteString(" error")
			}
		case "complete":
			b.WriteString(" " + e.Get("status").Str)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// The first chat of each recorded client: start_session, next_step "one"
// (allowed), next_step "two" (denied with DENIED-BY-TEST by the test's
// supervisor), the final answer; the second chat (resumed) only answers.
func TestNormalizeRecordedChats(t *testing.T) {
	tool := map[string][3]string{
		"claude-code": {"mcp__wf__start_session", "mcp__wf__next_step", "mcp__wf__next_step"},
		"codex":       {"mcp__wf__start_session", "mcp__wf__next_step", "mcp__wf__next_step"},
		"gemini":      {"mcp_wf_start_session", "mcp_wf_next_step", "mcp_wf_next_step"},
		"opencode":    {"wf_start_session", "wf_next_step", "wf_next_step"},
	}
	for _, client := range ClientNames() {
		t.Run(client, func(t *testing.T) {
			evs, n := normalizeFixture(t, client, client+"-chat1.jsonl")
			names := tool[client]
			denied := "tool_use " + names[2] + " two\ntool_result error\n"
			if client == "codex" {
				// Codex's exec --json shows no item for a call its pre-tool
				// hook denied (the model still reads the deny message).
				denied = ""
			}
			want := "start\n" +
				"tool_use " + names[0] + " \ntool_result\n" +
				"tool_use " + names[1] + " one\ntool_result\n" +
				denied +
				"content\ncomplete complete\n"
			if got := summary(evs); got != want {
				t.Errorf("chat 1 events:\n%s\nwant:\n%s", got, want)
			}
			if n.Session() == "" {
				t.Errorf("no session id read from chat 1")
			}
			for _, e := range evs {
				switch e.Get("type").Str {
				case "tool_result":
					if e.Get("is_error").Bool() && !strings.Contains(e.Get("content").Str, "DENIED-BY-TEST") {
						t.Errorf("the denied call's result lacks the deny message: %s", e.Get("content").Str)
					}
					if !e.Get("is_error").Bool() && !strings.Contains(e.Get("content").Str, "accepted") && !strings.Contains(e.Get("content").Str, "started") {
						t.Errorf("a tool result lacks the server's text: %q", e.Get("content").Str)
					}
				case "content":
					if e.Get("text").Str != "E2E-DONE: all workflow steps were attempted." {
						t.Errorf("content %q, want the model's final answer", e.Get("text").Str)
					}
				case "complete":
					if e.Get("result").Str != "E2E-DONE: all workflow steps were attempted." {
						t.Errorf("complete result %q, want the model's final answer", e.Get("result").Str)
					}
				}
				if !e.Get("raw").IsObject() {
					t.Errorf("%s event without the client's raw event", e.Get("type").Str)
				}
			}
			// The tool_result ids name their tool_use.
			uses := map[string]bool{}
			for _, e := range evs {
				if e.Get("type").Str == "tool_use" {
					uses[e.Get("id").Str] = true
				}
				if e.Get("type").Str == "tool_result" && !uses[e.Get("tool_use_id").Str] {
					t.Errorf("tool_result for %q follows no tool_use of that id", e.Get("tool_use_id").Str)
				}
			}

			evs2, n2 := normalizeFixture(t, client, client+"-chat2.jsonl")
			if got, want := summary(evs2), "start\ncontent\ncomplete complete\n"; got != want {
				t.Errorf("chat 2 events:\n%s\nwant:\n%s", got, want)
			}
			if n2.Session() != n.Session() {
				t.Errorf("chat 2 (resumed) reports session %q, chat 1 %q", n2.Session(), n.Session())
			}
		})
	}
}
