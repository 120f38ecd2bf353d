package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

type responsesTool struct {
	Type  string          `json:"type"`
	Name  string          `json:"name"`
	Tools []responsesTool `json:"tools"` // namespace tools
}

type responsesReq struct {
	Model string          `json:"model"`
	Input json.RawMessage `json:"input"`
	Tools []responsesTool `json:"tools"`
}

func (q *responsesReq) conversation() Conversation {
	var c Conversation
	var items []struct {
		Type   string          `json:"type"`
		Output json.RawMessage `json:"output"`
	}
	if json.Unmarshal(q.Input, &items) != nil {
		return c // input given as a plain string
	}
	for _, it := range items {
		if strings.HasSuffix(it.Type, "call_output") { // function_call_output, custom_tool_call_output, ...
			c.Results = append(c.Results, resultText(it.Output))
		}
	}
	return c
}

func (q *responsesReq) tools() []Tool {
	var out []Tool
	for _, t := range q.Tools {
		if len(t.Tools) > 0 {
			for _, c := range t.Tools {
				out = append(out, Tool{Namespace: t.Name, Name: c.Name})
			}
			continue
		}
		if t.Name != "" {
			out = append(out, Tool{Name: t.Name})
		}
	}
	return out
}

// responses serves POST /v1/responses as used by Codex (always streamed).
func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	var q responsesReq
	body, ok := readJSON(w, r, &q)
	if !ok {
		s.record(r, "responses", body, false, 0, "400")
		return
	}
	conv := q.conversation()
	conv.Body = body
	n := len(conv.Results)
	act, main := s.plan(conv, q.tools())
	s.turn(r, "responses", body, main, n, act)

	respID := s.id("resp")
	var item map[string]any
	if act.IsTool() {
		item = map[string]any{"type": "function_call", "id": s.id("fc"), "call_id": s.id("call"),
			"name": act.Tool.Name, "arguments": mustJSON(act.Args), "status": "completed"}
		if act.Tool.Namespace != "" {
			item["namespace"] = act.Tool.Namespace
		}
	} else {
		item = map[string]any{"type": "message", "id": s.id("msg"), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": act.Text, "annotations": []any{}}}}
	}
	resp := map[string]any{"id": respID, "object": "response", "status": "in_progress", "model": q.Model, "output": []any{}}
	e := newSSE(w)
	e.send("response.created", map[string]any{"type": "response.created", "response": resp})
	e.send("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	if !act.IsTool() {
		e.send("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": item["id"],
			"output_index": 0, "content_index": 0, "delta": act.Text})
	}
	e.send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	resp["status"] = "completed"
	resp["output"] = []any{item}
	resp["usage"] = map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}
	e.send("response.completed", map[string]any{"type": "response.completed", "response": resp})
}
