package install

import (
	"path/filepath"
	"time"
)

// cursor edits Cursor's hooks.json (documented only, never run against a
// real Cursor): {"version":1,"hooks":{"preToolUse":[{"command"}],
// "postToolUse":[{"command"}]}}. There is no matcher: the binary itself
// leaves other servers' tools alone.
type cursor struct{}

// cursorSyntax: whether Cursor reads comments in hooks.json is not known
// (no Cursor to try it with).
var cursorSyntax = syntax{client: "Cursor", unverified: true}

// cursorApproveMatch is approve's default --match for Cursor: MCP tools.
const cursorApproveMatch = "^MCP:"

const cursorNewDoc = "{\n  \"version\": 1\n}\n"

func (cursor) path(env Env, scope Scope) string {
	if scope == Project {
		return filepath.Join(env.Project, ".cursor", "hooks.json")
	}
	return filepath.Join(env.Home, ".cursor", "hooks.json")
}

func (cursor) entries(o Options) []hookEntry {
	opts := o.Hook.args()
	capture := opts
	if o.Hook.Redact {
		capture = append(append([]string{}, opts...), "--redact")
	}
	// No matcher, and Cursor's MCP tool names ("MCP:<tool>") need not name
	// the server: approve asks for every MCP tool unless --approve-match
	// says otherwise. Cursor documents the hook timeout in seconds.
	return withApprove([]hookEntry{
		{event: "preToolUse", sub: "inject", command: commandFor(o, "cursor", "inject", opts)},
		{event: "postToolUse", sub: "capture", command: commandFor(o, "cursor", "capture", capture)},
	}, o, "cursor", cursorApproveMatch, time.Second)
}

func (c cursor) merge(path string, doc []byte, o Options) ([]byte, []string, error) {
	e, err := prepare(path, doc, cursorNewDoc, cursorSyntax)
	if err != nil {
		return nil, nil, err
	}
	out, err := mergeHooks(path, e, c.entries(o), o.Server, true)
	return out, []string{"Cursor support follows Cursor's documentation and has not been run against a real Cursor"}, err
}

func (cursor) unmerge(path string, doc []byte, server string, created bool) ([]byte, error) {
	return jsonUnmerge(path, doc, server, cursorNewDoc, created, cursorSyntax)
}
