//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// fixture is one recorded client payload from testdata/fixtures.
type fixture struct {
	file    string // e.g. claude-code.PreToolUse.text.json
	label   string // e.g. claude-code pre (text)
	client  string
	pre     bool
	session string
	data    []byte
}

// storedToken is the token capture must store from each post-tool fixture
// that carries one where the client lets a hook see it. Fixtures not listed
// show none (Claude Code and Gemini never pass _meta on, and their text only
// says received_session_token=…, which is not the key), so capture stores
// nothing: the case of a call whose result has no visible token.
var storedToken = map[string]string{
	"claude-code.PostToolUse.structured.json": "tok-1",
	"codex.PostToolUse.structured.json":       "tok-1",
	"codex.PostToolUse.text.json":             "tok-1", // in _meta, which Codex passes on
	"opencode.tool.execute.after.text.json":   "tok-1",
}

var preEvents = []string{"PreToolUse", "BeforeTool", "tool.execute.before"}

func loadFixtures(dir string) ([]fixture, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no fixtures in %s", dir)
	}
	var fx []fixture
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		base := filepath.Base(p)
		parts := strings.Split(strings.TrimSuffix(base, ".json"), ".")
		f := fixture{file: base, client: parts[0], data: data}
		event := strings.Join(parts[1:len(parts)-1], ".")
		f.pre = slices.Contains(preEvents, event)
		phase := "post"
		if f.pre {
			phase = "pre"
		}
		f.label = fmt.Sprintf("%s %s (%s)", f.client, phase, parts[len(parts)-1])
		if f.session, err = sessionOf(data); err != nil {
			return nil, fmt.Errorf("%s: %v", base, err)
		}
		fx = append(fx, f)
	}
	return fx, nil
}

// sessionOf reads the session id the way each client sends it.
func sessionOf(data []byte) (string, error) {
	var ev struct {
		SessionID      string `json:"session_id"`
		ConversationID string `json:"conversation_id"`
		Input          struct {
			SessionID string `json:"sessionID"`
		} `json:"input"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return "", err
	}
	for _, s := range []string{ev.SessionID, ev.ConversationID, ev.Input.SessionID} {
		if s != "" {
			return s, nil
		}
	}
	return "", fmt.Errorf("no session id")
}

func findFixture(fx []fixture, file string) (fixture, error) {
	for _, f := range fx {
		if f.file == file {
			return f, nil
		}
	}
	return fixture{}, fmt.Errorf("fixture %s not found", file)
}

// padLine is one line of the filler text, already JSON-encoded (\n escaped).
// It never mentions the token key, so the hook has to read all of it.
const padLine = `line %06d: func handle(w http.ResponseWriter, r *http.Request) { /* quick brown fox, lazy dog */ }\n`

// filler returns n bytes of JSON string content (without quotes) made of
// padLine lines, cut so that no escape is split.
func filler(n int) []byte {
	var b bytes.Buffer
	b.Grow(n + len(padLine) + 16)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, padLine, i)
	}
	out := b.Bytes()[:n]
	if bytes.HasSuffix(out, []byte(`\`)) {
		out[len(out)-1] = ' '
	}
	return out
}

// bigToolInput returns the pre-tool fixture with a "content" argument added
// at the front of tool_input, padded so the whole payload is size bytes: a
// tool call that writes a big file. The rest of the payload keeps its bytes
// and key order (Claude Code sends mcp_server after tool_input, so a reader
// has to skip over the big argument to find it).
func bigToolInput(pre fixture, size int) ([]byte, error) {
	return insertAfter(pre.data, `"tool_input": {`, `"content": "`, `", `, size)
}

// bigToolResult returns the post-tool fixture with a text block added at the
// front of tool_response, padded so the whole payload is size bytes, whose
// last line carries the token: a tool that returns a big file and its next
// token, the worst case for finding the token (all the text is scanned).
func bigToolResult(post fixture, size int, tok string) ([]byte, error) {
	tail := `\nsession_token: ` + tok + `\n"}, `
	return insertAfter(post.data, `"tool_response": [`, `{"type": "text", "text": "`, tail, size)
}

func insertAfter(data []byte, anchor, head, tail string, size int) ([]byte, error) {
	i := bytes.Index(data, []byte(anchor))
	if i < 0 {
		return nil, fmt.Errorf("payload has no %s", anchor)
	}
	i += len(anchor)
	pad := size - len(data) - len(head) - len(tail)
	if pad < 0 {
		pad = 0
	}
	var out bytes.Buffer
	out.Grow(size)
	out.Write(data[:i])
	out.WriteString(head)
	out.Write(filler(pad))
	out.WriteString(tail)
	out.Write(data[i:])
	if !json.Valid(out.Bytes()) {
		return nil, fmt.Errorf("padded payload is not valid JSON")
	}
	return out.Bytes(), nil
}

// withSession returns data with every occurrence of one session id replaced.
func withSession(data []byte, from, to string) []byte {
	return bytes.ReplaceAll(data, []byte(from), []byte(to))
}

func sizeLabel(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

func parseSize(s string) (int, error) {
	s = strings.TrimSpace(strings.ToUpper(s))
	mult := 1
	switch {
	case strings.HasSuffix(s, "K") || strings.HasSuffix(s, "KIB"):
		mult, s = 1<<10, strings.TrimSuffix(strings.TrimSuffix(s, "IB"), "K")
	case strings.HasSuffix(s, "M") || strings.HasSuffix(s, "MIB"):
		mult, s = 1<<20, strings.TrimSuffix(strings.TrimSuffix(s, "IB"), "M")
	}
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil || n <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
