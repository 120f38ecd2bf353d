// Package store keeps the relay's OAuth records (internal/oauth), one
// private file per server URL under the state dir. It is apart from the
// OAuth client so that doctor, in the hook binary, reads them without
// linking net/http.
package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/privfs"
)

// Record is what the relay keeps for one server: where it authorizes,
// the client it is there, and its tokens. It is a private file (0600, in
// a 0700 dir, checked as the token store's are): the access and refresh
// tokens, and a dynamically registered client's secret, are secrets. A
// pre-registered client's secret is not kept: it comes from the
// environment each time.
type Record struct {
	Server   string `json:"server"`   // the MCP endpoint, oauth.Canonical
	Resource string `json:"resource"` // the resource indicator tokens are for (RFC 8707)
	Issuer   string `json:"issuer"`

	AuthorizationEndpoint string `json:"authorization_endpoint"`
	TokenEndpoint         string `json:"token_endpoint"`
	// AuthMethod is how the client authenticates at the token endpoint:
	// none, client_secret_basic or client_secret_post.
	AuthMethod string `json:"token_endpoint_auth_method"`

	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"` // a registered client's only
	// Registered says the relay registered the client itself (RFC 7591),
	// for RedirectURI.
	Registered  bool   `json:"registered,omitempty"`
	RedirectURI string `json:"redirect_uri,omitempty"`

	Scope        string    `json:"scope,omitempty"` // granted (else asked for), space-separated
	AccessToken  string    `json:"access_token,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Updated      time.Time `json:"updated"`
}

// Expired reports whether the access token is past its expiry, or within
// a short margin of it (a request sent now would arrive too late).
func (r *Record) Expired(now time.Time) bool {
	return !r.Expiry.IsZero() && now.After(r.Expiry.Add(-30*time.Second))
}

// State says whether the token can be used, in words for a person (no
// secret); ok is false when the relay would have to authorize anew.
func (r *Record) State(now time.Time) (state string, ok bool) {
	login := "interceptor-http auth login --url " + r.Server
	switch {
	case r.AccessToken == "" && r.RefreshToken == "":
		return "not authorized (no token kept; " + login + ")", false
	case r.Expiry.IsZero():
		return "authorized (the token has no expiry)", true
	case !r.Expired(now):
		return fmt.Sprintf("authorized (the token expires in %s)", r.Expiry.Sub(now).Round(time.Second)), true
	case r.RefreshToken != "":
		return "authorized (the token expired; the relay refreshes it on its next request)", true
	}
	return "expired, with no refresh token (" + login + ")", false
}

// Scopes is Scope as a list.
func (r *Record) Scopes() []string { return strings.Fields(r.Scope) }

// Store keeps Records under a state dir, one file per server URL, in
// oauth/ (beside the token store's tokens/).
type Store struct {
	StateDir string
	// LockTimeout bounds the wait for another relay's refresh of the same
	// server's token.
	LockTimeout time.Duration
}

const (
	storeDir  = "oauth"
	maxRecord = 256 << 10
)

// Dir is the dir of the records.
func (s *Store) Dir() string { return filepath.Join(s.StateDir, storeDir) }

// key names server's files: a hash of its canonical URL (a URL may be
// long, and holds characters no file name should).
func key(server string) string {
	sum := sha256.Sum256([]byte(server))
	return hex.EncodeToString(sum[:16])
}

// Path is the file of server's record (server as oauth.Canonical gives it).
func (s *Store) Path(server string) string { return filepath.Join(s.Dir(), key(server)+".json") }

// ensure creates the state dir and oauth/ (0700) where missing and checks
// both are private.
func (s *Store) ensure() error {
	for _, d := range []string{s.StateDir, s.Dir()} {
		err := privfs.CheckDir(d)
		if err == nil {
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", d, err)
		}
		if err := privfs.CheckDir(d); err != nil {
			return err
		}
	}
	return nil
}

// Load reads server's record; nil when there is none.
func (s *Store) Load(server string) (*Record, error) {
	for _, d := range []string{s.StateDir, s.Dir()} {
		if err := privfs.CheckDir(d); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return nil, err
		}
	}
	return readRecord(s.Path(server))
}

func readRecord(path string) (*Record, error) {
	data, err := privfs.ReadFile(path, "OAuth token file", maxRecord)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r := new(Record)
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("OAuth token file %s: not a record (%v); interceptor-http auth logout --url URL removes it", path, err)
	}
	return r, nil
}

// Save writes r (whole: a reader sees the old record or the new one).
func (s *Store) Save(r *Record) error {
	if err := s.ensure(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return privfs.WriteFile(s.Path(r.Server), "OAuth token file", append(data, '\n'), privfs.WriteOptions{})
}

// Delete removes server's record; false when there was none.
func (s *Store) Delete(server string) (bool, error) {
	if err := privfs.CheckDir(s.Dir()); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	err := os.Remove(s.Path(server))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("OAuth token file %s: %w", s.Path(server), err)
	}
	// The lock file stays: a relay may be waiting on it.
	return true, nil
}

func (s *Store) lockPath(server string) string {
	return filepath.Join(s.Dir(), ".lock-"+key(server))
}

// Locked runs fn holding server's lock: two relays of one server (two
// sessions of a client) must not both refresh its token, as a server that
// rotates refresh tokens would take the second for a replay.
func (s *Store) Locked(server string, fn func() error) error {
	if err := s.ensure(); err != nil {
		return err
	}
	timeout := s.LockTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	return privfs.Locked(s.lockPath(server), "OAuth", timeout, fn)
}

// List reads every record, by server URL. A file that cannot be read is
// an error naming it; the others are still listed.
func (s *Store) List() ([]*Record, error) {
	if err := privfs.CheckDir(s.StateDir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	if err := privfs.CheckDir(s.Dir()); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	entries, err := os.ReadDir(s.Dir())
	if err != nil {
		return nil, err
	}
	var out []*Record
	var errs []error
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		r, err := readRecord(filepath.Join(s.Dir(), e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if r != nil {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *Record) int { return strings.Compare(a.Server, b.Server) })
	return out, errors.Join(errs...)
}
