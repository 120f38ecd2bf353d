package doctor

import (
	"time"

	"github.com/interceptor-dev/interceptor/internal/oauth/store"
)

// doctorOAuth reports the HTTP relay's OAuth authorizations kept in the
// state dir (proxy --url, auth login): per server, whether its token can
// be used, and a record that cannot be read (a file open to others, not
// a record) as a failure. Never a token.
func doctorOAuth(r *StateReport, dir string, now time.Time) {
	recs, err := (&store.Store{StateDir: dir}).List()
	for _, rec := range recs {
		state, ok := rec.State(now)
		level := Info
		if !ok {
			level = Warn
		}
		r.Findings = append(r.Findings, Finding{level, "OAuth (the relay, proxy --url " + rec.Server + "): " + state + ", with " + rec.Issuer})
	}
	if err != nil {
		r.Findings = append(r.Findings, Finding{Fail, "OAuth: " + err.Error()})
		r.Safe = false
	}
}
