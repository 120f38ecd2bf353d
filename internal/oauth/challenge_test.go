package oauth

import (
	"net/http"
	"testing"
)

func TestParseChallenge(t *testing.T) {
	for _, c := range []struct {
		fields []string
		want   Challenge
		ok     bool
	}{
		{[]string{`Bearer resource_metadata="https://s/.well-known/oauth-protected-resource/mcp"`},
			Challenge{ResourceMetadata: "https://s/.well-known/oauth-protected-resource/mcp"}, true},
		// The conformance suite's step-up challenge.
		{[]string{`Bearer scope="mcp:basic mcp:write", resource_metadata="http://localhost:1/.well-known/oauth-protected-resource/mcp", error="insufficient_scope"`},
			Challenge{ResourceMetadata: "http://localhost:1/.well-known/oauth-protected-resource/mcp", Scope: "mcp:basic mcp:write", Error: "insufficient_scope"}, true},
		// Another scheme first, in the same field; tokens unquoted; case.
		{[]string{`Basic realm="x", charset="UTF-8", BEARER Error=invalid_token, Scope="a\"b"`},
			Challenge{Scope: `a"b`, Error: "invalid_token"}, true},
		// A token68 challenge before it; two fields.
		{[]string{`Negotiate abc123==`, `Bearer realm="r"`}, Challenge{}, true},
		{[]string{`Negotiate abc123==, Bearer error="invalid_token"`}, Challenge{Error: "invalid_token"}, true},
		{[]string{`Basic realm="x"`}, Challenge{}, false},
		{nil, Challenge{}, false},
		{[]string{`Bearer`}, Challenge{}, true},
		{[]string{`,,"unterminated`}, Challenge{}, false},
	} {
		h := http.Header{}
		for _, f := range c.fields {
			h.Add("WWW-Authenticate", f)
		}
		got, ok := ParseChallenge(h)
		if got != c.want || ok != c.ok {
			t.Errorf("%q: got %+v %v, want %+v %v", c.fields, got, ok, c.want, c.ok)
		}
	}
}

// A hostile server's header: parsing ends, and a Bearer challenge's
// values are what it quoted.
func FuzzParseChallenge(f *testing.F) {
	for _, s := range []string{`Bearer scope="a b", error="insufficient_scope"`, `Negotiate abc==, Bearer realm="r"`, `Basic ,, Bearer x=`, `Bearer x="\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h := http.Header{"Www-Authenticate": {s}}
		ParseChallenge(h)
	})
}
