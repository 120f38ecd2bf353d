package children

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/install"
)

// geminiSettings is the user settings.json of a hook home.
func geminiSettings(env map[string]string) string {
	return filepath.Join(env["HOME"], ".gemini", "settings.json")
}

// TestApproveRouteReadsTheLastDuplicate: a second, empty "BeforeTool"
// shadows the approve hook install wrote (JSON.parse keeps the last), so a
// Gemini child would run its tools unsupervised: create refuses it (issue
// 22, item 3).
func TestApproveRouteReadsTheLastDuplicate(t *testing.T) {
	s, _ := testStore(t)
	env, wd := hookHome(t), t.TempDir()
	installApprove(t, env, "gemini", install.User, wd, false)
	path := geminiSettings(env)
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(doc), `"AfterTool"`, `"BeforeTool": [], "AfterTool"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = s.Create(Child{Name: "g", Client: "gemini", WorkingDir: wd, Env: env})
	if err == nil || !strings.Contains(err.Error(), "no approve hook is installed") {
		t.Fatalf("create with a shadowed approve hook: %v", err)
	}
}
