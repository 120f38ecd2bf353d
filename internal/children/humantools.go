package children

import (
	"fmt"
	"os"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/humantools"
)

// withHumanAnswers puts the answers given to the child's parked human tool
// calls (asked in its earlier chats; docs/human-tools.md) in front of the
// chat's prompt: a child session runs headless, with no prompt hook of
// ours, so its next chat's prompt is where they reach the model. Each
// answer is taken once. When they cannot be read the prompt goes as it is
// (the answers stay queued for the next chat) and the runner's log says so.
func (s *Store) withHumanAnswers(chat *Chat, prompt string) string {
	text, _, err := humantools.DeliverMatching(approvals.New(s.StateDir), func(r approvals.Request) bool {
		child, _, err := ParseChatID(r.Chat)
		return err == nil && child == chat.Child.ID
	}, "child chat "+chat.ID)
	if err != nil {
		fmt.Fprintf(os.Stderr, "interceptor children: chat %s: human tool answers not delivered: %v\n", chat.ID, err)
		return prompt
	}
	if text == "" {
		return prompt
	}
	return text + "\n\n" + prompt
}
