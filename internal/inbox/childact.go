package inbox

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/children"
)

// The page starts, continues and cancels children as `interceptor children
// create`, `children chat` and `children cancel` do: the same store calls,
// behind the same session and origin checks as a decision (auth.go). A
// child started here is supervised (its tool calls wait in the queue as a
// CLI-made child's do), runs in a directory that exists, with a client
// children supports, and inherits the inbox's environment as a CLI-made
// child inherits the CLI's.

type (
	// childStartAction creates a child and starts its first chat.
	childStartAction struct {
		Name   string `json:"name"`
		Client string `json:"client"`
		Dir    string `json:"dir"`
		Prompt string `json:"prompt"`
	}
	// chatContinueAction starts the next chat of the child of chat.
	chatContinueAction struct {
		Chat   string `json:"chat"`
		Prompt string `json:"prompt"`
	}
	// chatCancelAction cancels a running chat.
	chatCancelAction struct {
		Chat string `json:"chat"`
	}
)

// maxPrompt bounds a prompt typed on the page.
const maxPrompt = 256 << 10

func checkPrompt(p string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return fmt.Errorf("%w: the prompt is empty", errBadRequest)
	case len(p) > maxPrompt:
		return fmt.Errorf("%w: the prompt is %d bytes, at most %d", errBadRequest, len(p), maxPrompt)
	}
	return nil
}

// apiChildStart: {name, client, dir, prompt} -> {child, chat}.
func (s *Server) apiChildStart(w http.ResponseWriter, r *http.Request) {
	var a childStartAction
	if err := readAction(w, r, &a); err != nil {
		fail(w, err)
		return
	}
	if err := s.checkChildStart(a); err != nil {
		fail(w, err)
		return
	}
	c, err := s.kids.Create(children.Child{Name: a.Name, Client: a.Client, WorkingDir: a.Dir})
	if err != nil {
		fail(w, fmt.Errorf("%w: %v", errBadRequest, err))
		return
	}
	chat, err := s.kids.StartChat(c.ID, a.Prompt)
	if err != nil {
		fail(w, fmt.Errorf("child %s created, its chat not started: %w", vis(c.Name), err))
		return
	}
	writeJSON(w, map[string]string{"child": c.ID, "chat": chat.ID})
}

// checkChildStart refuses what Create would take from the CLI but not from
// a page: a relative directory (the inbox's own working directory is not
// the person's), and says plainly what is wrong before anything is made.
func (s *Server) checkChildStart(a childStartAction) error {
	if err := children.ValidName(a.Name); err != nil {
		return fmt.Errorf("%w: %v", errBadRequest, err)
	}
	if _, err := children.LookupClient(a.Client); err != nil {
		return fmt.Errorf("%w: client %q: want one of %s", errBadRequest, vis(a.Client), strings.Join(children.ClientNames(), ", "))
	}
	if !filepath.IsAbs(a.Dir) {
		return fmt.Errorf("%w: directory %q: want an absolute path", errBadRequest, vis(a.Dir))
	}
	if _, err := s.kids.Get(a.Name); err == nil {
		return fmt.Errorf("%w: a child named %s exists: open its chat to continue it", errBadRequest, vis(a.Name))
	} else if !errors.Is(err, children.ErrUnknown) {
		return err
	}
	return checkPrompt(a.Prompt)
}

// apiChatContinue: {chat, prompt} -> {chat}: the next chat of that chat's
// child (children.StartChat refuses while one runs).
func (s *Server) apiChatContinue(w http.ResponseWriter, r *http.Request) {
	var a chatContinueAction
	if err := readAction(w, r, &a); err != nil {
		fail(w, err)
		return
	}
	if err := checkPrompt(a.Prompt); err != nil {
		fail(w, err)
		return
	}
	child, _, err := children.ParseChatID(a.Chat)
	if err != nil {
		fail(w, err)
		return
	}
	chat, err := s.kids.StartChat(child, a.Prompt)
	if err != nil {
		if errors.Is(err, children.ErrUnknown) {
			fail(w, err)
		} else {
			fail(w, fmt.Errorf("%w: %v", errBadRequest, err))
		}
		return
	}
	writeJSON(w, map[string]string{"chat": chat.ID})
}

// apiChatCancel: {chat} -> {chat, status}: its client's process group ends
// and its waiting requests are settled (children.Store.Cancel).
func (s *Server) apiChatCancel(w http.ResponseWriter, r *http.Request) {
	var a chatCancelAction
	if err := readAction(w, r, &a); err != nil {
		fail(w, err)
		return
	}
	st, err := s.kids.Cancel(a.Chat)
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, map[string]string{"chat": a.Chat, "status": string(st)})
}
