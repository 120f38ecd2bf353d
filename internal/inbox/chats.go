package inbox

import (
	"context"
	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/present"
	"github.com/tidwall/gjson"
)

// The children's side of the page: each child with its latest chats, and a
// chat's events as they come (read by seq from the log, never the whole
// log: children.Chat.Events).

// maxChats is how many of a child's chats the overview lists (newest
// first); maxEventsRead how many events one read of a chat returns.
const (
	maxChats      = 10
	maxEventsRead = 200
)

type childView struct {
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	Client       string     `json:"client"`
	WorkingDir   string     `json:"working_dir"`
	Model        string     `json:"model,omitempty"`
	Unsupervised bool       `json:"unsupervised,omitempty"`
	Chats        []chatView `json:"chats"`
	Older        int        `json:"older,omitempty"` // chats not listed
	// Machine names the machine of another machine's child ("" this
	// one's; machines.go); Unreachable, that its relay has gone silent.
	Machine     string `json:"machine,omitempty"`
	Unreachable bool   `json:"unreachable,omitempty"`
}

type chatView struct {
	ID      string `json:"id"`
	N       int    `json:"n"`
	Child   string `json:"child"`
	Client  string `json:"client"`
	Status  string `json:"status"`
	Events  int    `json:"events"`
	Prompt  string `json:"prompt,omitempty"`
	Created int64  `json:"created,omitempty"`
	Pending int    `json:"pending,omitempty"` // requests of the chat waiting
}

type childrenList struct {
	Children []childView `json:"children"`
	// Clients are those a child can be started with from the page.
	Clients []string `json:"clients"`
}

// childrenView lists every child and its latest chats. It reads each
// listed chat's state and the tail of its log (children.Chat.State, Total):
// nothing grows with a chat's length.
func (s *Server) childrenView(ctx context.Context) (childrenList, error) {
	open, err := s.src.Open(ctx)
	if err != nil {
		return childrenList{}, err
	}
	return s.childrenOf(s.here(open))
}

// here is what of open this machine's queue holds: the children and their
// chats are this machine's.
func (s *Server) here(open []Open) []approvals.Request {
	out := []approvals.Request{}
	for _, o := range open {
		if s.src.Here(o.Machine) {
			out = append(out, o.Request)
		}
	}
	return out
}

// childrenOf is childrenView with the open requests read already (only
// their Chat is read, to count what waits in each chat), and the other
// machines' children a NATS source knows.
func (s *Server) childrenOf(open []approvals.Request) (childrenList, error) {
	out, err := childrenIn(s.kids, s.opts.StateDir, open)
	if err != nil {
		return out, err
	}
	return s.withElsewhere(out), nil
}

// childrenIn is the children of the store kids (in stateDir), as the page
// lists them.
func childrenIn(kids *children.Store, stateDir string, open []approvals.Request) (childrenList, error) {
	all, err := kids.List()
	if err != nil {
		return childrenList{}, err
	}
	waiting := map[string]int{}
	for _, r := range open {
		if r.Chat != "" {
			waiting[r.Chat]++
		}
	}
	out := childrenList{Children: []childView{}, Clients: children.ClientNames()}
	for _, c := range all {
		cv := childView{ID: c.ID, Name: vis(c.Name), Client: vis(c.Client), WorkingDir: vis(c.WorkingDir),
			Model: vis(c.Model), Unsupervised: c.Unsupervised, Chats: []chatView{}}
		viewer := children.NewViewer(stateDir, c.Session)
		for n := c.Chats; n >= 1; n-- {
			if len(cv.Chats) == maxChats {
				cv.Older = n
				break
			}
			chat, err := kids.Chat(children.ChatID(c.ID, n))
			if err != nil {
				continue
			}
			cv.Chats = append(cv.Chats, chatSummary(chat, viewer, waiting[chat.ID]))
		}
		out.Children = append(out.Children, cv)
	}
	return out, nil
}

func chatSummary(chat *children.Chat, viewer *children.Viewer, waiting int) chatView {
	v := chatView{ID: chat.ID, N: chat.N, Child: vis(chat.Child.Name), Client: vis(chat.Child.Client), Pending: waiting}
	st, err := chat.State()
	if err != nil {
		st = "unknown"
	}
	if st == children.Running && waiting > 0 {
		st = children.AwaitingPermission
	}
	v.Status = string(st)
	v.Events, _ = chat.Total()
	if p, err := chat.Prompt(); err == nil {
		v.Prompt, _ = shown(vis(viewer.Text(p.Text)), 300)
		v.Created = ms(p.Created)
	}
	return v
}

// eventView is one event of a chat as the page shows it.
type eventView struct {
	Seq       int    `json:"seq"`
	Time      int64  `json:"time"`
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"` // content, a result's content, the final result, the prompt
	Cut       int    `json:"cut,omitempty"`
	Name      string `json:"name,omitempty"`  // tool_use
	Input     string `json:"input,omitempty"` // tool_use, indented JSON
	ToolUseID string `json:"tool_use_id,omitempty"`
	IsError   bool   `json:"is_error,omitempty"`
	Status    string `json:"status,omitempty"` // complete
	Error     string `json:"error,omitempty"`
	Session   string `json:"session,omitempty"` // start: the client's session
	Model     string `json:"model,omitempty"`
	// Card is a tool call as a person reads it (internal/present): an
	// edit as a diff, a write as its content, a command as its text.
	Card *present.Card `json:"card,omitempty"`
}

type chatEvents struct {
	Chat   chatView    `json:"chat"`
	Events []eventView `json:"events"`
	Next   int         `json:"next"` // the from of the next read
	Done   bool        `json:"done"` // the chat has ended and every event was read
}

// chatView reads a chat's events from seq from (at most maxEventsRead).
// The state is read first: it may end the chat of a dead runner, and the
// events read next then include that end.
func (s *Server) chatView(ctx context.Context, chat *children.Chat, from int) (chatEvents, error) {
	if from < 0 {
		from = 0
	}
	all, err := s.src.Open(ctx)
	if err != nil {
		return chatEvents{}, err
	}
	open := []approvals.Request{}
	for _, r := range s.here(all) {
		if r.Chat == chat.ID {
			open = append(open, r)
		}
	}
	viewer := children.NewViewer(s.opts.StateDir, chat.Child.Session)
	sum := chatSummary(chat, viewer, len(open))
	evs, err := chat.Events(from, maxEventsRead)
	if err != nil {
		return chatEvents{}, err
	}
	out := chatEvents{Chat: sum, Events: []eventView{}, Next: from}
	for _, e := range evs {
		out.Events = append(out.Events, eventOf(viewer, e, chat.Child.WorkingDir))
		out.Next = e.Seq + 1
	}
	ended := sum.Status == string(children.Complete) || sum.Status == string(children.Failed)
	out.Done = ended && len(evs) < maxEventsRead
	return out, nil
}

// eventOf masks an event (children.Viewer: held tokens and
// session_token lines as stand-ins, hidden characters escaped) and renders
// its fields Visible.
func eventOf(v *children.Viewer, e children.Event, cwd string) eventView {
	j := gjson.Parse(v.JSON(e.Event))
	ev := eventView{Seq: e.Seq, Time: ms(e.Time), Type: vis(j.Get("type").Str)}
	text := ""
	switch ev.Type {
	case "start":
		text = j.Get("prompt").Str
		ev.Session, ev.Model = vis(j.Get("session").Str), vis(j.Get("model").Str)
	case "content":
		text = j.Get("text").Str
	case "tool_use":
		ev.Name, ev.ToolUseID = vis(j.Get("name").Str), vis(j.Get("id").Str)
		var cut int
		ev.Input, cut = shown(prettyJSON(j.Get("input").Raw), maxShown)
		if c := present.Of(approvals.Request{Tool: j.Get("name").Str, Input: j.Get("input").Raw, Cwd: cwd}); cut == 0 && c.Kind != present.KindArgs {
			ev.Card = &c
		}
	case "tool_result":
		ev.ToolUseID, ev.IsError = vis(j.Get("tool_use_id").Str), j.Get("is_error").Bool()
		text = j.Get("content").Str
	case "complete":
		ev.Status, ev.Error = vis(j.Get("status").Str), vis(j.Get("error").Str)
		text = j.Get("result").Str
	}
	ev.Text, ev.Cut = shown(visText(text), maxShown)
	return ev
}
