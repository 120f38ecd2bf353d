package token

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func FuzzFindInText(f *testing.F) {
	f.Add("session_token: abc.def", "session_token")
	f.Add(`{"session_token":"x"}`, "session_token")
	f.Add("<untrusted_context>\nsession_token=tok\n</untrusted_context>", "session_token")
	f.Add(`received_session_token="x"; **session_token**: 'y'`, "session_token")
	f.Fuzz(func(t *testing.T, text, key string) {
		tok, ok := FindInText(text, key)
		if ok && (tok == "" || !strings.Contains(text, tok) && !gjson.Valid(strings.TrimSpace(text)) && !strings.Contains(text, "untrusted_context")) {
			t.Fatalf("FindInText(%q, %q) = %q: not from the text", text, key, tok)
		}
	})
}

func FuzzRedactText(f *testing.F) {
	f.Add("done\nsession_token: eyJhYmMi.0123\n", "eyJhYmMi.0123")
	f.Add(`{"session_token":"abcdefgh","x":"abcdefgh"}`, "abcdefgh")
	f.Add("abcdefghabcdefgh", "abcdefgh")
	f.Fuzz(func(t *testing.T, text, tok string) {
		if Validate(tok) != nil || len(tok) < 8 || strings.ContainsAny(tok, `"\`) || strings.Contains(Placeholder, tok) {
			return
		}
		out, changed := RedactText(text, "session_token", tok)
		if !changed && out != text {
			t.Fatalf("unchanged but different: %q -> %q", text, out)
		}
		if strings.Contains(out, tok) {
			// Removing text can join its neighbours into the token only if the
			// token itself straddles what was removed; check that is the case.
			if strings.Count(out, tok) > strings.Count(text, tok) {
				t.Fatalf("redaction created the token: %q -> %q", text, out)
			}
			if trimmed := strings.TrimSpace(text); !(strings.HasPrefix(trimmed, "{") && gjson.Valid(trimmed)) {
				t.Fatalf("token survived redaction: %q -> %q", text, out)
			}
		}
	})
}

func FuzzInject(f *testing.F) {
	f.Add(`{"step":"one"}`, "session_token")
	f.Add(`{"a.b":1}`, "a.b")
	f.Add(`{}`, "*")
	f.Fuzz(func(t *testing.T, args, key string) {
		if !gjson.Valid(args) {
			return // Inject takes arguments from an already parsed payload
		}
		out, err := Inject(args, key, "TOKEN-1234")
		if err != nil {
			return
		}
		if !gjson.ValidBytes(out) {
			t.Fatalf("Inject(%q, %q) = invalid %q", args, key, out)
		}
		if key != "" && gjson.GetBytes(out, gjson.Escape(key)).Str != "TOKEN-1234" {
			t.Fatalf("Inject(%q, %q) = %q: token not under key", args, key, out)
		}
	})
}
