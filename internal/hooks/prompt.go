package hooks

import (
	"fmt"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
)

// Prompt hooks: the event a client runs when a turn starts (the user's
// prompt is in, the model not yet asked), whose reply can add context the
// model reads with the prompt. `interceptor deliver` answers it with the
// human tools' parked answers (internal/humantools). Which event that is,
// is each Client's PromptEvent.

// IsPromptEvent reports whether ev is its client's turn-start event
// (Client.PromptEvent).
func IsPromptEvent(ev *Event) bool {
	if ev.Client == nil || ev.Name == "" {
		return false
	}
	c, ok := FindClient(ev.Client.Name())
	return ok && c.PromptEvent == ev.Name
}

// PromptContextReply renders the reply to a turn-start event that adds
// text to what the model reads this turn. It returns ErrCannotRewrite for
// an event or client that cannot carry added context.
func PromptContextReply(ev *Event, text string) ([]byte, error) {
	if !IsPromptEvent(ev) {
		name := "unknown client"
		if ev.Client != nil {
			name = ev.Client.Name()
		}
		return nil, fmt.Errorf("%w: %s event %q does not add context to a turn (want %s's turn-start event)", ErrCannotRewrite, name, ev.Name, name)
	}
	switch ev.Client.(type) {
	case ClaudeCode:
		return claudePromptContext(text)
	case Codex:
		return codexPromptContext(text)
	case Gemini:
		return geminiPromptContext(text)
	case OpenCode:
		return openCodePromptContext(text)
	}
	return nil, ErrCannotRewrite
}

// claudePromptContext: UserPromptSubmit's hookSpecificOutput.additionalContext
// is added to the prompt the model reads.
func claudePromptContext(text string) ([]byte, error) {
	return reply(field{"hookSpecificOutput.hookEventName", "UserPromptSubmit"}, field{"hookSpecificOutput.additionalContext", text})
}

// codexPromptContext: Codex takes Claude Code's UserPromptSubmit shape
// (and rejects unknown keys).
func codexPromptContext(text string) ([]byte, error) {
	return reply(field{"hookSpecificOutput.hookEventName", "UserPromptSubmit"}, field{"hookSpecificOutput.additionalContext", text})
}

// geminiPromptContext: BeforeAgent's hookSpecificOutput.additionalContext
// is added to the turn's prompt.
func geminiPromptContext(text string) ([]byte, error) {
	return reply(field{"hookSpecificOutput.hookEventName", "BeforeAgent"}, field{"hookSpecificOutput.additionalContext", text})
}

// openCodePromptEvent parses what the shim sends from OpenCode's
// chat.message hook: {"hook": "chat.message", "input": {sessionID, agent,
// model, messageID, variant}}. The hook's output (the new user message and
// its parts, attachments included) stays in the shim: deliver needs only
// the session.
func openCodePromptEvent(p fields) (*Event, error) {
	session, err := stringField(p, "input.sessionID")
	if err != nil {
		return nil, err
	}
	return &Event{Phase: PhaseOther, Name: "chat.message", Session: session}, nil
}

// openCodePromptContext: the parts the shim adds to the new user message
// (it fills in their id, sessionID and messageID). OpenCode saves them with
// the message, so the model reads them this turn and, as history, in later
// turns; a synthetic text part is sent to the model but is not the user's
// own text.
func openCodePromptContext(text string) ([]byte, error) {
	part := rawjson.AppendString([]byte(`[{"type":"text","text":`), text)
	return reply(field{"parts", rawJSON(append(part, `,"synthetic":true}]`...))})
}
