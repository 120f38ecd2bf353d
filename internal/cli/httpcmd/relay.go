package httpcmd

import (
	"os"

	"github.com/interceptor-dev/interceptor/internal/cli"
	"github.com/interceptor-dev/interceptor/internal/proxy"
	"github.com/interceptor-dev/interceptor/internal/proxy/streamhttp"
)

// relay relays r to the Streamable HTTP server at r.URL.
func relay(rw *proxy.Rewriter, r *cli.ProxyRun, sigs <-chan os.Signal) (int, error) {
	h := &streamhttp.HTTP{URL: r.URL, Header: r.Header, In: r.IO.In, Out: r.IO.Out, Signals: sigs, Grace: r.Grace}
	if r.OAuth != nil {
		c, err := newOAuthClient(r.URL, r.OAuth, rw.Logf)
		if err != nil {
			return 1, err
		}
		h.Auth = c
	}
	return h.Run(rw)
}
