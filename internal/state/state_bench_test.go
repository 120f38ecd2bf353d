package state_test

import (
	"errors"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/state"
)

// The token store per call, for benchstat: go test -run '^$' -bench . -count 10
// Put syncs two files and the directory, so its figure is mostly the file
// system's fsync: run it where the real state dir lives (TMPDIR).

const benchTok = "tok-0123456789abcdef0123456789abcdef"

func benchStore(b *testing.B) *state.Store {
	b.Helper()
	return state.New(b.TempDir() + "/state")
}

func BenchmarkPut(b *testing.B) {
	for _, c := range []struct{ name, session string }{
		{"session", "be0b78df-7440-44cb-9e65-7b68cd544fe4"},
		{"no-session", ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			st := benchStore(b)
			rec := state.Record{Token: benchTok, Server: "wf", Session: c.session, Client: "claude-code"}
			b.ReportAllocs()
			for b.Loop() {
				if err := st.Put(rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGet(b *testing.B) {
	st := benchStore(b)
	const session = "be0b78df-7440-44cb-9e65-7b68cd544fe4"
	if err := st.Put(state.Record{Token: benchTok, Server: "wf", Session: session, Client: "claude-code"}); err != nil {
		b.Fatal(err)
	}
	b.Run("hit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec, err := st.Get("wf", session)
			if err != nil || rec.Token != benchTok {
				b.Fatal(rec, err)
			}
		}
	})
	b.Run("miss", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := st.Get("wf", "other-session"); !errors.Is(err, state.ErrNotFound) {
				b.Fatal(err)
			}
		}
	})
	b.Run("no-store", func(b *testing.B) {
		empty := benchStore(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := empty.Get("wf", session); !errors.Is(err, state.ErrNotFound) {
				b.Fatal(err)
			}
		}
	})
}
