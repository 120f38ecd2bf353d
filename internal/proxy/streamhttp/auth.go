package streamhttp

import (
	"context"
	"errors"
	"net/http"
)

// Authorizer authorizes the relay's requests to the server (the relay's
// OAuth client, internal/oauth): Authorization is the header value each
// request carries ("" none), and a 401 or 403 goes to Challenged, which
// may authorize anew (the user's browser) and says whether to send the
// request again.
type Authorizer interface {
	Authorization(ctx context.Context) (string, error)
	Challenged(ctx context.Context, status int, h http.Header, sent string) (retry bool, err error)
}

// authTries bounds how often one request is sent again after an
// authorization: a 401 and then a 403 insufficient_scope (step-up).
const authTries = 2

// authFailed is an authorization that failed: the request it was for is
// answered with it.
type authFailed struct{ err error }

func (e *authFailed) Error() string { return "authorization failed: " + e.err.Error() }
func (e *authFailed) Unwrap() error { return e.err }

// authorize sets req's Authorization from the authorizer, if there is one.
func (c *httpConn) authorize(req *http.Request) error {
	if c.h.Auth == nil {
		return nil
	}
	v, err := c.h.Auth.Authorization(req.Context())
	if err != nil {
		return &authFailed{err}
	}
	if v != "" {
		req.Header.Set("Authorization", v)
	} else {
		req.Header.Del("Authorization")
	}
	return nil
}

// do sends req. A 401 or 403 goes to the authorizer, and when it has a
// new token the request is sent again with it (its body from GetBody),
// at most authTries times; the last answer is returned as it came.
func (c *httpConn) do(req *http.Request) (*http.Response, error) {
	for try := 0; ; try++ {
		resp, err := c.client.Do(req)
		if err != nil || c.h.Auth == nil || try == authTries ||
			(resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
			return resp, err
		}
		retry, err := c.h.Auth.Challenged(req.Context(), resp.StatusCode, resp.Header, req.Header.Get("Authorization"))
		if err != nil || !retry {
			if err != nil {
				resp.Body.Close()
				return nil, &authFailed{err}
			}
			return resp, nil
		}
		resp.Body.Close()
		next := req.Clone(req.Context())
		if req.GetBody != nil {
			if next.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		} else if req.Body != nil && req.Body != http.NoBody {
			return nil, errors.New("the request cannot be sent again")
		}
		if err := c.authorize(next); err != nil {
			return nil, err
		}
		req = next
	}
}
