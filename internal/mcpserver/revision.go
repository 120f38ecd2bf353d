package mcpserver

import (
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Revision 2026-07-28 (SEP-2575) has no initialize: each request names its
// revision and the client's capabilities in params._meta, server/discover
// says what the server speaks, and every result says what it is
// (resultType). The server serves both eras at once: a request that names
// a 2026-07-28 revision is answered as one, anything else as the legacy
// revision its initialize chose.

// ModernVersions are the revisions of per-request _meta this server
// speaks, newest first; the rest of Versions need initialize.
var ModernVersions = []string{"2026-07-28"}

// Keys of _meta.
const (
	metaVersion      = "io.modelcontextprotocol/protocolVersion"
	metaCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo   = "io.modelcontextprotocol/serverInfo"
	metaSubscription = "io.modelcontextprotocol/subscriptionId"
)

// codeUnsupportedVersion is UnsupportedProtocolVersionError (2026-07-28).
const codeUnsupportedVersion = -32022

// era is the revision a request is served at.
type era struct {
	modern  bool
	version string // with modern: the request's revision
}

// eraOf reads the revision a request (params) names. A request without
// one, or naming a legacy revision, is legacy. One naming a revision this
// server does not speak is answered -32022 with the supported and the
// requested revisions, one without the client capabilities the revision
// requires -32602; ok is false then (the reply is written).
func (s *Server) eraOf(id string, params gjson.Result) (e era, ok bool) {
	meta := params.Get("_meta")
	v := meta.Get(gjson.Escape(metaVersion))
	switch {
	case !v.Exists():
		return era{}, true
	case v.Type != gjson.String:
		s.replyError(id, codeInvalidParams, "invalid params: _meta "+metaVersion+" is not a string")
		return era{}, false
	case slices.Contains(ModernVersions, v.Str):
		if !meta.Get(gjson.Escape(metaCapabilities)).IsObject() {
			s.replyError(id, codeInvalidParams, "invalid params: _meta "+metaCapabilities+" is missing (required with "+metaVersion+")")
			return era{}, false
		}
		return era{modern: true, version: v.Str}, true
	case slices.Contains(Versions, v.Str):
		return era{}, true // a legacy revision: initialize chose it
	}
	data, _ := sjson.Set(`{}`, "supported", Versions)
	data, _ = sjson.Set(data, "requested", v.Str)
	e2, _ := sjson.Set(`{}`, "code", codeUnsupportedVersion)
	e2, _ = sjson.Set(e2, "message", fmt.Sprintf("unsupported protocol version %q", v.Str))
	e2, _ = sjson.SetRaw(e2, "data", data)
	s.write(`{"jsonrpc":"2.0","id":` + id + `,"error":` + e2 + `}`)
	return era{}, false
}

// reply writes result (a JSON object) as the answer to id: at 2026-07-28
// with resultType and the server's identity in _meta, which that revision
// asks of every result.
func (s *Server) reply(id string, e era, result string) {
	if e.modern {
		result = s.complete(result)
	}
	s.replyResult(id, result)
}

// complete is result with resultType "complete" and _meta's serverInfo.
func (s *Server) complete(result string) string {
	result, _ = sjson.Set(result, "resultType", "complete")
	info, _ := sjson.Set(`{}`, "name", s.Name)
	info, _ = sjson.Set(info, "version", s.Version)
	result, _ = sjson.SetRaw(result, "_meta."+gjson.Escape(metaServerInfo), info)
	return result
}

// cacheable is a list result at 2026-07-28, which must say how long it may
// be cached and by whom: not at all (a stdio server answers a list at
// once), and only by this user's client (a child's human tools are its
// own).
func cacheable(result string) string {
	result, _ = sjson.Set(result, "ttlMs", 0)
	result, _ = sjson.Set(result, "cacheScope", "private")
	return result
}

// capabilities is what the server offers: tools, whose list never changes
// while it runs.
const capabilities = `{"tools":{"listChanged":false}}`

// discover answers server/discover: the revisions, capabilities and
// instructions, in place of initialize.
func (s *Server) discover(id string, e era) {
	if !e.modern {
		s.replyError(id, codeInvalidParams, "invalid params: server/discover needs _meta "+metaVersion+" (2026-07-28 or later)")
		return
	}
	res := `{}`
	res, _ = sjson.Set(res, "supportedVersions", Versions)
	res, _ = sjson.SetRaw(res, "capabilities", capabilities)
	if s.Instructions != "" {
		res, _ = sjson.Set(res, "instructions", s.Instructions)
	}
	s.reply(id, e, cacheable(res))
}

// listen answers subscriptions/listen. No list of this server changes, so
// no subscription is agreed: the acknowledgement says so, and the stream
// ends at once with its result.
func (s *Server) listen(id string, e era) {
	ack := `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{}}}`
	ack, _ = sjson.SetRaw(ack, "params._meta."+gjson.Escape(metaSubscription), id)
	s.write(ack)
	res, _ := sjson.SetRaw(`{}`, "_meta."+gjson.Escape(metaSubscription), id)
	s.reply(id, e, res)
}
