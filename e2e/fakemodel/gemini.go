package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

type geminiReq struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			FunctionResponse json.RawMessage `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

// gemini serves POST /v1beta/models/{model}:{streamGenerateContent,generateContent,countTokens}.
func (s *Server) gemini(w http.ResponseWriter, r *http.Request) {
	method := r.URL.Path[strings.LastIndex(r.URL.Path, ":")+1:]
	var q geminiReq
	body, ok := readJSON(w, r, &q)
	if !ok {
		s.record(r, "gemini", body, false, 0, "400")
		return
	}
	if method == "countTokens" {
		s.record(r, "gemini-count", body, false, 0, "count")
		writeJSON(w, map[string]any{"totalTokens": 1 + len(body)/4})
		return
	}
	var conv Conversation
	for _, c := range q.Contents {
		for _, p := range c.Parts {
			if len(p.FunctionResponse) > 0 {
				conv.Results = append(conv.Results, resultText(p.FunctionResponse))
			}
		}
	}
	conv.Body = body
	n := len(conv.Results)
	var tools []Tool
	for _, t := range q.Tools {
		for _, d := range t.FunctionDeclarations {
			tools = append(tools, Tool{Name: d.Name})
		}
	}
	act, main := s.plan(conv, tools)
	if !main && q.GenerationConfig.ResponseMimeType == "application/json" {
		// Routing, next-speaker and loop checks ask for JSON of a schema.
		schema := q.GenerationConfig.ResponseJSONSchema
		if len(schema) == 0 {
			schema = q.GenerationConfig.ResponseSchema
		}
		act.Text = mustJSON(exampleOf(schema))
	}
	s.turn(r, "gemini", body, main, n, act)

	var part map[string]any
	if act.IsTool() {
		part = map[string]any{"functionCall": map[string]any{"name": act.Tool.Name, "args": act.Args}}
	} else {
		part = map[string]any{"text": act.Text}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "e2e-model",
	}
	if method != "streamGenerateContent" {
		writeJSON(w, resp)
		return
	}
	if r.URL.Query().Get("alt") == "sse" {
		newSSE(w).send("", resp)
		return
	}
	writeJSON(w, []any{resp}) // non-SSE streaming is a JSON array
}

// exampleOf builds a value satisfying a (simple) JSON schema: the first enum
// value, "e2e" for strings, 1 for numbers, false for booleans.
func exampleOf(raw json.RawMessage) any {
	var sch struct {
		Type       any                        `json:"type"`
		Enum       []any                      `json:"enum"`
		Properties map[string]json.RawMessage `json:"properties"`
		Items      json.RawMessage            `json:"items"`
	}
	if json.Unmarshal(raw, &sch) != nil {
		return map[string]any{}
	}
	if len(sch.Enum) > 0 {
		return sch.Enum[0]
	}
	typ, _ := sch.Type.(string)
	switch strings.ToLower(typ) {
	case "string":
		return "e2e"
	case "number", "integer":
		return 1 // scores are often 1-based (Gemini's router wants 1..100)
	case "boolean":
		return false
	case "array":
		return []any{}
	}
	obj := map[string]any{}
	for k, v := range sch.Properties {
		obj[k] = exampleOf(v)
	}
	return obj
}
