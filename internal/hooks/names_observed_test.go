package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// observedName is one row of testdata/names/observed.json, written by the
// e2e test TestToolNames from the real clients (see the README there).
type observedName struct {
	Client          string   `json:"client"`
	ClientVersion   string   `json:"client_version"`
	Server          string   `json:"server"`
	Tool            string   `json:"tool"`
	HookToolName    string   `json:"hook_tool_name"`
	HookServerName  string   `json:"hook_server_name"`
	HookMCPToolName string   `json:"hook_mcp_tool_name"`
	ModelToolName   string   `json:"model_tool_name"`
	Notes           string   `json:"notes"`
	Configured      []string `json:"configured"`
}

func readObservedNames(t *testing.T) []observedName {
	t.Helper()
	b, err := os.ReadFile("testdata/names/observed.json")
	if err != nil {
		t.Fatal(err)
	}
	var obs []observedName
	if err := json.Unmarshal(b, &obs); err != nil {
		t.Fatalf("testdata/names/observed.json: %v", err)
	}
	return obs
}

// observedPayload is the pre-tool hook payload the row's client sent, with
// the fields that name the tool and its server as observed.
func observedPayload(o observedName) string {
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	switch o.Client {
	case "claude-code":
		return `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":` + quote(o.HookToolName) +
			`,"tool_input":{},"mcp_server":{"name":` + quote(o.HookServerName) + `,"source":"dynamic"}}`
	case "codex":
		return `{"session_id":"s","turn_id":"t","hook_event_name":"PreToolUse","tool_name":` + quote(o.HookToolName) + `,"tool_input":{}}`
	case "gemini":
		return `{"session_id":"s","hook_event_name":"BeforeTool","timestamp":"x","tool_name":` + quote(o.HookToolName) +
			`,"tool_input":{},"mcp_context":{"server_name":` + quote(o.HookServerName) + `,"tool_name":` + quote(o.HookMCPToolName) + `}}`
	case "opencode", "kilo":
		return `{"input":{"tool":` + quote(o.HookToolName) + `,"sessionID":"s","callID":"c"},"output":{"args":{}}}`
	case "copilot":
		return `{"sessionId":"s","timestamp":1795345424016,"cwd":"/p","toolName":` + quote(o.HookToolName) + `,"toolArgs":{}}`
	case "cline":
		return `{"clineVersion":"","timestamp":"x","taskId":"t","hookName":"tool_call","iteration":1,"tool_call":{"id":"c","name":` +
			quote(o.HookToolName) + `,"input":{}},"preToolUse":{"toolName":` + quote(o.HookToolName) + `,"parameters":{}}}`
	case "droid":
		return `{"session_id":"s","transcript_path":"/home/u/.factory/sessions/s.jsonl","cwd":"/p","permission_mode":"auto-low",` +
			`"hook_event_name":"PreToolUse","tool_name":` + quote(o.HookToolName) + `,"tool_input":{}}`
	}
	return ""
}

// observedAdapter is the adapter that reads a row's client's payloads:
// Kilo CLI's shim sends OpenCode's.
func observedAdapter(client string) string {
	if client == "kilo" {
		return "opencode"
	}
	return client
}

// clineHash is the "_<8 hex>" Cline appends to a tool's name that holds
// anything but [A-Za-z0-9_-].
var clineHash = regexp.MustCompile(`_[0-9a-f]{8}$`)

// codexCollisionSuffix is the "_<12 hex>" Codex appends to the server part
// of two servers whose names sanitize alike: the name then names neither
// server, and the hooks never guess (names.go).
var codexCollisionSuffix = regexp.MustCompile(`^mcp__.*_[0-9a-f]{12}__`)

// matchObserved is the hooks' decision for server as the lifecycle takes
// it: no token if a not-server claims the tool, else the server's tool.
func matchObserved(ev *Event, server string, not []string) (string, bool) {
	for _, n := range not {
		if _, ok := ev.Client.Tool(ev, n); ok {
			return "", false
		}
	}
	return ev.Client.Tool(ev, server)
}

// TestObservedToolNames checks names.go against every name the real clients
// were seen to send: the hooks of the server the tool belongs to match it
// and find the tool's own name, unless another configured server could own
// the same name (then nobody gets it); the hooks of every other configured
// server never match it, with the --not-server lists install writes
// (Client.Collisions); and install's matcher prefix is what the client
// sends.
func TestObservedToolNames(t *testing.T) {
	obs := readObservedNames(t)
	clients := map[string]int{}
	checked := 0
	for _, o := range obs {
		clients[o.Client]++
		if o.HookToolName == "" {
			continue // the client never offered the tool (notes say why)
		}
		row := fmt.Sprintf("%s %s: %q (server %q, tool %q)", o.Client, o.ClientVersion, o.HookToolName, o.Server, o.Tool)
		client, err := Lookup(observedAdapter(o.Client))
		if err != nil {
			t.Fatalf("%s: %v", row, err)
		}
		ev, err := Parse([]byte(observedPayload(o)), client)
		if err != nil {
			t.Fatalf("%s: %v", row, err)
		}
		info, ok := FindClient(o.Client)
		if !ok {
			t.Fatalf("%s: no Client named %q", row, o.Client)
		}
		checked++

		// Which configured servers' own spelling reads this name.
		var claimants []string
		for _, s := range o.Configured {
			if _, ok := ev.Client.Tool(ev, s); ok {
				claimants = append(claimants, s)
			}
		}
		for _, s := range o.Configured {
			tool, ok := matchObserved(ev, s, info.Collisions(s, o.Configured))
			switch {
			case s != o.Server && ok:
				t.Errorf("%s: the hooks of server %q match it (tool %q): a token of %q would go to %q", row, s, tool, s, o.Server)
			case s != o.Server:
			case o.Client == "codex" && codexCollisionSuffix.MatchString(o.HookToolName):
				if ok {
					t.Errorf("%s: matched although Codex's collision suffix names neither server", row)
				}
			case len(claimants) > 1:
				if ok {
					t.Errorf("%s: matched as %q's although %v read it too", row, s, claimants)
				}
			case !ok:
				t.Errorf("%s: the hooks of its own server do not match it", row)
			case o.Client == "cline" && sanitize(o.Server+"__"+o.Tool, true) != o.Server+"__"+o.Tool:
				// Hashed by Cline: the tool's sanitized name, maybe with the hash.
				if sanitizeWord(clineHash.ReplaceAllString(tool, "")) != sanitizeWord(o.Tool) {
					t.Errorf("%s: matched with tool %q, want the client's spelling of %q", row, tool, o.Tool)
				}
			case !strings.HasSuffix(o.HookToolName, tool) || sanitizeWord(tool) != sanitizeWord(o.Tool):
				t.Errorf("%s: matched with tool %q, want the client's spelling of %q", row, tool, o.Tool)
			}
		}
		// Install's matcher is built from the prefix.
		if p, ok := ToolPrefix(o.Client, o.Server); !ok || !strings.HasPrefix(o.HookToolName, p) {
			if !(o.Client == "codex" && codexCollisionSuffix.MatchString(o.HookToolName)) {
				t.Errorf("%s: ToolPrefix is %q, which the client's name does not start with", row, p)
			}
		}
	}
	for _, c := range []string{"claude-code", "codex", "gemini", "opencode", "copilot", "cline", "droid", "kilo"} {
		if clients[c] == 0 {
			t.Errorf("observed.json has no row of %s", c)
		}
	}
	if checked < 30 {
		t.Errorf("only %d observed names checked", checked)
	}
}
