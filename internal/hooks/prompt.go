package hooks

import "fmt"

// Prompt hooks: the event a client runs when a turn starts (the user's
// prompt is in, the model not yet asked), whose reply can add context the
// model reads with the prompt. `interceptor deliver` answers it with the
// human tools' parked answers (internal/humantools).

// PromptEvents are the clients' turn-start events that take added context.
var PromptEvents = map[string]string{
	"claude-code": "UserPromptSubmit",
	"codex":       "UserPromptSubmit",
	"gemini":      "BeforeAgent",
}

// IsPromptEvent reports whether ev is its client's turn-start event.
func IsPromptEvent(ev *Event) bool {
	return ev.Client != nil && ev.Name != "" && PromptEvents[ev.Client.Name()] == ev.Name
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
