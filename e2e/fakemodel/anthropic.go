package fakemodel

import (
	"encoding/json"
	"net/http"
)

type anthropicReq struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

func (q *anthropicReq) conversation() Conversation {
	var c Conversation
	for _, m := range q.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // plain string content
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				c.Results = append(c.Results, resultText(b.Content))
			}
		}
	}
	return c
}

// anthropic serves POST /v1/messages (streaming or not).
func (s *Server) anthropic(w http.ResponseWriter, r *http.Request) {
	var q anthropicReq
	body, ok := readJSON(w, r, &q)
	if !ok {
		s.record(r, "anthropic", body, false, 0, "400")
		return
	}
	tools := make([]Tool, 0, len(q.Tools))
	for _, t := range q.Tools {
		tools = append(tools, Tool{Name: t.Name})
	}
	conv := q.conversation()
	conv.Body = body
	n := len(conv.Results)
	act, main := s.plan(conv, tools)
	s.turn(r, "anthropic", body, main, n, act)

	model := q.Model
	if model == "" {
		model = "e2e-model"
	}
	msgID := s.id("msg")
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	var block map[string]any
	stop := "end_turn"
	if act.IsTool() {
		block = map[string]any{"type": "tool_use", "id": s.id("toolu"), "name": act.Tool.Name, "input": act.Args}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": act.Text}
	}
	if !q.Stream {
		writeJSON(w, map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	e := newSSE(w)
	e.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
	if act.IsTool() {
		e.send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}})
		e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": mustJSON(act.Args)}})
	} else {
		e.send("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": act.Text}})
	}
	e.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	e.send("message_stop", map[string]any{"type": "message_stop"})
}
