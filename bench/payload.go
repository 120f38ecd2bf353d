//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// fixture is one recorded client payload from testdata/fixtures.
type fixture struct {
	file    string // e.g. claude-code.PreToolUse.text.json
	label   string // e.g. claude-code pre (text)
	client  string
	pre     bool
	session string
	data    []byte
	// serverTool: the event is about a tool of server "wf".
	serverTool bool
	// skipped: a tool inject leaves alone by default.
	skipped bool
	// token is the token internal/token chooses from a post-tool result.
	token string
}

// storedToken is the token capture must store from the post-tool fixtures
// whose token we know by heart. Fixtures not listed show none where the
// client lets a hook look (Claude Code and Gemini never pass _meta on), or
// were added later: for those, wantToken asks internal/token what the
// result carries, and the bench checks the binary stored exactly that.
var storedToken = map[string]string{
	fixtureName(claude, "PostToolUse.structured.json"):                 benchFixtureToken,
	fixtureName(claude, "PostToolUse.text.json"):                       "",
	fixtureName(&hooks.CodexClient, "PostToolUse.structured.json"):     benchFixtureToken,
	fixtureName(&hooks.CodexClient, "PostToolUse.text.json"):           benchFixtureToken, // in _meta, which Codex passes on
	fixtureName(&hooks.GeminiClient, "AfterTool.text.json"):            "",
	fixtureName(&hooks.OpenCodeClient, "tool.execute.after.text.json"): benchFixtureToken,
	fixtureName(&hooks.ClineClient, "PostToolUse.json"):                clineFixtureToken,   // in _meta, which Cline passes on
	fixtureName(&hooks.CopilotClient, "postToolUse.json"):              copilotFixtureToken, // in the text Copilot passes on
}

// claude is the client whose recorded events most phases run on (its
// PreToolUse and PostToolUse fixtures), and for whom approve answers.
var claude = &hooks.ClaudeCodeClient

// fixtureName is the file of client c's recorded event in
// testdata/fixtures: c's name, then the event and its shape.
func fixtureName(c *hooks.Client, event string) string { return c.Name + "." + event }

// wantToken is what capture --server wf must store from a post-tool fixture.
func wantToken(f fixture) string {
	if tok, ok := storedToken[f.file]; ok {
		return tok
	}
	return f.token
}

// The first fixtures were recorded against a test server whose tokens were
// "tok-1"; real tokens (and the default --min-token-length) are longer, so
// the bench gives those fixtures a real token's shape. The later fixtures
// carry real-shaped tokens of their own.
const (
	benchFixtureToken   = "eyJzaWQiOiJiZW5jaCIsInNlcSI6MX0.5d41402abc4b2a76b9719d911017c592ae1d2f3c"
	clineFixtureToken   = "eyJzaWQiOiJzXzUxZGJkZmNkOTM4Njk5ZTAiLCJzZXEiOjEsInRzIjoxNzk1MzQ1NTYwLCJ3ZiI6InJlbGVhc2UtcmV2aWV3IiwiYWN0Ijoic3RhcnRfc2Vzc2lvbiIsImluc3QiOiJhYTMwYTc2MSIsInNjb3BlIjpbIndvcmtmbG93OnJlYWQiLCJ3b3JrZmxvdzp3cml0ZSIsIndvcmtmbG93OmFkdmFuY2UiXSwibm9uY2UiOiIzY2Q5OWZjYjVjNDg3NjNkMTRjMWYyZWQ3Nzc1ZTg4NiIsImF1ZCI6Im1jcDovL2UyZS13b3JrZmxvdy1zZXJ2ZXIvcmVsZWFzZS1yZXZpZXcifQ.fab4c5067dd0dee1d70e12a0be2a6aee6b515e38a224dc44d0c466a74238f0be"
	copilotFixtureToken = "eyJzaWQiOiJzXzc0YjQyZDk3NDcyM2UzNjMiLCJzZXEiOjEsInRzIjoxNzk1MzQ1NDIzLCJ3ZiI6InJlbGVhc2UtcmV2aWV3IiwiYWN0Ijoic3RhcnRfc2Vzc2lvbiIsImluc3QiOiJhZDg1N2E1MCIsInNjb3BlIjpbIndvcmtmbG93OnJlYWQiLCJ3b3JrZmxvdzp3cml0ZSIsIndvcmtmbG93OmFkdmFuY2UiXSwibm9uY2UiOiI4YWVjYjdkMjdiMmRhZDIzMGI3NjE3YWEyZGY1M2U2NSIsImF1ZCI6Im1jcDovL2UyZS13b3JrZmxvdy1zZXJ2ZXIvcmVsZWFzZS1yZXZpZXcifQ.c1413ce1171cb638a16dd96defc2a694d6b90b8fce0c075f6672766242f67843"
)

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
		data = bytes.ReplaceAll(data, []byte(`tok-1`), []byte(benchFixtureToken))
		// The client's format is known in one place: internal/hooks.
		ev, err := hooks.Parse(bytes.Clone(data), nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", base, err)
		}
		if ev.Session == "" {
			return nil, fmt.Errorf("%s: no session id", base)
		}
		tool, wfTool := ev.Client.Tool(ev, "wf")
		f := fixture{file: base, client: ev.Client.Name(), data: data, session: ev.Session, pre: ev.Phase == hooks.PhasePreTool, serverTool: wfTool,
			skipped: tool == "start_session"} // inject's default --skip-tool
		if wfTool && !f.pre {
			f.token, _, _ = token.Choose(ev.Result(), token.Rules{Key: "session_token"})
		}
		phase := "post"
		if f.pre {
			phase = "pre"
		}
		kind := strings.TrimSuffix(base, ".json")
		kind = kind[strings.LastIndexByte(kind, '.')+1:]
		f.label = fmt.Sprintf("%s %s (%s)", f.client, phase, kind)
		fx = append(fx, f)
	}
	return fx, nil
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
