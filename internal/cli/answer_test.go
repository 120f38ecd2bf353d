package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// TestAnswerCommandChecksTheSchema: `approvals answer` on a question whose
// tool declares an answerSchema refuses an answer that does not fit, as
// text or on stdin (exit 1, one line saying what the answer must be, the
// question still waiting), and takes one that fits.
func TestAnswerCommandChecksTheSchema(t *testing.T) {
	dir, decl := humanToolsState(t, `[{"name":"pick_env","description":"Ask which environment","mode":"park",
		"answerSchema":{"type":"string","enum":["staging","prod"]}}]`, "s1")
	rs := mcpSession(t, dir, decl, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pick_env","arguments":{}}}`)
	id := questionID(t, rs[0])
	const want = "the answer must be one of: staging, prod"
	out, code := cli(t, "approvals", "answer", id, "Prod", "--state-dir", dir)
	if code != 1 || !strings.Contains(out, want) || strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Errorf("answer Prod: exit %d %q", code, out)
	}
	var sout, serr bytes.Buffer
	code = run([]string{"approvals", "answer", id, "--state-dir", dir}, &IO{In: strings.NewReader("dev\n"), Out: &sout, Err: &serr})
	if code != 1 || !strings.Contains(serr.String(), want) || sout.Len() != 0 {
		t.Errorf("answer dev on stdin: exit %d %q %q", code, sout.String(), serr.String())
	}
	if r, _ := approvals.New(dir).Get(id); r.Status != approvals.Pending || r.Answer != "" {
		t.Fatalf("a refused answer changed the question: %+v", r)
	}
	if out, code := cli(t, "approvals", "answer", id, "prod", "--state-dir", dir); code != 0 || out != id+" answered\n" {
		t.Fatalf("answer prod: exit %d %q", code, out)
	}
	if r, _ := approvals.New(dir).Get(id); r.Status != approvals.Answered || r.Answer != "prod" {
		t.Errorf("stored %+v", r)
	}
}
