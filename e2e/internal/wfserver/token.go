// Package wfserver implements a token-authenticated MCP workflow server for
// the end-to-end tests: tokens are HMAC-signed, every result carries the next
// one, and every call and verdict is appended to a JSON-lines log.
package wfserver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
)

// Claims is the signed payload of a session token.
type Claims struct {
	SID      string   `json:"sid"`
	Seq      int      `json:"seq"`
	TS       int64    `json:"ts"`
	WF       string   `json:"wf"`
	Act      string   `json:"act"`
	Instance string   `json:"inst"`
	Scope    []string `json:"scope"`
	Nonce    string   `json:"nonce"`
	Aud      string   `json:"aud"`
}

// ErrForged reports a token whose signature does not verify.
var ErrForged = errors.New("signature does not verify")

// ErrMalformed reports a string that is not shaped like a token.
var ErrMalformed = errors.New("malformed token")

// Sign returns base64url(JSON claims) + "." + hex(HMAC-SHA256(secret, first part)).
func Sign(secret []byte, c Claims) string {
	body, err := json.Marshal(c)
	if err != nil {
		panic(err) // Claims always marshals
	}
	p := base64.RawURLEncoding.EncodeToString(body)
	return p + "." + mac(secret, p)
}

func mac(secret []byte, p string) string {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(p))
	return hex.EncodeToString(h.Sum(nil))
}

// Parse decodes a token without checking its signature.
func Parse(tok string) (Claims, error) {
	var c Claims
	p, _, ok := strings.Cut(tok, ".")
	if !ok {
		return c, ErrMalformed
	}
	body, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return c, ErrMalformed
	}
	if err := json.Unmarshal(body, &c); err != nil || c.SID == "" {
		return c, ErrMalformed
	}
	return c, nil
}

// Verify checks the signature and decodes the claims.
func Verify(secret []byte, tok string) (Claims, error) {
	c, err := Parse(tok)
	if err != nil {
		return c, err
	}
	p, sig, _ := strings.Cut(tok, ".")
	if !hmac.Equal([]byte(sig), []byte(mac(secret, p))) {
		return c, ErrForged
	}
	return c, nil
}

func randHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
