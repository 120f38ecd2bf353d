package oauth

import (
	"net/http"
	"strings"
)

// Challenge is what a server's Bearer challenge (WWW-Authenticate, RFC 6750
// §3, RFC 9728 §5.1) says: where its protected resource metadata is, the
// scopes the request needs, and the error.
type Challenge struct {
	ResourceMetadata string
	Scope            string // space-separated
	Error            string // e.g. invalid_token, insufficient_scope
}

// ParseChallenge reads the Bearer challenge of h's WWW-Authenticate fields
// (the first one; a field may hold several challenges, and a server may
// send several fields). ok is false when there is none.
func ParseChallenge(h http.Header) (c Challenge, ok bool) {
	for _, field := range h.Values("WWW-Authenticate") {
		for _, ch := range splitChallenges(field) {
			if !strings.EqualFold(ch.scheme, "bearer") {
				continue
			}
			return Challenge{
				ResourceMetadata: ch.params["resource_metadata"],
				Scope:            ch.params["scope"],
				Error:            ch.params["error"],
			}, true
		}
	}
	return Challenge{}, false
}

type challenge struct {
	scheme string
	params map[string]string // names in lower case
}

// splitChallenges parses one WWW-Authenticate field (RFC 9110 §11.6.1):
// challenges separated by commas, each a scheme followed by name=value
// parameters (a value a token or a quoted string) or a token68, also
// comma-separated. What it cannot read it skips.
func splitChallenges(s string) []challenge {
	var out []challenge
	p := &lexer{s: s}
	for {
		p.skip(", \t")
		if p.done() {
			return out
		}
		scheme := p.token()
		if scheme == "" {
			p.pos++ // not a token: skip the character
			continue
		}
		c := challenge{scheme: scheme, params: map[string]string{}}
		p.skip(" \t")
		for !p.done() {
			save := p.pos
			name := p.token()
			p.skip(" \t")
			if name == "" || !p.eat('=') {
				// Either a token68 (the whole credential) or the next
				// challenge's scheme.
				p.pos = save
				if p.token68() && !p.done() && p.s[p.pos] != ',' {
					p.pos = save
				}
				if p.pos == save {
					break
				}
				continue
			}
			p.skip(" \t")
			var value string
			if !p.done() && p.s[p.pos] == '"' {
				value = p.quoted()
			} else {
				value = p.token()
			}
			c.params[strings.ToLower(name)] = value
			p.skip(" \t")
			if !p.eat(',') {
				break
			}
			p.skip(" \t,")
			// A token not followed by '=' starts the next challenge.
			next := p.pos
			if t := p.token(); t != "" {
				p.skip(" \t")
				isParam := p.eat('=')
				p.pos = next
				if !isParam {
					break
				}
			}
		}
		out = append(out, c)
	}
}

type lexer struct {
	s   string
	pos int
}

func (p *lexer) done() bool { return p.pos >= len(p.s) }

func (p *lexer) skip(chars string) {
	for !p.done() && strings.IndexByte(chars, p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *lexer) eat(c byte) bool {
	if !p.done() && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// token reads an RFC 9110 token.
func (p *lexer) token() string {
	start := p.pos
	for !p.done() && isTchar(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

// token68 reads a token68 (with its trailing '='s); false when there is
// none here.
func (p *lexer) token68() bool {
	start := p.pos
	for !p.done() && (isTchar(p.s[p.pos]) || strings.IndexByte("-._~+/", p.s[p.pos]) >= 0) {
		p.pos++
	}
	for !p.done() && p.s[p.pos] == '=' {
		p.pos++
	}
	return p.pos > start
}

// quoted reads a quoted string, unescaping quoted pairs.
func (p *lexer) quoted() string {
	p.pos++ // the opening quote
	var b strings.Builder
	for !p.done() {
		c := p.s[p.pos]
		p.pos++
		switch {
		case c == '"':
			return b.String()
		case c == '\\' && !p.done():
			b.WriteByte(p.s[p.pos])
			p.pos++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isTchar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
