package token_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// Token logic per call, for benchstat: go test -run '^$' -bench . -count 10

const benchTok = "tok-0123456789abcdef0123456789abcdef"

// benchText is n bytes of tool output text, then a line with the token, so
// finding it scans everything.
func benchText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %06d: func handle(w http.ResponseWriter, r *http.Request) { /* quick brown fox */ }\n", i)
	}
	return b.String() + "session_token: " + benchTok + "\n"
}

func BenchmarkChoose(b *testing.B) {
	cases := []struct {
		name string
		r    token.Result
	}{
		{"meta", token.Result{Meta: gjson.Parse(`{"session_token":"` + benchTok + `"}`)}},
		{"structured", token.Result{Structured: gjson.Parse(`{"step":"one","session_token":"` + benchTok + `","received_token":"x"}`)}},
		{"text-json", token.Result{Texts: []string{`{"step":"one","session_token":"` + benchTok + `"}`}}},
		{"text-line", token.Result{Texts: []string{"step=one done\nsession_token: " + benchTok + "\n"}}},
		{"text-none", token.Result{Texts: []string{"wf next_step: step=one received_session_token=INJECTED (text block; token is only in _meta)"}}},
		{"text-1MiB", token.Result{Texts: []string{benchText(1 << 20)}}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				token.Choose(c.r, token.Rules{Key: "session_token"})
			}
		})
	}
}

func BenchmarkInject(b *testing.B) {
	big := `{"content":"` + strings.Repeat("x", 1<<20) + `","step":"one"}`
	for _, c := range []struct{ name, args string }{
		{"small", `{"step": "one"}`},
		{"empty", `{}`},
		{"1MiB", big},
	} {
		args := c.args
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(args)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := token.Inject(args, "session_token", benchTok); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCarries(b *testing.B) {
	args := gjson.Parse(`{"step":"one","note":"x"}`)
	keys := []string{"session_token", "checkpoint_handle", "session_token"}
	b.ReportAllocs()
	for b.Loop() {
		if token.Carries(args, keys) {
			b.Fatal("carries")
		}
	}
}

func BenchmarkRedact(b *testing.B) {
	cases := []struct{ name, text string }{
		{"text-line", "step=one done\nsession_token: " + benchTok + "\nnext: two\n"},
		{"text-json", `{"step":"one","session_token":"` + benchTok + `","next":"two"}`},
		{"text-1MiB", benchText(1 << 20)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := token.RedactText(c.text, "session_token", token.Held{benchTok}); !ok {
					b.Fatal("nothing redacted")
				}
			}
		})
	}
	obj := `{"session_token":"` + benchTok + `","step":"one","echo":"` + benchTok + `"}`
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := token.RedactJSON(obj, "session_token", token.Held{benchTok}); !ok {
				b.Fatal("nothing redacted")
			}
		}
	})
}

func BenchmarkValidate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := token.Validate(benchTok); err != nil {
			b.Fatal(err)
		}
	}
}
