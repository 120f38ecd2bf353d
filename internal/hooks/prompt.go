package hooks

import "fmt"

// Prompt hooks: the event a client runs when a turn starts (the user's
// prompt is in, the model not yet asked), whose reply can add context the
// model reads with the prompt. `interceptor deliver` answers it with the
// human tools' parked answers (internal/humantools). Which event that is,
// is each Client's PromptEvent.

// IsPromptEvent reports whether ev is its client's turn-start event
// (Client.PromptEvent).
func IsPromptEvent(ev *Event) bool {
	return ev.desc != nil && ev.Name != "" && ev.desc.PromptEvent == ev.Name
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
	if p, ok := ev.Client.(prompter); ok {
		return p.promptContext(text)
	}
	return nil, ErrCannotRewrite
}

// prompter is an Adapter whose client's turn-start event takes added
// context (in the adapter's file).
type prompter interface {
	promptContext(text string) ([]byte, error)
}
