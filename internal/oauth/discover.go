package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// resourceMeta is a server's protected resource metadata (RFC 9728).
type resourceMeta struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// authServerMeta is an authorization server's metadata (RFC 8414; OpenID
// discovery has the same fields).
type authServerMeta struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	IssParameterSupported             bool     `json:"authorization_response_iss_parameter_supported"`
}

// maxMetadata bounds a metadata document, a registration or a token
// response.
const maxMetadata = 1 << 20

// statusError is a metadata request answered with another status than 200.
type statusError struct {
	url    string
	status int
}

func (e *statusError) Error() string { return fmt.Sprintf("%s answered HTTP %d", e.url, e.status) }

// getJSON GETs u and decodes its JSON into v.
func getJSON(ctx context.Context, hc *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return &statusError{url: u, status: resp.StatusCode}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata+1))
	if err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	if len(data) > maxMetadata {
		return fmt.Errorf("%s: more than %d bytes of metadata", u, maxMetadata)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: not JSON metadata: %w", u, err)
	}
	return nil
}

// notFound says a metadata document is not at that URL (a 4xx), so the
// next place may be tried.
func notFound(err error) bool {
	var se *statusError
	return errors.As(err, &se) && se.status >= 400 && se.status < 500
}

// discoverResource finds the server's protected resource metadata: at the
// challenge's resource_metadata, else at the well-known path of the
// server's endpoint, else at the root (RFC 9728 §3.1, in the MCP spec's
// order). nil when the server has none (a 2025-03-26 server: its origin is
// the authorization server).
func discoverResource(ctx context.Context, hc *http.Client, server string, ch Challenge) (*resourceMeta, error) {
	su, err := url.Parse(server)
	if err != nil {
		return nil, fmt.Errorf("the server URL %q: %w", server, err)
	}
	var urls []string
	if ch.ResourceMetadata != "" {
		if err := checkMetadataURL(ch.ResourceMetadata, su); err != nil {
			return nil, fmt.Errorf("the server's resource_metadata: %w", err)
		}
		urls = append(urls, ch.ResourceMetadata)
	}
	root := &url.URL{Scheme: su.Scheme, Host: su.Host, Path: "/.well-known/oauth-protected-resource"}
	if p := strings.TrimSuffix(su.Path, "/"); p != "" {
		urls = append(urls, root.String()+p)
	}
	urls = append(urls, root.String())
	for _, u := range urls {
		var m resourceMeta
		err := getJSON(ctx, hc, u, &m)
		if notFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("protected resource metadata: %w", err)
		}
		if !coversResource(m.Resource, su) {
			return nil, fmt.Errorf("the protected resource metadata at %s is for %q, not for %s; refusing to authorize for it", u, m.Resource, server)
		}
		if len(m.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("the protected resource metadata at %s names no authorization server", u)
		}
		return &m, nil
	}
	return nil, nil
}

// discoverAuthServer reads the metadata of the authorization server
// issuer: RFC 8414's well-known URL, then OpenID discovery's, in the MCP
// spec's order for an issuer with a path and for one without. nil when it
// has none (a 2025-03-26 server, whose endpoints are at fixed paths).
// legacy says issuer is the MCP server's origin, not a name the server
// gave (it has no protected resource metadata: the 2025-03-26 spec): the
// metadata there may name an issuer below that origin.
func discoverAuthServer(ctx context.Context, hc *http.Client, issuer string, legacy bool) (*authServerMeta, error) {
	iu, err := url.Parse(issuer)
	if err != nil || iu.Host == "" {
		return nil, fmt.Errorf("the authorization server %q is not a URL", issuer)
	}
	if err := checkEndpoint(issuer); err != nil {
		return nil, fmt.Errorf("the authorization server: %w", err)
	}
	base := iu.Scheme + "://" + iu.Host
	var urls []string
	if p := strings.TrimSuffix(iu.EscapedPath(), "/"); p != "" {
		urls = []string{
			base + "/.well-known/oauth-authorization-server" + p,
			base + "/.well-known/openid-configuration" + p,
			base + p + "/.well-known/openid-configuration",
		}
	} else {
		urls = []string{base + "/.well-known/oauth-authorization-server", base + "/.well-known/openid-configuration"}
	}
	for _, u := range urls {
		var m authServerMeta
		err := getJSON(ctx, hc, u, &m)
		if notFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("authorization server metadata: %w", err)
		}
		if legacy && origin(m.Issuer) == origin(issuer) {
			// The server's own origin: the issuer it names there is its.
		} else if strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, fmt.Errorf("the authorization server metadata at %s is for issuer %q, not %q (RFC 8414 §3.3); refusing it", u, m.Issuer, issuer)
		}
		if err := m.check(); err != nil {
			return nil, fmt.Errorf("the authorization server metadata at %s: %w", u, err)
		}
		return &m, nil
	}
	return nil, nil
}

// check refuses metadata the relay must not act on: endpoints it would
// send a secret, or the user's browser, to over plain HTTP beyond
// loopback, or as another scheme (a browser opens anything); an
// authorization server without PKCE (S256), which the MCP spec says a
// client must refuse.
func (m *authServerMeta) check() error {
	if m.AuthorizationEndpoint == "" || m.TokenEndpoint == "" {
		return errors.New("no authorization_endpoint or token_endpoint")
	}
	for _, e := range [][2]string{{"authorization_endpoint", m.AuthorizationEndpoint}, {"token_endpoint", m.TokenEndpoint}, {"registration_endpoint", m.RegistrationEndpoint}} {
		if e[1] == "" {
			continue
		}
		if err := checkEndpoint(e[1]); err != nil {
			return fmt.Errorf("%s: %w", e[0], err)
		}
	}
	if !slices.Contains(m.CodeChallengeMethodsSupported, "S256") {
		return errors.New("it does not offer PKCE with S256 (code_challenge_methods_supported), which the MCP spec requires; refusing to authorize there")
	}
	return nil
}

// fallbackAuthServer is the 2025-03-26 spec's default: the endpoints at
// fixed paths of the authorization server's origin.
func fallbackAuthServer(issuer string) *authServerMeta {
	base := strings.TrimSuffix(issuer, "/")
	return &authServerMeta{
		Issuer:                base,
		AuthorizationEndpoint: base + "/authorize",
		TokenEndpoint:         base + "/token",
		RegistrationEndpoint:  base + "/register",
	}
}

// checkEndpoint accepts an https URL, or an http one on a loopback host.
func checkEndpoint(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", raw)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("%s is plain HTTP beyond loopback; refusing it", raw)
	}
	return fmt.Errorf("%s is not an http(s) URL; refusing it", raw)
}

// checkMetadataURL accepts what checkEndpoint does, or a URL of the
// server's own origin (the server's URL is the user's choice).
func checkMetadataURL(raw string, server *url.URL) error {
	u, err := url.Parse(raw)
	if err == nil && u.Scheme == server.Scheme && strings.EqualFold(u.Host, server.Host) {
		return nil
	}
	return checkEndpoint(raw)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// coversResource reports whether resource, a protected resource
// metadata's, is the server's URL or a prefix of it on the same origin
// (the root metadata's resource is the origin): metadata for another
// resource must not get a token for this one (RFC 9728 §3.3).
func coversResource(resource string, server *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Fragment != "" || !strings.EqualFold(r.Scheme, server.Scheme) || !sameHost(r, server) {
		return false
	}
	rp, sp := strings.TrimSuffix(r.Path, "/"), strings.TrimSuffix(server.Path, "/")
	return rp == sp || strings.HasPrefix(sp, rp+"/")
}

// sameHost compares hosts and ports, a default port equal to none.
func sameHost(a, b *url.URL) bool {
	return strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// Canonical is the form of a server URL its tokens are kept under: scheme
// and host in lower case, no default port, no fragment, no trailing slash.
func Canonical(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("%q is not an http(s) URL", raw)
	}
	c := url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Hostname()), Path: strings.TrimSuffix(u.Path, "/"), RawQuery: u.RawQuery}
	if p := u.Port(); p != "" && p != port(&url.URL{Scheme: c.Scheme}) {
		c.Host = net.JoinHostPort(c.Host, p)
	} else if strings.Contains(c.Host, ":") {
		c.Host = "[" + c.Host + "]"
	}
	return c.String(), nil
}
