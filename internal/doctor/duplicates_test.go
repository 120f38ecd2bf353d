package doctor

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/install"
)

// TestDoctorReadsTheLastDuplicate: a second, empty "BeforeTool" shadows
// the one install wrote (JSON.parse keeps the last), so Gemini CLI runs no
// inject or approve hook: doctor fails it instead of reporting it installed
// (issue 22, item 3).
func TestDoctorReadsTheLastDuplicate(t *testing.T) {
	env := testEnv(t)
	o := opts("gemini", install.Project)
	o.Approve.On = true
	res := mustInstall(t, env, o)
	doc, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	shadowed := strings.Replace(string(doc), `"AfterTool"`, `"BeforeTool": [], "AfterTool"`, 1)
	mustWrite(t, res.Path, shadowed, 0o644)
	rep := Run(env, "", time.Now())
	if !hasFinding(rep, "gemini", Fail, `server "wf": no inject hook`) || hasFinding(rep, "gemini", OK, "inject, capture installed") {
		t.Fatalf("findings %+v", findingsOf(rep, "gemini"))
	}
	if rep.OK {
		t.Fatal("report OK")
	}
}
