package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The hook binary links no network client: net/http and NATS would slow
// every hook's start-up (they live in interceptor-http: the inbox, proxy
// --url, relay).
func TestNoNetworkClient(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "net/http" || strings.HasPrefix(p, "github.com/nats-io/") {
			t.Errorf("interceptor links %s", p)
		}
	}
}
