package streamhttp

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
)

// A response stream the server ends before it has answered (a dropped
// connection, or a server that closes streams on purpose and has the
// client poll, SEP-1699) is resumed, as the 2025-11-25 transport says: the
// relay waits the stream's retry interval, then GETs the endpoint with
// Last-Event-ID, and the server sends what followed that event. Only a
// stream that gave an event id can be resumed. A 2026-07-28 request's
// stream is never resumed: sessionless, its closing is its cancellation.
const (
	// resumeTries bounds the reconnections in a row that bring nothing: no
	// event, no new id, or no stream at all.
	resumeTries = 3
	// defaultRetry is the wait before the first reconnection when the
	// stream gave no retry field (the TypeScript SDK's), doubled for each
	// one in a row that brings nothing.
	defaultRetry = time.Second
	// maxRetry bounds the wait a retry field asks for: a server's word
	// must not hold a request, or the relay's shutdown, for days.
	maxRetry = time.Minute
)

// wait is how long to wait before reconnecting, after idle reconnections
// in a row that brought nothing.
func (cur *sseCursor) wait(idle int) time.Duration {
	if cur.retry > 0 {
		return min(cur.retry, maxRetry)
	}
	return min(defaultRetry<<min(idle, 6), maxRetry)
}

// readStream reads a POST's event stream, resuming it (resumable: the
// request is not a 2026-07-28 one) while requests of o wait for an answer.
// It closes body; the caller answers whatever is left unanswered.
func (c *httpConn) readStream(ctx context.Context, body io.ReadCloser, o *outstanding, resumable bool) {
	var cur sseCursor
	idle := 0
	for {
		before, delivered := cur.lastID, false
		if body != nil {
			readSSE(body, c.rw.MaxMessage(), &cur, func(data []byte, over *rawjson.Head) {
				delivered = true
				c.deliver(data, over, o)
			})
			body.Close()
		}
		if !resumable || cur.lastID == "" || !o.waiting() {
			return
		}
		if delivered || cur.lastID != before {
			idle = 0
		} else if idle++; idle >= resumeTries {
			c.logf("the MCP server's event stream ended %d times in a row with nothing new after event %q; giving up on it", idle, cur.lastID)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(cur.wait(idle)):
		}
		var final bool
		body, final = c.resume(ctx, cur.lastID)
		if final {
			return
		}
	}
}

// resume GETs the stream that follows event lastID. body is nil when
// there is none this time; final says there will be none (the server does
// not offer it, or the relay is stopping).
func (c *httpConn) resume(ctx context.Context, lastID string) (body io.ReadCloser, final bool) {
	req, err := c.newRequest(ctx, http.MethodGet, nil, nil)
	if err != nil {
		return nil, true
	}
	req.Header.Set("Last-Event-ID", lastID)
	resp, err := c.do(req)
	if err != nil {
		return nil, ctx.Err() != nil
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		resp.Body.Close()
		c.logf("%s", fmt.Sprintf("the MCP server did not resume its event stream after event %q (HTTP %d, %s)", lastID, resp.StatusCode, ct))
		// A 405 or a 4xx says it never will; a 5xx may pass.
		return nil, resp.StatusCode < 500
	}
	return resp.Body, false
}
