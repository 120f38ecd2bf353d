package doctor

import (
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/install"
)

// doctor fails a V1 shim under OpenCode 2.x and a V2 shim under 1.x: the
// OpenCode on PATH does not load it, and nothing else would show that.
func TestDoctorOpenCodeShimAPI(t *testing.T) {
	set := func(major int, v string) {
		openCodeMajor = func() (int, string) { return major, v }
	}
	defer func(f func() (int, string)) { openCodeMajor = f }(openCodeMajor)
	for _, c := range []struct {
		installedWith, runWith int
		version                string
		fail                   bool
	}{
		{1, 2, "2.0.17", true},
		{2, 1, "1.18.33", true},
		{1, 1, "1.18.33", false},
		{2, 2, "2.0.17", false},
	} {
		env := testEnv(t)
		o := opts("opencode", install.User)
		restore := install.StubOpenCodeMajor(c.installedWith, "x.y.z")
		mustInstall(t, env, o)
		restore()
		set(c.runWith, c.version)
		rep := Run(env, "", time.Now())
		if got := hasFinding(rep, "opencode", Fail, "which does not load it"); got != c.fail {
			t.Errorf("shim v%d, OpenCode %s: fail %v, want %v: %+v", c.installedWith, c.version, got, c.fail, findingsOf(rep, "opencode"))
		}
	}
	set(0, "")
	env := testEnv(t)
	mustInstall(t, env, opts("opencode", install.User))
	if rep := Run(env, "", time.Now()); !hasFinding(rep, "opencode", Info, "cannot tell whether") {
		t.Errorf("no OpenCode on PATH: %+v", findingsOf(rep, "opencode"))
	}
}

// Tests never ask the machine's OpenCode (install's reader, nor doctor's).
func init() {
	install.StubOpenCodeMajor(0, "")
	openCodeMajor = func() (int, string) { return 0, "" }
}
