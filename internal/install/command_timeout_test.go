package install

import (
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/approvals"
)

func TestApproveHookTimeout(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		cmd  string
		env  map[string]string
		want time.Duration
		ok   bool
	}{
		{"/bin/interceptor approve", nil, approvals.DefaultTimeout, true},
		{"interceptor approve --timeout 90s --match x", nil, 90 * time.Second, true},
		{"interceptor approve --timeout=2m", nil, 2 * time.Minute, true},
		{"interceptor approve", map[string]string{"INTERCEPTOR_TIMEOUT": "10m"}, 10 * time.Minute, true},
		{"interceptor approve --timeout 1m", map[string]string{"INTERCEPTOR_TIMEOUT": "10m"}, time.Minute, true},
		{"interceptor approve --timeout soon", nil, 0, false},
		{"interceptor approve", map[string]string{"INTERCEPTOR_TIMEOUT": "soon"}, 0, false},
		{"interceptor inject --timeout 1m", nil, 0, false},
	} {
		h, ok := parseHookCommand(c.cmd)
		if !ok {
			t.Fatalf("parseHookCommand(%q) refused it", c.cmd)
		}
		got, ok := h.ApproveTimeout(env(c.env))
		if got != c.want || ok != c.ok {
			t.Errorf("approveTimeout(%q) = %s %t, want %s %t", c.cmd, got, ok, c.want, c.ok)
		}
	}
}
