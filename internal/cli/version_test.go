package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

// version names the commit Go stamped from git, and says when the tree had
// uncommitted changes (issue 23: it printed "dev" and nothing more).
func TestCommitOf(t *testing.T) {
	bi := &debug.BuildInfo{Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "8786081cacb8a2e1f0d9c7b6a5e4d3c2b1a09f8e"},
		{Key: "vcs.time", Value: "2026-11-26T11:09:17Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	if got := commitOf(bi, true); got != "commit 8786081cacb8 of 2026-11-26T11:09:17Z, with uncommitted changes" {
		t.Errorf("commitOf = %q", got)
	}
	bi.Settings[3].Value = "false"
	if got := commitOf(bi, true); strings.Contains(got, "uncommitted") {
		t.Errorf("a clean tree: %q", got)
	}
	if got := commitOf(&debug.BuildInfo{}, true); !strings.Contains(got, "commit unknown") {
		t.Errorf("no vcs stamp: %q", got)
	}
}
