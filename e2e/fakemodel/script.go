package fakemodel

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Conversation is what a request tells the model about the conversation so
// far: the text of each tool result, oldest first (for results given as
// JSON, every string in them, one per line).
type Conversation struct {
	Results []string
	// Body is the whole request body, for scripts that follow the user's
	// prompts across turns.
	Body []byte
}

// Script decides each turn of a scripted conversation. main reports
// whether the request is a scripted turn (it offered the script's tools);
// other requests (titles, summaries, routing) get SideText.
type Script interface {
	Plan(c Conversation, tools []Tool) (act Action, main bool)
}

// resultText flattens a tool result as an API carries it (a string, an
// array of content blocks, a JSON object) into its strings, one per line.
func resultText(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var lines []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			// Some clients pass a result on as the JSON of its content blocks.
			var inner any
			if t := strings.TrimSpace(x); (strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{")) && json.Unmarshal([]byte(t), &inner) == nil {
				walk(inner)
				return
			}
			lines = append(lines, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k])
			}
		}
	}
	walk(v)
	return strings.Join(lines, "\n")
}

// ProbeScript calls, one per turn, every offered tool whose name (with its
// namespace) contains Marker, case-insensitively, in the order of their
// names, each with {"probe": "<its name as offered>"}; then it answers
// FinalText. It shows how a client spells each MCP tool for the model and
// which server each spelling reaches.
type ProbeScript struct{ Marker string }

// Probes returns the tools ProbeScript calls, in order.
func (p ProbeScript) Probes(tools []Tool) []Tool {
	var out []Tool
	seen := map[string]bool{}
	for _, t := range tools {
		if !strings.Contains(strings.ToLower(t.String()), strings.ToLower(p.Marker)) || seen[t.String()] {
			continue
		}
		seen[t.String()] = true
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// Plan implements Script.
func (p ProbeScript) Plan(c Conversation, tools []Tool) (Action, bool) {
	probes := p.Probes(tools)
	if len(probes) == 0 {
		return Action{Text: SideText}, false
	}
	if n := len(c.Results); n < len(probes) {
		return Action{Tool: probes[n], Args: map[string]any{"probe": probes[n].String()}}, true
	}
	return Action{Text: FinalText}, true
}

// ToolsOf returns the tools a request body offers, in any of the four APIs'
// shapes: Anthropic tools[].name, Chat Completions tools[].function.name,
// Responses tools[].name and namespaces' tools[].tools[].name, Gemini
// tools[].functionDeclarations[].name.
func ToolsOf(body []byte) []Tool {
	var q struct {
		Tools []struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if json.Unmarshal(body, &q) != nil {
		return nil
	}
	var out []Tool
	for _, t := range q.Tools {
		switch {
		case len(t.Tools) > 0:
			for _, c := range t.Tools {
				out = append(out, Tool{Namespace: t.Name, Name: c.Name})
			}
		case len(t.FunctionDeclarations) > 0:
			for _, d := range t.FunctionDeclarations {
				out = append(out, Tool{Name: d.Name})
			}
		case t.Function.Name != "":
			out = append(out, Tool{Name: t.Function.Name})
		case t.Name != "":
			out = append(out, Tool{Name: t.Name})
		}
	}
	return out
}
