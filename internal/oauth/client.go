package oauth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"github.com/interceptor-dev/interceptor/internal/oauth/store"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// Config is how the relay is a client of one server's authorization
// server.
type Config struct {
	Server   string // the MCP endpoint
	StateDir string // where Records are kept

	// ClientID is a client registered with the authorization server
	// beforehand ("": the relay registers itself, RFC 7591), and
	// ClientSecret its secret, if it has one.
	ClientID, ClientSecret string
	// CallbackPort is the redirect listener's port (0: any free one; a
	// pre-registered client's redirect URI may name one).
	CallbackPort int
	// ClientName is the name the relay registers under.
	ClientName string
	// Scope, when set, is what an authorization asks for, whatever the
	// server names (a step-up still adds what its 403 names).
	Scope string

	HTTP        *http.Client       // nil: a client with a timeout
	OpenBrowser func(string) error // nil: OpenBrowser
	// Logf writes a line for the user: where to authorize, what failed.
	// Never a token or a secret.
	Logf func(format string, a ...any)
	// LoginTimeout bounds the wait for the browser (0: 5 minutes).
	LoginTimeout time.Duration
	Now          func() time.Time
}

// Client keeps one server's authorization: the token to send, refreshed
// when it expires, and a new authorization when the server refuses it.
// Its methods are safe for concurrent use; one refresh or authorization
// runs at a time, across the relays of the same server too.
type Client struct {
	cfg    Config
	server string // Canonical
	store  *store.Store
	hc     *http.Client

	mu     sync.Mutex
	rec    *store.Record // the record as last read or written
	loaded bool
	// fresh is the token the last authorization of this process got: a
	// server that refuses it at once is not sent to the browser again.
	fresh   string
	freshAt time.Time
	// asked are the scopes the last authorization of this process asked
	// for: a 403 for scopes asked for and not granted is final.
	asked []string
}

// New makes the client of cfg.Server.
func New(cfg Config) (*Client, error) {
	server, err := Canonical(cfg.Server)
	if err != nil {
		return nil, err
	}
	if cfg.StateDir == "" {
		return nil, errors.New("no state dir to keep OAuth tokens in")
	}
	if cfg.LoginTimeout <= 0 {
		cfg.LoginTimeout = 5 * time.Minute
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "interceptor"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	hc := cfg.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second, CheckRedirect: noDowngrade}
	}
	// Another relay may hold the lock through a whole authorization.
	st := &store.Store{StateDir: cfg.StateDir, LockTimeout: cfg.LoginTimeout + 30*time.Second}
	return &Client{cfg: cfg, server: server, store: st, hc: hc}, nil
}

// noDowngrade follows at most 5 redirects, never from https to http: a
// metadata or token request must not be steered off TLS.
func noDowngrade(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	if via[len(via)-1].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("refusing a redirect from https to %s", req.URL.Scheme)
	}
	return nil
}

// Server is the server URL, canonical.
func (c *Client) Server() string { return c.server }

// Store is where the client keeps its record.
func (c *Client) Store() *store.Store { return c.store }

func (c *Client) logf(format string, a ...any) {
	if c.cfg.Logf != nil {
		c.cfg.Logf(format, a...)
	}
}

// valid is the access token held, when it has not expired.
func (c *Client) valid() string {
	if c.rec == nil || c.rec.AccessToken == "" || c.rec.Expired(c.cfg.Now()) {
		return ""
	}
	return c.rec.AccessToken
}

func bearer(tok string) string {
	if tok == "" {
		return ""
	}
	return "Bearer " + tok
}

// reload reads the record again: another relay may have refreshed it.
func (c *Client) reload() error {
	r, err := c.store.Load(c.server)
	if err != nil {
		return err
	}
	c.rec, c.loaded = r, true
	return nil
}

// Authorization is the Authorization header value to send the server:
// "Bearer" and the token held, refreshed first when it has expired; ""
// when none is held (a request then goes without, and a 401 leads to
// Challenged).
func (c *Client) Authorization(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		if err := c.reload(); err != nil {
			return "", err
		}
	}
	if tok := c.valid(); tok != "" || c.rec == nil || c.rec.AccessToken == "" {
		return bearer(tok), nil
	}
	err := c.store.Locked(c.server, func() error {
		if err := c.reload(); err != nil || c.valid() != "" {
			return err
		}
		return c.refresh(ctx)
	})
	if err != nil {
		c.logf("%v", err)
	}
	return bearer(c.valid()), nil
}

// Challenged handles the server's 401 or 403 (status, with its headers h)
// to a request sent with the Authorization value sent: it takes a token
// another relay got meanwhile, refreshes, or authorizes anew (the user's
// browser), and a 403 insufficient_scope asks for the scopes the server
// names, with those granted (step-up). retry says to send the request
// again, with Authorization's new value.
func (c *Client) Challenged(ctx context.Context, status int, h http.Header, sent string) (retry bool, err error) {
	ch, _ := ParseChallenge(h)
	if status == http.StatusForbidden && ch.Error != "insufficient_scope" {
		return false, nil // refused for another reason: no token helps
	}
	if status != http.StatusUnauthorized && status != http.StatusForbidden {
		return false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	err = c.store.Locked(c.server, func() error {
		if err := c.reload(); err != nil {
			return err
		}
		if cur := bearer(c.valid()); cur != "" && cur != sent {
			retry = true // a newer token than the one refused
			return nil
		}
		scope := ""
		if status == http.StatusForbidden {
			have, need := c.granted(), strings.Fields(ch.Scope)
			if len(need) == 0 || subset(need, have) || subset(need, c.asked) {
				// Authorizing again for what was granted, or refused,
				// cannot help.
				return nil
			}
			scope = strings.Join(union(have, need), " ")
		} else if sent != "" {
			if c.fresh != "" && sent == bearer(c.fresh) && c.cfg.Now().Sub(c.freshAt) < time.Minute {
				return fmt.Errorf("%s refused the token it had just authorized (HTTP 401); not asking the browser again", c.server)
			}
			if c.rec != nil && c.rec.RefreshToken != "" {
				err := c.refresh(ctx)
				if err == nil {
					retry = true
					return nil
				}
				c.logf("%v", err)
			}
		}
		if err := c.login(ctx, ch, scope); err != nil {
			return err
		}
		retry = true
		return nil
	})
	return retry, err
}

// granted are the scopes the record's token holds.
func (c *Client) granted() []string {
	if c.rec == nil || c.rec.AccessToken == "" {
		return nil
	}
	return c.rec.Scopes()
}

// Login authorizes anew (the user's browser): what `auth login` does. The
// server is asked first, without a token, what it wants (its 401's
// challenge); a server that answers without one is still looked up at
// its well-known metadata.
func (c *Client) Login(ctx context.Context) error {
	ch, err := c.probe(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.store.Locked(c.server, func() error {
		if err := c.reload(); err != nil {
			return err
		}
		return c.login(ctx, ch, "")
	})
}

// probe POSTs an initialize request to the server without a token and
// returns the challenge of its 401 (or 403); none when it answers another
// way (a session it opened is ended).
func (c *Client) probe(ctx context.Context) (Challenge, error) {
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"interceptor","version":"auth"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.Server, strings.NewReader(body))
	if err != nil {
		return Challenge{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.hc.Do(req)
	if err != nil {
		return Challenge{}, fmt.Errorf("cannot reach %s: %w", c.server, err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		ch, _ := ParseChallenge(resp.Header)
		return ch, nil
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		if del, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.cfg.Server, nil); err == nil {
			del.Header.Set("Mcp-Session-Id", sid)
			if r, err := c.hc.Do(del); err == nil {
				r.Body.Close()
			}
		}
	}
	return Challenge{}, nil
}

// Logout forgets the server's tokens and client; false when none were
// kept. (The authorization server is not told: a token it issued stays
// valid until it expires.)
func (c *Client) Logout() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var removed bool
	err := c.store.Locked(c.server, func() error {
		var err error
		removed, err = c.store.Delete(c.server)
		c.rec, c.loaded = nil, true
		return err
	})
	return removed, err
}

// Status is the record kept for the server; nil when there is none.
func (c *Client) Status() (*store.Record, error) { return c.store.Load(c.server) }

// refresh gets a new access token with the refresh token (the locks
// held). A refresh token the server refuses (invalid_grant) is dropped
// with the access token: the next 401 authorizes anew.
func (c *Client) refresh(ctx context.Context) error {
	r := c.rec
	if r == nil || r.RefreshToken == "" {
		return errors.New("no refresh token")
	}
	conf := &oauth2.Config{
		ClientID: r.ClientID, ClientSecret: c.secret(r),
		Endpoint: oauth2.Endpoint{TokenURL: r.TokenEndpoint, AuthStyle: authStyle(r.AuthMethod)},
	}
	// x/oauth2's own refresh (TokenSource) sends no resource indicator,
	// which the MCP spec asks of every token request (RFC 8707 §2.2):
	// Exchange sends the refresh grant instead, with one. Its empty code
	// parameter counts as left out (RFC 6749 §3.1).
	tok, err := conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, c.hc), "",
		oauth2.SetAuthURLParam("grant_type", "refresh_token"),
		oauth2.SetAuthURLParam("refresh_token", r.RefreshToken),
		oauth2.SetAuthURLParam("resource", r.Resource))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			next := *r
			next.AccessToken, next.RefreshToken, next.Expiry = "", "", time.Time{}
			if serr := c.save(&next); serr != nil {
				return serr
			}
		}
		return fmt.Errorf("refreshing the token for %s: %s", c.server, tokenError(err))
	}
	if err := checkTokenType(tok); err != nil {
		return err
	}
	next := *r
	next.AccessToken, next.RefreshToken, next.Expiry = tok.AccessToken, tok.RefreshToken, c.expiry(tok)
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		next.Scope = s
	}
	return c.save(&next)
}

// secret is the client secret of r's client: kept with a registered one,
// else the one configured (never written to the store).
func (c *Client) secret(r *store.Record) string {
	if r.Registered {
		return r.ClientSecret
	}
	if r.ClientID == c.cfg.ClientID {
		return c.cfg.ClientSecret
	}
	return ""
}

// expiry is when tok expires, by the client's clock ("expires_in" is
// relative to the answer); zero when the server gave no lifetime.
func (c *Client) expiry(tok *oauth2.Token) time.Time {
	if tok.ExpiresIn > 0 {
		return c.cfg.Now().Add(time.Duration(tok.ExpiresIn) * time.Second).UTC()
	}
	return tok.Expiry
}

func (c *Client) save(r *store.Record) error {
	r.Updated = c.cfg.Now().UTC()
	if err := c.store.Save(r); err != nil {
		return err
	}
	c.rec, c.loaded = r, true
	return nil
}

// tokenError is what a failed token request says, without the body the
// library quotes (a server may echo what it was sent).
func tokenError(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return oneLine(re.ErrorCode+" "+re.ErrorDescription, 200)
		}
		if re.Response != nil {
			return fmt.Sprintf("HTTP %d", re.Response.StatusCode)
		}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return oneLine(err.Error(), 200)
}

// checkTokenType refuses a token that is not a bearer token (the only
// kind the relay knows how to send).
func checkTokenType(tok *oauth2.Token) error {
	if tok.AccessToken == "" {
		return errors.New("the token endpoint answered without an access_token")
	}
	if t := tok.TokenType; t != "" && !strings.EqualFold(t, "bearer") {
		return fmt.Errorf("the token endpoint issued a %q token; only Bearer tokens can be sent", oneLine(t, 40))
	}
	return nil
}

func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}

// union is a's scopes, then those of b not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// newState is an authorization's state: 128 random bits.
func newState() string { return rand.Text() }
