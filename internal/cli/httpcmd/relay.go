//go:build proxyhttp

package cli

import (
	"os"
	"time"

	"github.com/interceptor-dev/interceptor/internal/proxy"
	"github.com/interceptor-dev/interceptor/internal/proxy/streamhttp"
)

func init() {
	runHTTP = func(rw *proxy.Rewriter, url string, header [][2]string, oauth *oauthOptions, io *IO, sigs <-chan os.Signal, grace time.Duration) (int, error) {
		h := &streamhttp.HTTP{URL: url, Header: header, In: io.In, Out: io.Out, Signals: sigs, Grace: grace}
		if oauth != nil {
			c, err := newOAuthClient(url, oauth, rw.Logf)
			if err != nil {
				return 1, err
			}
			h.Auth = c
		}
		return h.Run(rw)
	}
}
