// Package verify holds the end-to-end assertions: what the token server's
// log must show after a scripted conversation, that no token reached the
// model or another server, and that state files are private.
package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/interceptor-dev/interceptor/e2e/fakemodel"
	"github.com/interceptor-dev/interceptor/e2e/internal/wfserver"
)

// Tokens returns every token the workflow servers issued, in log order.
func Tokens(recs []wfserver.Record) []string {
	var out []string
	for _, r := range recs {
		if r.IssuedToken != "" {
			out = append(out, r.IssuedToken)
		}
	}
	return out
}

func short(tok string) string {
	if len(tok) <= 16 {
		return tok
	}
	return tok[:8] + "…" + tok[len(tok)-8:]
}

// Describe renders a record as one readable line (tokens shortened).
func Describe(r wfserver.Record) string {
	if r.Event == "start" {
		return fmt.Sprintf("%s instance %s started (pid %d, structured=%v)", r.Server, r.Instance, r.PID, r.Structured)
	}
	args := map[string]any{}
	for k, v := range r.Args {
		if s, ok := v.(string); ok && len(s) > 40 {
			v = short(s)
		}
		args[k] = v
	}
	b, _ := json.Marshal(args)
	s := fmt.Sprintf("%s[%s].%s(%s) -> %s", r.Server, r.Instance, r.Tool, b, r.Verdict)
	if r.Reason != "" {
		s += " (" + r.Reason + ")"
	}
	if r.ReceivedSID != "" {
		s += fmt.Sprintf(" received %s#%d", r.ReceivedSID, r.ReceivedSeq)
	}
	if r.IssuedSID != "" {
		s += fmt.Sprintf(" issued %s#%d", r.IssuedSID, r.IssuedSeq)
	}
	return s
}

// Sessions checks the server log of a run of n concurrent conversations:
// each conversation started exactly one session, each session received
// next_step for every step in order, every one accepted with the latest
// token of its own session, and the other server's tool never saw a token.
// It returns one line per problem, naming the call and its verdict.
func Sessions(recs []wfserver.Record, n int) []string {
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }

	latest := map[string]string{}    // sid -> latest issued token
	owner := map[string]string{}     // sid -> instance that issued it
	stepsOf := map[string][]string{} // sid -> accepted steps, in order
	var sids []string
	echoes := 0
	issued := Tokens(recs)
	for _, r := range recs {
		if r.Event != "call" {
			continue
		}
		switch {
		case r.Server == wfserver.RoleWF && r.Tool == "start_session":
			if r.Verdict != wfserver.VerdictOK {
				bad("start_session on instance %s: verdict %s: %s", r.Instance, r.Verdict, r.Reason)
				continue
			}
			if _, seen := latest[r.IssuedSID]; !seen {
				sids = append(sids, r.IssuedSID)
			}
			latest[r.IssuedSID], owner[r.IssuedSID] = r.IssuedToken, r.Instance
		case r.Server == wfserver.RoleWF && r.Tool == "next_step":
			step, _ := r.Args["step"].(string)
			if r.Verdict != wfserver.VerdictOK {
				bad("next_step(step=%q) on instance %s: verdict %s: %s%s", step, r.Instance, r.Verdict, r.Reason, hint(r.Verdict))
				continue
			}
			sid := r.ReceivedSID
			if owner[sid] != r.Instance {
				bad("next_step(step=%q) on instance %s accepted a token of session %s issued by instance %q", step, r.Instance, sid, owner[sid])
			}
			if r.ReceivedToken != latest[sid] {
				bad("next_step(step=%q) for session %s did not receive the latest token issued for it", step, sid)
			}
			latest[sid] = r.IssuedToken
			stepsOf[sid] = append(stepsOf[sid], step)
		case r.Server == wfserver.RoleOther:
			echoes++
			probs = append(probs, otherServer(r, issued)...)
		}
	}
	if len(sids) != n {
		bad("want %d workflow sessions started, the server log shows %d", n, len(sids))
	}
	want := strings.Join(fakemodel.Steps, ",")
	for _, sid := range sids {
		if got := strings.Join(stepsOf[sid], ","); got != want {
			bad("session %s: accepted steps [%s], want [%s]", sid, got, want)
		}
	}
	if echoes != n {
		bad("want %d calls of the other server's echo tool, the log shows %d (did the client run the scripted turns?)", n, echoes)
	}
	return probs
}

// hint says what a verdict of a call that should have carried the token
// means for the hooks or the proxy.
func hint(verdict string) string {
	switch verdict {
	case wfserver.VerdictMissing:
		return ": no token was injected"
	case wfserver.VerdictStale:
		return ": an old token of this session was injected (capture missed the newest?)"
	case wfserver.VerdictForeign:
		return ": another session's token was injected (cross-talk)"
	case wfserver.VerdictMalformed:
		return ": what reached the server is not a token (a stand-in not resolved, or a word captured as the token?)"
	case wfserver.VerdictForged:
		return ": what reached the server is not a token this server signed (a stranger's token captured?)"
	}
	return ""
}

// otherServer checks a call of the other server's tool: it must never see
// a session_token argument or any workflow token.
func otherServer(r wfserver.Record, issued []string) []string {
	var probs []string
	if r.HasToken {
		probs = append(probs, fmt.Sprintf("%s.%s received a session_token argument (%s): a token went to another server's tool", r.Server, r.Tool, short(r.ReceivedToken)))
	}
	b, _ := json.Marshal(r.Args)
	for _, tok := range issued {
		if containsToken(b, tok) {
			probs = append(probs, fmt.Sprintf("%s.%s arguments contain a workflow token: %s", r.Server, r.Tool, short(tok)))
			break
		}
	}
	return probs
}

// Parts returns the strings whose presence means tok leaked: the whole token
// and each half (the signed payload, the hex signature).
func Parts(tok string) []string {
	p, sig, _ := strings.Cut(tok, ".")
	return []string{tok, p, sig}
}

func containsToken(b []byte, tok string) bool {
	for _, part := range Parts(tok) {
		if part != "" && bytes.Contains(b, []byte(part)) {
			return true
		}
	}
	return false
}

// Leak is a token (or a half of one) found in a model request.
type Leak struct {
	Token string
	Paths []string // JSON paths of the strings holding it; empty if only the raw body does
}

// FindLeaks reports which of tokens occur in body, with the JSON paths of
// the string values that hold them (e.g. messages[2].content[0].input.session_token).
func FindLeaks(body []byte, tokens []string) []Leak {
	var out []Leak
	var doc any
	parsed := json.Unmarshal(body, &doc) == nil
	for _, tok := range tokens {
		if !containsToken(body, tok) {
			continue
		}
		l := Leak{Token: tok}
		if parsed {
			walk(doc, "", func(path, s string) {
				if containsToken([]byte(s), tok) {
					l.Paths = append(l.Paths, path)
				}
			})
		}
		out = append(out, l)
	}
	return out
}

func walk(v any, path string, visit func(path, s string)) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			visit(p+" (key)", k)
			walk(x[k], p, visit)
		}
	case []any:
		for i, e := range x {
			walk(e, path+"["+strconv.Itoa(i)+"]", visit)
		}
	case string:
		visit(path, x)
		// Many APIs carry JSON inside strings (tool-call arguments, stringified results).
		var inner any
		if strings.ContainsAny(x, "{[") && json.Unmarshal([]byte(x), &inner) == nil {
			walk(inner, path+"<json>", func(p, s string) { visit(p, s) })
		}
	}
}

// StateFiles checks that dir holds at least one file and that every file is
// mode 0600. It returns the files found and one line per problem.
func StateFiles(dir string) ([]string, []string) {
	var files, probs []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir():
			if info.Mode().Perm()&0o022 != 0 {
				probs = append(probs, fmt.Sprintf("state dir %s is group/world writable (%04o)", rel, info.Mode().Perm()))
			}
		case info.Mode().IsRegular():
			files = append(files, fmt.Sprintf("%s %04o", rel, info.Mode().Perm()))
			if info.Mode().Perm() != 0o600 {
				probs = append(probs, fmt.Sprintf("state file %s has mode %04o, want 0600", rel, info.Mode().Perm()))
			}
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		probs = append(probs, "walking state dir: "+err.Error())
	}
	if len(files) == 0 {
		probs = append(probs, fmt.Sprintf("no state file under %s: capture never stored a token there (did the hook get INTERCEPTOR_STATE_DIR?)", dir))
	}
	return files, probs
}

// ToolSchemas returns the input schema of every tool a model request offers,
// keyed by the tool's name as the model sees it (a Responses API namespace
// tool as "<namespace>__<name>", e.g. mcp__wf__next_step). It reads the
// tool definitions of the Anthropic Messages API (tools[].input_schema), the
// OpenAI Chat Completions API (tools[].function.parameters), the Responses
// API (tools[].parameters, namespaces' tools[].tools[]) and the Gemini API
// (tools[].functionDeclarations[].parameters or .parametersJsonSchema).
// Descriptions are not part of the schema; the conversation is not looked at.
func ToolSchemas(body []byte) map[string]any {
	var doc struct {
		Tools []map[string]any `json:"tools"`
	}
	out := map[string]any{}
	if json.Unmarshal(body, &doc) != nil {
		return out
	}
	var add func(prefix string, t map[string]any)
	add = func(prefix string, t map[string]any) {
		if fn, ok := t["function"].(map[string]any); ok { // chat
			add(prefix, fn)
			return
		}
		if decls, ok := t["functionDeclarations"].([]any); ok { // gemini
			for _, d := range decls {
				if m, ok := d.(map[string]any); ok {
					add(prefix, m)
				}
			}
			return
		}
		name, _ := t["name"].(string)
		if sub, ok := t["tools"].([]any); ok && name != "" { // responses namespace
			for _, s := range sub {
				if m, ok := s.(map[string]any); ok {
					add(prefix+name+"__", m)
				}
			}
			return
		}
		if name == "" {
			return
		}
		for _, k := range []string{"input_schema", "parameters", "parametersJsonSchema", "inputSchema"} {
			if s, ok := t[k]; ok {
				out[prefix+name] = s
				return
			}
		}
		out[prefix+name] = nil // a tool without a schema
	}
	for _, t := range doc.Tools {
		add("", t)
	}
	return out
}

// SchemaMentions returns the places where schema declares arg: as a
// property name (at any depth) or in a "required" list. Descriptions that
// merely mention it do not count.
func SchemaMentions(schema any, arg string) []string {
	var out []string
	var rec func(v any, path string)
	rec = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				p := path + "." + k
				if props, ok := x[k].(map[string]any); ok && k == "properties" {
					if _, has := props[arg]; has {
						out = append(out, p+"."+arg)
					}
				}
				if req, ok := x[k].([]any); ok && k == "required" {
					for i, e := range req {
						if e == arg {
							out = append(out, fmt.Sprintf("%s[%d]", p, i))
						}
					}
				}
				rec(x[k], p)
			}
		case []any:
			for i, e := range x {
				rec(e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	rec(schema, "")
	return out
}
