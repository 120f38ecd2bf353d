//go:build unix

package children

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/testfiles"
)

// An mcp_config file is read only when it is a regular file of bounded
// size and nesting: a FIFO hung create, /dev/zero grew it without end, a
// deep nesting crashed gjson's recursive validation.
func TestMCPConfigReadsAreBounded(t *testing.T) {
	for _, kind := range []string{"fifo", "zero", "deep"} {
		t.Run(kind, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mcp.json")
			testfiles.HostileConfig(t, path, kind)
			done := make(chan error, 1)
			go func() { done <- checkMCPConfig(path) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "mcp") && !strings.Contains(err.Error(), "mcp_config") {
					t.Fatalf("checkMCPConfig(%s) = %v", kind, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("checkMCPConfig(%s) did not return", kind)
			}
		})
	}
}
