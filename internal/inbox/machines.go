package inbox

import (
	"encoding/json"
	"sort"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
)

// Other machines' children (issue 34): each machine's relay publishes its
// children as this machine's page lists them (ChildrenJSON: names,
// clients, chats' states and masked prompts, never a held value), and a
// page on NATS lists them after its own, each naming its machine. A
// chat's events stay on its machine: only the summaries cross.

// MachineChildren is another machine's children as its relay published
// them.
type MachineChildren struct {
	Machine     string
	Unreachable bool            // its relay has gone silent
	Children    json.RawMessage // its ChildrenJSON
}

// ChildrenElsewhere is a Source that knows other machines' children (the
// relay's Inbox). OtherChildren is each machine's it has heard of; the
// page skips the one Here.
type ChildrenElsewhere interface {
	OtherChildren() []MachineChildren
}

// maxRemoteChildren bounds what one machine's summary adds to the page.
const maxRemoteChildren = 200

// ChildrenJSON is the children of the state dir, as this machine's page
// lists them (open: the queue's open requests, to count what waits in
// each chat), for its relay to publish.
func ChildrenJSON(stateDir string, open []approvals.Request) ([]byte, error) {
	l, err := childrenIn(children.New(stateDir), stateDir, open)
	if err != nil {
		return nil, err
	}
	return json.Marshal(l)
}

// withElsewhere adds the other machines' children, when the source knows
// them, after this machine's, by machine name. What another machine sent
// is made Visible again here: its relay is not trusted with this page.
func (s *Server) withElsewhere(l childrenList) childrenList {
	src, ok := s.src.(ChildrenElsewhere)
	if !ok {
		return l
	}
	others := src.OtherChildren()
	sort.Slice(others, func(i, j int) bool { return others[i].Machine < others[j].Machine })
	for _, m := range others {
		if s.src.Here(m.Machine) || len(m.Children) == 0 {
			continue
		}
		var theirs childrenList
		if json.Unmarshal(m.Children, &theirs) != nil {
			continue
		}
		if len(theirs.Children) > maxRemoteChildren {
			theirs.Children = theirs.Children[:maxRemoteChildren]
		}
		for _, c := range theirs.Children {
			c = visibleChild(c)
			c.Machine, c.Unreachable = vis(m.Machine), m.Unreachable
			l.Children = append(l.Children, c)
		}
	}
	return l
}

// visibleChild is c with every string Visible and at most maxChats chats.
func visibleChild(c childView) childView {
	c.ID, c.Name, c.Client, c.WorkingDir, c.Model = vis(c.ID), vis(c.Name), vis(c.Client), vis(c.WorkingDir), vis(c.Model)
	if len(c.Chats) > maxChats {
		c.Chats = c.Chats[:maxChats]
	}
	chats := make([]chatView, 0, len(c.Chats))
	for _, ch := range c.Chats {
		ch.ID, ch.Child, ch.Client, ch.Status = vis(ch.ID), vis(ch.Child), vis(ch.Client), vis(ch.Status)
		ch.Prompt, _ = shown(vis(ch.Prompt), 300)
		chats = append(chats, ch)
	}
	c.Chats = chats
	return c
}
