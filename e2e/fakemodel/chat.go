package fakemodel

import (
	"encoding/json"
	"net/http"
	"time"
)

type chatReq struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// chat serves POST /v1/chat/completions (OpenCode's openai-compatible provider).
func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var q chatReq
	body, ok := readJSON(w, r, &q)
	if !ok {
		s.record(r, "chat", body, false, 0, "400")
		return
	}
	var conv Conversation
	for _, m := range q.Messages {
		if m.Role == "tool" {
			conv.Results = append(conv.Results, resultText(m.Content))
		}
	}
	conv.Body = body
	n := len(conv.Results)
	tools := make([]Tool, 0, len(q.Tools))
	for _, t := range q.Tools {
		tools = append(tools, Tool{Name: t.Function.Name})
	}
	act, main := s.plan(conv, tools)
	s.turn(r, "chat", body, main, n, act)

	id, created := s.id("chatcmpl"), time.Now().Unix()
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	msg := map[string]any{"role": "assistant", "content": act.Text}
	finish := "stop"
	if act.IsTool() {
		msg["content"] = nil
		msg["tool_calls"] = []any{map[string]any{"index": 0, "id": s.id("call"), "type": "function",
			"function": map[string]any{"name": act.Tool.Name, "arguments": mustJSON(act.Args)}}}
		finish = "tool_calls"
	}
	if !q.Stream {
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": q.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	chunk := func(delta map[string]any, finish any, usage any) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": q.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		return c
	}
	e := newSSE(w)
	e.send("", chunk(msg, nil, nil))
	e.send("", chunk(map[string]any{}, finish, usage))
	e.send("", "[DONE]")
}
