//go:build unix

package proxy

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/proxy/proxytest"
)

// Issue 21: the go-sdk (v1.8.0) client and server through the stdio proxy,
// at 2026-07-28 (server/discover, per-request _meta, subscriptions/listen)
// and at 2025-11-25 (initialize), and to a server that accepts only
// 2026-07-28: the token is carried on every call without the client
// passing it, a multi round-trip call whose requestState holds the token
// gets it back byte for byte, a list change reaches the client, and the
// client never sees a token.
func TestStdioModernSDK(t *testing.T) {
	for _, c := range []struct{ name, server, version string }{
		{"2026-07-28", "sdk", proxytest.Modern},
		{"2025-11-25", "sdk", proxytest.Legacy},
		{"only 2026-07-28", "sdk-2026", proxytest.Modern},
	} {
		t.Run(c.name, func(t *testing.T) {
			rw := newRW(t, testConfig())
			client := proxytest.ConnectModern(t, c.version, func(in io.Reader, out io.Writer) {
				s := &Stdio{Command: []string{os.Args[0]}, Env: append(os.Environ(), childEnv+"="+c.server),
					In: in, Out: out, Err: os.Stderr, Grace: 2 * time.Second}
				if _, err := s.Run(rw); err != nil {
					t.Error(err)
				}
			})
			defer client.CS.Close()
			proxytest.CheckModern(t, client, c.version)
		})
	}
}
