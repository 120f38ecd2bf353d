package install

import (
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

func TestApproveHookTimeout(t *testing.T) {
	// approve never reads --timeout from INTERCEPTOR_TIMEOUT: neither does this.
	t.Setenv("INTERCEPTOR_TIMEOUT", "10m")
	for _, c := range []struct {
		cmd  string
		want time.Duration
		ok   bool
	}{
		{"/bin/interceptor approve", approvals.DefaultTimeout, true},
		{"interceptor approve --timeout 90s --match x", 90 * time.Second, true},
		{"interceptor approve --timeout=2m", 2 * time.Minute, true},
		{"interceptor approve --timeout soon", 0, false},
		{"interceptor inject --timeout 1m", 0, false},
	} {
		h, ok := parseHookCommand(c.cmd)
		if !ok {
			t.Fatalf("parseHookCommand(%q) refused it", c.cmd)
		}
		got, ok := h.ApproveTimeout()
		if got != c.want || ok != c.ok {
			t.Errorf("approveTimeout(%q) = %s %t, want %s %t", c.cmd, got, ok, c.want, c.ok)
		}
	}
}
