package relay

import (
	"encoding/json"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

// Another machine's card names the session's working directory and
// project like a local one (issue 31), made Visible before they cross.
func TestWireCarriesCwdAndProject(t *testing.T) {
	r := approvals.Request{ID: "0123456789abcdef", Status: approvals.Pending, Client: "claude-code", Tool: "Bash",
		Input: `{"command":"ls"}`, Cwd: "/src/app/sub\x1b[2J", Project: "/src/app"}
	b, err := json.Marshal(wire(r))
	if err != nil {
		t.Fatal(err)
	}
	var w Wire
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	got := w.Request()
	if got.Cwd != approvals.Visible(r.Cwd) || got.Cwd == r.Cwd || got.Project != "/src/app" {
		t.Errorf("crossed as cwd %q, project %q (from %s)", got.Cwd, got.Project, b)
	}
}
