package oauth

import (
	"context"
	"errors"
	"fmt"
	"github.com/interceptor-dev/interceptor/internal/oauth/store"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
)

// login runs the authorization code flow (the locks held): discovery from
// the challenge ch, the client (pre-registered, kept, or registered now),
// the user's browser to the authorization endpoint with PKCE and the
// resource indicator, the code on the loopback listener, the exchange.
// scope, when set, is what to ask for (a step-up); else the challenge's,
// else all the server supports, with those granted before.
func (c *Client) login(ctx context.Context, ch Challenge, scope string) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.LoginTimeout)
	defer cancel()
	prm, err := discoverResource(ctx, c.hc, c.cfg.Server, ch)
	if err != nil {
		return err
	}
	resource, issuer := c.server, origin(c.cfg.Server)
	if prm != nil {
		resource, issuer = prm.Resource, prm.AuthorizationServers[0]
	}
	asm, err := discoverAuthServer(ctx, c.hc, issuer, prm == nil)
	if err != nil {
		return err
	}
	if asm == nil {
		asm = fallbackAuthServer(issuer)
	}
	if scope == "" {
		scope = ch.Scope
		if c.cfg.Scope != "" {
			scope = c.cfg.Scope
		} else if scope == "" && prm != nil {
			scope = strings.Join(prm.ScopesSupported, " ")
		}
		if c.rec != nil && c.rec.Issuer == asm.Issuer {
			// Scopes accumulate: a new authorization keeps what the last
			// one was granted.
			scope = strings.Join(union(c.granted(), strings.Fields(scope)), " ")
		}
	}

	state := newState()
	cb, cl, err := c.client(ctx, asm, state)
	if err != nil {
		return err
	}
	defer cb.close()
	verifier := oauth2.GenerateVerifier()
	conf := &oauth2.Config{
		ClientID: cl.id, ClientSecret: cl.secret,
		Endpoint:    oauth2.Endpoint{AuthURL: asm.AuthorizationEndpoint, TokenURL: asm.TokenEndpoint, AuthStyle: authStyle(cl.method)},
		RedirectURL: cb.redirect,
		Scopes:      strings.Fields(scope),
	}
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	c.logf("to authorize access to %s, open this URL in a browser (waiting %s): %s", c.server, c.cfg.LoginTimeout, authURL)
	open := c.cfg.OpenBrowser
	if open == nil {
		open = OpenBrowser
	}
	if err := open(authURL); err != nil {
		c.logf("could not open a browser (%v): open the URL above yourself", err)
	}
	code, iss, err := cb.wait(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no authorization for %s came back from the browser within %s (interceptor-http auth login --url %s authorizes ahead of time)", c.server, c.cfg.LoginTimeout, c.server)
	}
	if err != nil {
		return err
	}
	// RFC 9207: an iss other than the server's says the browser went to
	// another authorization server (a mix-up); one that promised an iss
	// must send it.
	if (iss != "" && strings.TrimSuffix(iss, "/") != strings.TrimSuffix(asm.Issuer, "/")) || (iss == "" && asm.IssParameterSupported) {
		return fmt.Errorf("the authorization response's issuer %q is not %s; refusing its code", oneLine(iss, 200), asm.Issuer)
	}
	tok, err := conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, c.hc), code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		return fmt.Errorf("exchanging the code at %s: %s", asm.TokenEndpoint, tokenError(err))
	}
	if err := checkTokenType(tok); err != nil {
		return err
	}
	rec := &store.Record{
		Server: c.server, Resource: resource, Issuer: asm.Issuer,
		AuthorizationEndpoint: asm.AuthorizationEndpoint, TokenEndpoint: asm.TokenEndpoint, AuthMethod: cl.method,
		ClientID: cl.id, Registered: cl.registered, RedirectURI: cb.redirect,
		Scope:       scope,
		AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, Expiry: c.expiry(tok),
	}
	if cl.registered {
		rec.ClientSecret = cl.secret
	}
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		rec.Scope = s
	}
	if err := c.save(rec); err != nil {
		return err
	}
	c.fresh, c.freshAt, c.asked = tok.AccessToken, c.cfg.Now(), strings.Fields(scope)
	c.logf("authorized for %s%s", c.server, scopeNote(rec.Scope))
	return nil
}

func scopeNote(scope string) string {
	if scope == "" {
		return ""
	}
	return fmt.Sprintf(" (scope %q)", oneLine(scope, 200))
}

// oauthClient is the client the relay is at an authorization server.
type oauthClient struct {
	id, secret, method string
	registered         bool
}

// client starts the redirect listener and settles the client: the
// pre-registered one; else the one registered before at this server for
// the same redirect URI (its port is tried again); else a new
// registration.
func (c *Client) client(ctx context.Context, asm *authServerMeta, state string) (*callback, *oauthClient, error) {
	var kept *store.Record
	if r := c.rec; c.cfg.ClientID == "" && r != nil && r.Registered && r.Issuer == asm.Issuer && r.ClientID != "" {
		kept = r
	}
	port := c.cfg.CallbackPort
	if kept != nil && port == 0 {
		if u, err := url.Parse(kept.RedirectURI); err == nil {
			fmt.Sscan(u.Port(), &port)
		}
	}
	cb, err := listenCallback(port, state)
	if err != nil && port != c.cfg.CallbackPort {
		cb, err = listenCallback(c.cfg.CallbackPort, state) // the kept port is taken: a new registration
	}
	if err != nil {
		return nil, nil, err
	}
	switch {
	case c.cfg.ClientID != "":
		return cb, &oauthClient{id: c.cfg.ClientID, secret: c.cfg.ClientSecret,
			method: pickAuthMethod(asm.TokenEndpointAuthMethodsSupported, c.cfg.ClientSecret != "")}, nil
	case kept != nil && kept.RedirectURI == cb.redirect:
		return cb, &oauthClient{id: kept.ClientID, secret: kept.ClientSecret, method: kept.AuthMethod, registered: true}, nil
	}
	reg, err := register(ctx, c.hc, asm, c.cfg.ClientName, cb.redirect)
	if err != nil {
		cb.close()
		return nil, nil, err
	}
	return cb, &oauthClient{id: reg.clientID, secret: reg.secret, method: reg.method, registered: true}, nil
}

// origin is the scheme and host of a URL: a 2025-03-26 server's
// authorization server.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}
