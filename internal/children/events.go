package children

import (
	"encoding/json"
	"fmt"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// Normalized is one normalized event of a chat: a startEvent, contentEvent,
// toolUseEvent, toolResultEvent or completeEvent. Each is a JSON object
// whose type says which, keeping the client's line it came from under raw
// (none for an event the runner makes itself).
type Normalized interface{ normalized() }

type (
	// startEvent opens a chat's log (startFirst adds chat, client and
	// prompt).
	startEvent struct {
		Type    string          `json:"type"` // start
		Session string          `json:"session,omitempty"`
		Model   string          `json:"model,omitempty"`
		Cwd     string          `json:"cwd,omitempty"`
		Raw     json.RawMessage `json:"raw,omitempty"`
		Chat    string          `json:"chat,omitempty"`
		Client  string          `json:"client,omitempty"`
		Prompt  string          `json:"prompt,omitempty"`
	}
	// contentEvent is the model's text.
	contentEvent struct {
		Type string          `json:"type"` // content
		Text string          `json:"text"`
		Raw  json.RawMessage `json:"raw,omitempty"`
	}
	// toolUseEvent is a tool call; Input is its arguments (raw JSON or a
	// value to encode), nil when the client sent none.
	toolUseEvent struct {
		Type  string          `json:"type"` // tool_use
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input any             `json:"input,omitempty"`
		Raw   json.RawMessage `json:"raw,omitempty"`
	}
	// toolResultEvent is a tool call's result, as text.
	toolResultEvent struct {
		Type      string          `json:"type"` // tool_result
		ToolUseID string          `json:"tool_use_id"`
		Content   string          `json:"content"`
		IsError   bool            `json:"is_error"`
		Raw       json.RawMessage `json:"raw,omitempty"`
	}
	// completeEvent ends a chat: complete or failed, with the final
	// result or why it failed.
	completeEvent struct {
		Type   string          `json:"type"` // complete
		Status Status          `json:"status"`
		Result string          `json:"result,omitempty"`
		Error  string          `json:"error,omitempty"`
		Raw    json.RawMessage `json:"raw,omitempty"`
	}
)

func (*startEvent) normalized()      {}
func (*contentEvent) normalized()    {}
func (*toolUseEvent) normalized()    {}
func (*toolResultEvent) normalized() {}
func (*completeEvent) normalized()   {}

// rawLine is the client's line for an event's raw: a JSON value, or
// nothing.
func rawLine(line []byte) json.RawMessage {
	if len(line) == 0 || !gjson.ValidBytes(line) {
		return nil
	}
	return json.RawMessage(line)
}

// rawInput is a tool call's arguments for toolUseEvent.Input: nil when the
// client sent none.
func rawInput(v gjson.Result) any {
	if !v.Exists() {
		return nil
	}
	return json.RawMessage(v.Raw)
}

func started(line []byte, session string) *startEvent {
	return &startEvent{Type: "start", Session: session, Raw: rawLine(line)}
}

func content(line []byte, text string) *contentEvent {
	return &contentEvent{Type: "content", Text: text, Raw: rawLine(line)}
}

func toolUse(line []byte, id, name string, input any) *toolUseEvent {
	return &toolUseEvent{Type: "tool_use", ID: id, Name: name, Input: input, Raw: rawLine(line)}
}

func toolResult(line []byte, id, text string, isError bool) *toolResultEvent {
	return &toolResultEvent{Type: "tool_result", ToolUseID: id, Content: text, IsError: isError, Raw: rawLine(line)}
}

func completed(line []byte, st Status, result, errText string) *completeEvent {
	return &completeEvent{Type: "complete", Status: st, Result: result, Error: errText, Raw: rawLine(line)}
}

// encodeEvents renders events as the JSON objects the log holds.
func encodeEvents(evs []Normalized) ([]string, error) {
	out := make([]string, 0, len(evs))
	for _, ev := range evs {
		b, err := rawjson.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("encoding a %T: %w", ev, err)
		}
		out = append(out, string(b))
	}
	return out, nil
}
