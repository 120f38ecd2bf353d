package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoCLI guards why interceptor-hook exists: a hook starts twice
// per tool call, and every package it links costs start-up. It links
// neither cobra nor pflag (the whole CLI) nor net/http.
func TestLinksNoCLI(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), deps)
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "github.com/spf13/") || p == "net/http" || strings.HasPrefix(p, "net/http/") || p == "crypto/tls" {
			t.Errorf("interceptor-hook links %s", p)
		}
	}
}
