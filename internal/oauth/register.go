package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"golang.org/x/oauth2"
)

// Token endpoint authentication methods (RFC 7591 §2).
const (
	authNone  = "none"
	authBasic = "client_secret_basic"
	authPost  = "client_secret_post"
)

// authStyle is how x/oauth2 sends the client's credentials for method:
// none sends the client id in the body, as client_secret_post does, with
// no secret (the library leaves an empty one out).
func authStyle(method string) oauth2.AuthStyle {
	if method == authBasic {
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleInParams
}

// pickAuthMethod is the method a client uses at a server that supports
// supported (RFC 8414: client_secret_basic when the list is absent): with
// a secret, basic then post; without one, none.
func pickAuthMethod(supported []string, hasSecret bool) string {
	if !hasSecret {
		return authNone
	}
	if len(supported) == 0 || slices.Contains(supported, authBasic) {
		return authBasic
	}
	if slices.Contains(supported, authPost) {
		return authPost
	}
	return authBasic
}

// registerMethod is the method the relay asks for when it registers: a
// public client (none) where the server allows one, else what it offers.
func registerMethod(supported []string) string {
	switch {
	case slices.Contains(supported, authNone):
		return authNone
	case len(supported) == 0 || slices.Contains(supported, authBasic):
		return authBasic
	case slices.Contains(supported, authPost):
		return authPost
	}
	return authNone
}

// registration is what a dynamic client registration gave.
type registration struct {
	clientID, secret, method string
}

// register registers the relay as a client of the authorization server
// (RFC 7591), for redirect.
func register(ctx context.Context, hc *http.Client, m *authServerMeta, name, redirect string) (*registration, error) {
	if m.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("the authorization server %s offers no dynamic client registration: give a client registered there with --client-id (its secret, if any, with --client-secret-env)", m.Issuer)
	}
	method := registerMethod(m.TokenEndpointAuthMethodsSupported)
	body, _ := json.Marshal(map[string]any{
		"client_name":                name,
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": method,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("registering at %s: %w", m.RegistrationEndpoint, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadata))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		json.Unmarshal(data, &e)
		return nil, fmt.Errorf("registering at %s: HTTP %d %s", m.RegistrationEndpoint, resp.StatusCode, oneLine(e.Error+" "+e.Description, 200))
	}
	var r struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Method       string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(data, &r); err != nil || r.ClientID == "" {
		return nil, fmt.Errorf("registering at %s: the answer holds no client_id", m.RegistrationEndpoint)
	}
	reg := &registration{clientID: r.ClientID, secret: r.ClientSecret, method: r.Method}
	switch {
	case reg.secret == "":
		reg.method = authNone
	case reg.method == authBasic || reg.method == authPost:
	case method != authNone:
		reg.method = method
	default:
		reg.method = authBasic
	}
	return reg, nil
}
