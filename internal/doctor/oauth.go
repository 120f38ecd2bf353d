package doctor

import (
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/install"
	"github.com/interceptor-dev/interceptor/internal/oauth/store"
)

// doctorOAuth reports the HTTP relay's OAuth authorizations kept in the
// state dir (proxy --url, auth login): per server, whether its token can
// be used, and a record that cannot be read (a file open to others, not
// a record) as a failure. Never a token, and the server's address masked
// as everywhere else (a doctor report is pasted into bug reports; an
// address may carry a key in its path or query).
func doctorOAuth(r *StateReport, dir string, now time.Time) {
	recs, err := (&store.Store{StateDir: dir}).List()
	for _, rec := range recs {
		state, ok := rec.State(now)
		level := Info
		if !ok {
			level = Warn
		}
		shown := install.MaskURL(rec.Server)
		if shown != rec.Server {
			state = strings.ReplaceAll(state, rec.Server, shown) + " (the address is masked: give it as your config has it)"
		}
		r.Findings = append(r.Findings, Finding{level, "OAuth (the relay, proxy --url " + shown + "): " + state + ", with " + install.MaskURL(rec.Issuer)})
	}
	if err != nil {
		r.Findings = append(r.Findings, Finding{Fail, "OAuth: " + err.Error()})
		r.Safe = false
	}
}
