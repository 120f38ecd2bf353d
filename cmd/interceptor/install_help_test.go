package main

import (
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// install --redact's help names exactly the clients that can hide the
// token from the model (hooks.Client.RewritesResult).
func TestRedactHelpNamesTheClients(t *testing.T) {
	usage := newInstallCmd(&streams{}).Flags().Lookup("redact").Usage
	named, _, _ := strings.Cut(usage, ";")
	for _, c := range hooks.Clients {
		if strings.Contains(named, c.Display) != c.RewritesResult {
			t.Errorf("--redact's help %q: %s named: %v, rewrites results: %v", usage, c.Display, !c.RewritesResult, c.RewritesResult)
		}
	}
}
