package proxy

import (
	"maps"
	"unsafe"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// This file is what the proxy does with a message from the server: the
// response to a tracked tools/list has its schemas rewritten (tools.go), the
// result of a tracked tools/call gives its values (capture), and every
// message has the values held shown as stand-ins (redact.go).

func (r *Rewriter) serverMessage(msg []byte) step {
	var out []byte
	edited := false
	p := r.answers(msg)
	k := p.kind
	switch k {
	case kindList:
		r.learnSchemas(msg)
		out, edited = r.rewriteList(msg)
		from := msg
		if edited {
			from = out
		}
		if added, ok := r.addHumanTools(from); ok {
			out, edited = added, true
		}
	case kindCall:
		r.capture(msg, p)
	}
	if !edited {
		out = msg
	}
	// An answer to a tracked request was validated; its rewrite keeps it
	// valid.
	if redacted, ok := r.redact(out, k != 0); ok {
		out, edited = redacted, true
	}
	if !edited {
		return step{}
	}
	return step{out: out}
}

// answers returns what msg answers when it is the (valid) response to a
// tracked request, which is then no longer pending; else the zero pending.
func (r *Rewriter) answers(msg []byte) pending {
	id, ok := idKey(gjson.GetBytes(msg, "id"))
	if !ok {
		return pending{}
	}
	r.mu.Lock()
	p, ok := r.pending[id]
	r.mu.Unlock()
	if !ok {
		return pending{}
	}
	// A server-to-client request may reuse an id of ours: ids are per
	// direction. Only a response (no method) answers our request.
	if gjson.GetBytes(msg, "method").Exists() {
		return pending{}
	}
	r.mu.Lock()
	delete(r.pending, id)
	r.mu.Unlock()
	if !gjson.ValidBytes(msg) {
		return pending{}
	}
	return p
}

// capture takes the values a tools/call result of tool mints, for each
// handle (carry.Take), as hook mode does. A result that carries different
// handle-shaped values gives nothing (and one log line): never a guess. A
// start tool that returns no value retires the one held before.
func (r *Rewriter) capture(msg []byte, p pending) {
	// No copy of a megabyte result: msg is not modified while res is used.
	res := gjson.Get(unsafe.String(unsafe.SliceData(msg), len(msg)), "result")
	if !res.IsObject() {
		return
	}
	found := carry.ReadResultFor(res, r.specs, p.tool)
	taken, _ := carry.Take(held{r}, r.specs, p.tool, found, p.carried)
	for _, note := range taken.Notes {
		r.logf("%.64s: %s", p.tool, note)
	}
}

// held is the connection's carry.Holder: what it holds in memory, written
// through to the store with --persist.
type held struct{ r *Rewriter }

// Update runs fn on a copy of the connection's holding, under its lock; a
// changed copy becomes the holding (and the stand-ins' secrets), then is
// persisted. It never fails: --persist's errors are logged.
func (hd held) Update(fn func(token.Holding) bool) error {
	r := hd.r
	r.mu.Lock()
	next := token.Holding{}
	maps.Copy(next, r.holding)
	changed := fn(next)
	if changed {
		r.setHolding(next)
	}
	r.mu.Unlock()
	if changed && r.cfg.Persist {
		r.persist(next)
	}
	return nil
}

// persist writes the connection's holding to the store (--persist), so a
// restarted client resumes.
func (r *Rewriter) persist(h token.Holding) {
	err := r.cfg.Store.Update(r.cfg.Server, r.cfg.Session, "proxy", false, func(stored token.Holding) (token.Holding, bool) {
		for _, s := range r.specs {
			if l, ok := h[s.Name]; ok {
				stored[s.Name] = l
			}
		}
		return stored, true
	})
	if err != nil {
		r.logf("--persist: %v", err)
	}
}
