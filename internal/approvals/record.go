package approvals

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

const timeFmt = time.RFC3339Nano

// record is a request as stored on disk, in this order. Times are
// RFC 3339 in UTC, absent when zero.
type record struct {
	ID      string `json:"id"`
	Status  Status `json:"status"`
	Client  string `json:"client"`
	Session string `json:"session"`
	// SessionHex holds a session that is not UTF-8: JSON holds text, and
	// the byte that is not UTF-8 reads back as U+FFFD, which names
	// another session.
	SessionHex   string          `json:"session_hex,omitempty"`
	Tool         string          `json:"tool"`
	Input        json.RawMessage `json:"input"`
	Created      string          `json:"created,omitempty"`
	Deadline     string          `json:"deadline,omitempty"`
	Reason       string          `json:"message"`
	UpdatedInput json.RawMessage `json:"updated_input,omitempty"`
	DecidedBy    string          `json:"decided_by"`
	DecidedAt    string          `json:"decided_at,omitempty"`
	Origin       string          `json:"origin"`
	Chat         string          `json:"chat,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Cwd          string          `json:"cwd,omitempty"`
	Project      string          `json:"project,omitempty"`
	Rule         string          `json:"rule,omitempty"`
	*inputRecord
}

// inputRecord is what a human tool's question adds to its record.
type inputRecord struct {
	Kind        string          `json:"kind"`
	Mode        string          `json:"mode"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// AnswerSchema: what an answer must be (humantools' answerSchema).
	AnswerSchema json.RawMessage `json:"answer_schema,omitempty"`
	Answer       string          `json:"answer"`
	DeliveredAt  string          `json:"delivered_at,omitempty"`
	DeliveredTo  string          `json:"delivered_to,omitempty"`
}

// recordTime is t as a record holds it: "" when zero.
func recordTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeFmt)
}

func encode(r Request) ([]byte, error) {
	rec := record{
		ID: r.ID, Status: r.Status, Client: r.Client, Session: r.Session, Tool: r.Tool,
		Input: json.RawMessage(r.Input), Created: recordTime(r.Created), Deadline: recordTime(r.Deadline),
		Reason: r.Reason, DecidedBy: r.DecidedBy, DecidedAt: recordTime(r.DecidedAt), Origin: r.Origin,
		Chat: r.Chat, ToolUseID: r.ToolUseID, Cwd: r.Cwd, Project: r.Project, Rule: r.Rule,
	}
	if !utf8.ValidString(r.Session) {
		rec.SessionHex = hex.EncodeToString([]byte(r.Session))
	}
	if r.UpdatedInput != "" {
		rec.UpdatedInput = json.RawMessage(r.UpdatedInput)
	}
	if r.Kind != "" {
		rec.inputRecord = &inputRecord{Kind: r.Kind, Mode: r.Mode, Answer: r.Answer,
			DeliveredAt: recordTime(r.DeliveredAt), DeliveredTo: r.DeliveredTo}
		if r.InputSchema != "" && gjson.Valid(r.InputSchema) {
			rec.InputSchema = json.RawMessage(r.InputSchema)
		}
		if r.AnswerSchema != "" && gjson.Valid(r.AnswerSchema) {
			rec.AnswerSchema = json.RawMessage(r.AnswerSchema)
		}
	}
	out, err := rawjson.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("encoding approval record %s: %w", r.ID, err)
	}
	// Records are what pending, history and show hand out: no raw control
	// or bidi character in them (see VisibleJSON).
	return append([]byte(VisibleJSON(string(out))), '\n'), nil
}

// JSON renders a request as the JSON object stored on disk.
func (r Request) JSON() string {
	b, err := encode(r)
	if err != nil {
		return "{}"
	}
	return strings.TrimSpace(string(b))
}

func readRequest(path string) (Request, error) {
	data, err := privfs.ReadFile(path, "approval record", maxRecord)
	if err != nil {
		return Request{}, err
	}
	return decode(path, data)
}

func decode(path string, data []byte) (Request, error) {
	if !gjson.ValidBytes(data) {
		return Request{}, fmt.Errorf("approval record %s: not valid JSON", path)
	}
	j := gjson.ParseBytes(data)
	tm := func(k string) time.Time {
		t, _ := time.Parse(timeFmt, j.Get(k).Str)
		return t
	}
	r := Request{
		ID:           j.Get("id").Str,
		Status:       Status(j.Get("status").Str),
		Client:       j.Get("client").Str,
		Session:      j.Get("session").Str,
		Tool:         j.Get("tool").Str,
		Input:        j.Get("input").Raw,
		Created:      tm("created"),
		Deadline:     tm("deadline"),
		Reason:       j.Get("message").Str,
		UpdatedInput: j.Get("updated_input").Raw,
		DecidedBy:    j.Get("decided_by").Str,
		DecidedAt:    tm("decided_at"),
		Origin:       j.Get("origin").Str,
		Chat:         j.Get("chat").Str,
		ToolUseID:    j.Get("tool_use_id").Str,
		Cwd:          j.Get("cwd").Str,
		Project:      j.Get("project").Str,
		Rule:         j.Get("rule").Str,

		Kind:         j.Get("kind").Str,
		Mode:         j.Get("mode").Str,
		InputSchema:  j.Get("input_schema").Raw,
		AnswerSchema: j.Get("answer_schema").Raw,
		Answer:       j.Get("answer").Str,
		DeliveredAt:  tm("delivered_at"),
		DeliveredTo:  j.Get("delivered_to").Str,
	}
	switch r.Status {
	case Pending, Allowed, Denied, Expired, Answered, Delivered:
	default:
		return Request{}, fmt.Errorf("approval record %s: bad status %q", path, r.Status)
	}
	if r.ID+".json" != filepath.Base(path) {
		return Request{}, fmt.Errorf("approval record %s: id %q does not match its file name", path, r.ID)
	}
	if h := j.Get("session_hex"); h.Exists() {
		b, err := hex.DecodeString(h.Str)
		if err != nil {
			return Request{}, fmt.Errorf("approval record %s: bad session_hex", path)
		}
		r.Session = string(b)
	}
	if r.Input == "" {
		r.Input = "{}"
	}
	return r, nil
}
