package install

import (
	"net/url"
	"strings"
	"unicode"
)

// A Streamable HTTP server's address often carries its key: in the query
// (?api_key=…), in the path (…/s/sk_live_…/mcp), in the user info. An
// address in a relay's arguments is readable by every user of the
// machine (ps, /proc/PID/cmdline), so install --proxy never puts one there:
// the whole address goes into the entry's environment (URLEnv), whatever
// it holds. No rule can tell a key in a path from a name (a workspace id,
// a capability URL that is the secret), so none is asked to; the guesses
// below only decide what a message masks and what doctor warns of.

// URLEnv is the variable of the entry's environment that holds the
// server's address; the relay reads it (--url-env).
const URLEnv = "INTERCEPTOR_PROXY_URL"

// secretPrefixes start path segments that are keys by their look.
var secretPrefixes = []string{"sk_", "sk-", "pk_", "pk-", "rk_", "api", "key", "tok", "secret", "sess", "bearer",
	"pat_", "ghp_", "gho_", "ghs_", "github_pat_", "glpat-", "xox"}

// looksSecret reports a path segment that looks like a key: long, or with
// a key's prefix, or letters and digits interleaved (a1b2c3…, not
// workspace-2024).
func looksSecret(seg string) bool {
	n := len(seg)
	if n >= 24 {
		return true
	}
	lower := strings.ToLower(seg)
	for _, p := range secretPrefixes {
		if strings.HasPrefix(lower, p) && n >= len(p)+4 {
			return true
		}
	}
	turns, last := 0, 0 // letter (1) and digit (2) side by side
	for _, r := range seg {
		kind := 0
		switch {
		case unicode.IsLetter(r):
			kind = 1
		case unicode.IsDigit(r):
			kind = 2
		}
		if kind != 0 && last != 0 && kind != last {
			turns++
		}
		last = kind
	}
	return n >= 10 && turns >= 3
}

// mask shows the start of a secret (of one long enough), never the rest.
func mask(s string) string {
	if len(s) <= 8 {
		return "…"
	}
	return s[:4] + "…"
}

// URLSecrets says where raw may hold a secret, masked, for a message
// ("its query (api_key=…)"); none when it looks like it holds none.
func URLSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return []string{"an address that does not parse (not shown)"}
	}
	var out []string
	if u.User != nil {
		out = append(out, "its user info")
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if plain, err := url.PathUnescape(seg); err == nil && looksSecret(plain) {
			out = append(out, "its path ("+mask(plain)+")")
		}
	}
	if u.RawQuery != "" {
		out = append(out, "its query ("+maskedQuery(u.RawQuery)+")")
	}
	if u.Fragment != "" {
		out = append(out, "its fragment")
	}
	return out
}

// maskedQuery is a query with every value masked: the names stay.
func maskedQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		if name, _, ok := strings.Cut(p, "="); ok {
			parts[i] = name + "=…"
		}
	}
	return strings.Join(parts, "&")
}

// MaskURL is raw for a message: the user info, every query value, the
// fragment and each path segment that looks like a key masked.
func MaskURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "(an address that does not parse; not shown)"
	}
	var b strings.Builder
	b.WriteString(u.Scheme + "://")
	if u.User != nil {
		b.WriteString("…@")
	}
	b.WriteString(u.Host)
	segs := strings.Split(u.EscapedPath(), "/")
	for i, seg := range segs {
		if plain, err := url.PathUnescape(seg); err == nil && looksSecret(plain) {
			segs[i] = mask(plain)
		}
	}
	b.WriteString(strings.Join(segs, "/"))
	if u.RawQuery != "" {
		b.WriteString("?" + maskedQuery(u.RawQuery))
	}
	if u.Fragment != "" {
		b.WriteString("#…")
	}
	return b.String()
}
