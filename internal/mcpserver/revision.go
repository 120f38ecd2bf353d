package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
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
	s.write(message{ID: json.RawMessage(id), Error: &rpcError{Code: codeUnsupportedVersion,
		Message: fmt.Sprintf("unsupported protocol version %q", v.Str),
		Data:    versionsData{Supported: Versions, Requested: v.Str}}})
	return era{}, false
}

// versionsData is an unsupported revision's error data.
type versionsData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// modern holds what a result adds at 2026-07-28: every result says what it
// is (resultType) and the server's identity (_meta), a list how long it may
// be cached and by whom. Each result type embeds it; at a legacy revision
// it stays empty, and out of the result.
type modern struct {
	TTLMs      *int           `json:"ttlMs,omitempty"`
	CacheScope string         `json:"cacheScope,omitempty"`
	ResultType string         `json:"resultType,omitempty"`
	Meta       map[string]any `json:"_meta,omitempty"`
}

func (m *modern) modernPart() *modern { return m }

// result is any of this server's results.
type result interface{ modernPart() *modern }

// reply writes result as the answer to id: at 2026-07-28 with resultType
// and the server's identity in _meta, which that revision asks of every
// result.
func (s *Server) reply(id string, e era, res result) {
	if e.modern {
		m := res.modernPart()
		m.ResultType = "complete"
		if m.Meta == nil {
			m.Meta = map[string]any{}
		}
		m.Meta[metaServerInfo] = serverInfo{s.Name, s.Version}
	}
	s.replyResult(id, res)
}

// cacheable makes m a list result at 2026-07-28, which must say how long
// it may be cached and by whom: not at all (a stdio server answers a list
// at once), and only by this user's client (a child's human tools are its
// own).
func (m *modern) cacheable() {
	zero := 0
	m.TTLMs, m.CacheScope = &zero, "private"
}

// capabilities is what the server offers: tools, whose list never changes
// while it runs.
const capabilities = `{"tools":{"listChanged":false}}`

// discoverResult is server/discover's result.
type discoverResult struct {
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      json.RawMessage `json:"capabilities"`
	Instructions      string          `json:"instructions,omitempty"`
	modern
}

// discover answers server/discover: the revisions, capabilities and
// instructions, in place of initialize.
func (s *Server) discover(id string, e era) {
	if !e.modern {
		s.replyError(id, codeInvalidParams, "invalid params: server/discover needs _meta "+metaVersion+" (2026-07-28 or later)")
		return
	}
	res := &discoverResult{SupportedVersions: Versions, Capabilities: json.RawMessage(capabilities), Instructions: s.Instructions}
	res.cacheable()
	s.reply(id, e, res)
}

// listen answers subscriptions/listen. No list of this server changes, so
// no subscription is agreed: the acknowledgement says so, and the stream
// ends at once with its result.
func (s *Server) listen(id string, e era) {
	s.write(message{Method: "notifications/subscriptions/acknowledged", Params: map[string]any{
		"notifications": struct{}{}, "_meta": map[string]any{metaSubscription: json.RawMessage(id)}}})
	s.reply(id, e, &pingResult{modern{Meta: map[string]any{metaSubscription: json.RawMessage(id)}}})
}
