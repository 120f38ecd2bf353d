package children

import (
	"strings"

	"github.com/tidwall/gjson"
)

// gemini runs `gemini -p PROMPT --output-format stream-json`, the first chat
// with --session-id (an id chosen at create), the next ones with --resume
// of it; --skip-trust because the parent chose the working dir. Its
// approvals go through the approve hook installed in the user's Gemini
// settings (interceptor install gemini --approve), which reads the chat id
// from the environment.
type gemini struct{}

func init() { register(gemini{}) }

func (gemini) Name() string { return "gemini" }

func (gemini) Traits() Traits { return Traits{ChoosesSession: true, HookApprovals: true} }

func (gemini) Command(r RunSpec) (Command, error) {
	argv := []string{"gemini", "--prompt=" + r.Prompt, "--output-format", "stream-json", "--skip-trust"}
	if r.Resume() {
		argv = append(argv, "--resume", r.Child.Session)
	} else {
		argv = append(argv, "--session-id", r.Child.Session)
	}
	if r.Child.Model != "" {
		argv = append(argv, "--model", r.Child.Model)
	}
	return Command{Argv: argv, Env: withEnv(r.Child)}, nil
}

func (gemini) NewNormalizer() Normalizer { return &geminiNorm{} }

type geminiNorm struct {
	session, lastError string
	text               strings.Builder // the assistant's text of the turn
}

func (n *geminiNorm) Session() string { return n.session }

// Line reads one stream-json line: init is the start, assistant messages
// (deltas) the content, tool_use and tool_result the tools, result the end.
func (n *geminiNorm) Line(line []byte) []string {
	if !gjson.ValidBytes(line) {
		return nil
	}
	j := gjson.ParseBytes(line)
	switch j.Get("type").Str {
	case "init":
		n.session = j.Get("session_id").Str
		return []string{event(line, "start", "session", n.session, "model", j.Get("model").Str)}
	case "message":
		if j.Get("role").Str == "assistant" {
			n.text.WriteString(j.Get("content").Str)
			return []string{event(line, "content", "text", j.Get("content").Str)}
		}
	case "tool_use":
		return []string{event(line, "tool_use", "id", j.Get("tool_id").Str, "name", j.Get("tool_name").Str, "input", j.Get("parameters"))}
	case "tool_result":
		isErr := j.Get("status").Str != "success"
		content := j.Get("output").Str
		if content == "" && isErr {
			content = j.Get("error.message").Str
		}
		return []string{event(line, "tool_result", "tool_use_id", j.Get("tool_id").Str, "content", content, "is_error", isErr)}
	case "error":
		n.lastError = firstNonEmpty(j.Get("message").Str, j.Get("error.message").Str)
	case "result":
		if j.Get("status").Str == "success" {
			return []string{event(line, "complete", "status", string(Complete), "result", n.text.String())}
		}
		return []string{event(line, "complete", "status", string(Failed), "result", n.text.String(),
			"error", firstNonEmpty(j.Get("error.message").Str, n.lastError, "status "+j.Get("status").Str))}
	}
	return nil
}
