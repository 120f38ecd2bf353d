package inbox

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/children"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/present"
	"github.com/tidwall/gjson"
	"github.com/tidwall/pretty"
)

// Everything the page shows is made here, as JSON strings the script only
// puts into textContent: masked first (the queue's Viewer, children's
// Viewer), then every string made Visible (control and bidi characters as
// escapes), then cut where it is long. A value is never sent as a JSON
// object for the script to render: parsing it again would undo the escapes.

// maxShown bounds one string in a list (an input, an event's text); a
// request's whole input is one click away (GET /api/request), and an
// approval with a cut input cannot be allowed until it has been shown.
const maxShown = 64 << 10

// item is a request as the page shows it.
type item struct {
	ID string `json:"id"`
	// Machine names whose queue holds it ("" this one: Source).
	Machine string `json:"machine,omitempty"`
	// Unreachable: its machine's relay is silent; deciding it would fail.
	Unreachable bool `json:"unreachable,omitempty"`
	// Elsewhere: another machine's request; its rules are that machine's
	// (no "Always" on its card: Source).
	Elsewhere bool    `json:"elsewhere,omitempty"`
	Kind      string  `json:"kind"` // approval or question
	Mode      string  `json:"mode,omitempty"`
	Status    string  `json:"status"`
	Client    string  `json:"client"`
	Session   string  `json:"session,omitempty"`
	Origin    string  `json:"origin,omitempty"`
	Chat      string  `json:"chat,omitempty"`
	Child     string  `json:"child,omitempty"` // the chat's child, by name
	Tool      string  `json:"tool"`
	Input     string  `json:"input"` // indented JSON, stand-ins, escapes
	InputCut  int     `json:"input_cut,omitempty"`
	Fields    []field `json:"fields,omitempty"`
	// AnswerSchema is what a question's answer must be (the human tool's
	// answerSchema: type, choices, bounds); the page checks it before it
	// sends, the server again (apiAnswer).
	AnswerSchema *answerView `json:"answer_schema,omitempty"`
	// Card is the request as a person reads it (internal/present): the
	// command, diff, content or arguments; absent when the input is cut
	// (the page then shows the input box and its Show all).
	Card    *present.Card `json:"card,omitempty"`
	Cwd     string        `json:"cwd,omitempty"`
	Project string        `json:"project,omitempty"`
	Rule    string        `json:"rule,omitempty"` // the rule that decided it
	// RuleKind and RulePrefix are what a prefix rule made from the card
	// would narrow ("command" or "path") and its suggested prefix
	// (approvals.Suggest).
	RuleKind   string `json:"rule_kind,omitempty"`
	RulePrefix string `json:"rule_prefix,omitempty"`
	Created    int64  `json:"created"` // unix ms
	Deadline   int64  `json:"deadline,omitempty"`
	// Editable: the client can run an allowed call with new arguments.
	Editable  bool   `json:"editable,omitempty"`
	EditNote  string `json:"edit_note,omitempty"`
	Message   string `json:"message,omitempty"`
	Updated   string `json:"updated_input,omitempty"`
	Answer    string `json:"answer,omitempty"`
	DecidedBy string `json:"decided_by,omitempty"`
	DecidedAt int64  `json:"decided_at,omitempty"`
	Delivered string `json:"delivered_to,omitempty"`
}

// field is one property of a question's arguments, laid out by the human
// tool's declared input schema.
type field struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Type        string `json:"type,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Value       string `json:"value"`
	Missing     bool   `json:"missing,omitempty"` // the model did not send it
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// shown is s (already Visible) cut to n bytes (0: not cut) on a rune
// boundary; cut is the length before cutting, 0 when whole.
func shown(s string, n int) (out string, cut int) {
	if n <= 0 || len(s) <= n {
		return s, 0
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], len(s)
}

// vis is one line as a person may read it (approvals.Visible).
func vis(s string) string { return approvals.Visible(s) }

// visText is text of many lines (an answer, an assistant's words, a tool's
// result): each line Visible, the line breaks kept.
func visText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = vis(l)
	}
	return strings.Join(lines, "\n")
}

// prettyJSON is raw JSON indented, with every hidden character inside
// its strings as a \uXXXX escape (approvals.VisibleJSON): still the same
// JSON value, so the page's editor starts from text that parses back to
// the input.
func prettyJSON(raw string) string {
	if raw == "" || !gjson.Valid(raw) {
		return vis(raw)
	}
	p := strings.TrimRight(string(pretty.PrettyOptions([]byte(raw), &pretty.Options{Width: 80, Indent: "  "})), "\n")
	return visText(approvals.VisibleJSON(p)) // nothing left to escape; kept as the last word
}

// status is a request's status for people (as the CLI shows it).
func status(r approvals.Request, now time.Time) string {
	if r.Stale(now) {
		return "stale"
	}
	return string(r.Status)
}

// item renders a request already masked by the queue's Viewer. cutAt
// bounds the input shown (0: whole).
func (s *Server) item(r approvals.Request, names map[string]string, now time.Time, cutAt int) item {
	it := item{
		ID: r.ID, Kind: "approval", Status: status(r, now), Client: vis(r.Client), Session: vis(r.Session),
		Origin: vis(r.Origin), Chat: vis(r.Chat), Child: names[r.Chat], Tool: vis(r.Tool),
		Created: ms(r.Created), Deadline: ms(r.Deadline), Message: visText(r.Reason), DecidedBy: vis(r.DecidedBy),
		DecidedAt: ms(r.DecidedAt), Delivered: vis(r.DeliveredTo), Cwd: vis(r.Cwd), Project: vis(r.Project), Rule: vis(r.Rule),
	}
	it.Input, it.InputCut = shown(prettyJSON(r.Input), cutAt)
	if !r.IsInput() && it.InputCut == 0 && (cutAt == 0 || len(r.Input) <= cutAt) {
		c := present.Of(r)
		it.Card = &c
	}
	if r.UpdatedInput != "" {
		it.Updated = prettyJSON(r.UpdatedInput)
	}
	if r.IsInput() {
		it.Kind, it.Mode, it.Answer = "question", r.Mode, visText(r.Answer)
		it.Fields = fields(r.InputSchema, r.Input, cutAt)
		it.AnswerSchema = answerOf(r.AnswerSchema)
	} else if r.Status == approvals.Pending {
		it.Editable, it.EditNote = editable(r.Client)
		kind, prefix := approvals.Suggest(r)
		it.RuleKind, it.RulePrefix = kind, vis(prefix)
	}
	return it
}

// editable says whether the record's client runs an allowed call with new
// arguments, and a note where that depends (the client's description):
// every approve reply of internal/hooks (DecisionReply) takes new input on
// the pre-tool event, and so does Claude Code's permit route.
func editable(client string) (bool, string) {
	c, ok := hooks.FindClient(client)
	if !ok {
		return false, "interceptor does not know whether this client takes new input"
	}
	return true, c.NewInputCaveat
}

// fields lays a question's arguments out by its tool's input schema: each
// declared property in the schema's order, then any argument it does not
// declare. Without a schema (a record of an earlier version), each
// argument in order.
func fields(schema, input string, cutAt int) []field {
	args := gjson.Parse(input)
	var out []field
	seen := map[string]bool{}
	value := func(v gjson.Result) string {
		text := visText(v.Str)
		if v.Type != gjson.String {
			text = prettyJSON(v.Raw)
		}
		text, _ = shown(text, cutAt)
		return text
	}
	sch := gjson.Parse(schema)
	required := map[string]bool{}
	for _, r := range sch.Get("required").Array() {
		required[r.Str] = true
	}
	sch.Get("properties").ForEach(func(k, p gjson.Result) bool {
		seen[k.Str] = true
		v := args.Get(gjson.Escape(k.Str))
		f := field{Name: vis(k.Str), Title: vis(p.Get("title").Str), Description: vis(p.Get("description").Str),
			Type: vis(p.Get("type").String()), Required: required[k.Str], Missing: !v.Exists()}
		if v.Exists() {
			f.Value = value(v)
		}
		out = append(out, f)
		return true
	})
	args.ForEach(func(k, v gjson.Result) bool {
		if !seen[k.Str] {
			out = append(out, field{Name: vis(k.Str), Value: value(v)})
		}
		return true
	})
	return out
}

// childNames maps the chats of rs to their children's names (one child
// record read per child).
func (s *Server) childNames(rs []approvals.Request) map[string]string {
	names := map[string]string{}
	byChild := map[string]string{}
	for _, r := range rs {
		if r.Chat == "" {
			continue
		}
		if _, ok := names[r.Chat]; ok {
			continue
		}
		id, _, err := children.ParseChatID(r.Chat)
		if err != nil {
			continue
		}
		name, ok := byChild[id]
		if !ok {
			if c, err := s.kids.Get(id); err == nil {
				name = c.Name
			}
			byChild[id] = name
		}
		names[r.Chat] = vis(name)
	}
	return names
}

// pending is what waits for the person.
type pending struct {
	Now   int64  `json:"now"`
	Items []item `json:"items"`
}

func (s *Server) pendingView(ctx context.Context) (pending, error) {
	open, err := s.src.Open(ctx)
	if err != nil {
		return pending{}, err
	}
	return s.pendingOf(open), nil
}

// pendingOf is pendingView of the open requests, read (and masked)
// already. Only this machine's chats are looked up here; another
// machine's card names its child as its relay sent it.
func (s *Server) pendingOf(open []Open) pending {
	var here []approvals.Request
	for _, o := range open {
		if s.src.Here(o.Machine) && o.Child == "" {
			here = append(here, o.Request)
		}
	}
	names := s.childNames(here)
	now := time.Now()
	out := pending{Now: ms(now), Items: []item{}}
	for _, o := range open {
		n := names
		if !s.src.Here(o.Machine) {
			n = nil
		}
		it := s.item(o.Request, n, now, maxShown)
		if o.Child != "" {
			it.Child = vis(o.Child)
		}
		it.Machine, it.Unreachable = vis(o.Machine), o.Unreachable
		if !s.src.Here(o.Machine) {
			it.Elsewhere, it.RuleKind, it.RulePrefix = true, "", ""
		}
		out.Items = append(out.Items, it)
	}
	return out
}

// historyPage is one page of decided and expired requests.
type historyPage struct {
	Items []item `json:"items"`
	// Next is the cursor of the older page (before=Next), "" at the end.
	Next string `json:"next,omitempty"`
	// Scanned is how many records this page read; a search stops after
	// maxScan of them and says so with Next.
	Scanned int `json:"scanned"`
}

const (
	historyPageSize = 100
	defaultLimit    = 50
)

// maxScan bounds the records one history request reads (a var for tests).
var maxScan = 2000

// history returns up to limit closed requests older than before, newest
// first, that match query (every word, case-insensitively, in what the page
// shows of it: masked, so a token never matches). It reads the history a
// page at a time and at most maxScan records per call: a search of a long
// history goes on from Next.
func (s *Server) history(query, before string, limit int) (historyPage, error) {
	if limit <= 0 || limit > historyPageSize {
		limit = defaultLimit
	}
	words := strings.Fields(strings.ToLower(query))
	out := historyPage{Items: []item{}}
	v := s.src.Viewer()
	now := time.Now()
	cursor := before
	size := limit
	if len(words) > 0 {
		size = historyPageSize
	}
	for {
		p, err := s.src.History(size, cursor)
		if err != nil {
			return historyPage{}, err
		}
		rs := v.Requests(p.Requests)
		names := s.childNames(rs)
		for _, r := range rs {
			out.Scanned++
			cursor = r.ID
			it := s.item(r, names, now, 4<<10)
			if matches(it, words) {
				out.Items = append(out.Items, it)
			}
			if len(out.Items) == limit || out.Scanned >= maxScan {
				if r.ID != rs[len(rs)-1].ID || p.Next != "" {
					out.Next = r.ID
				}
				return out, nil
			}
		}
		if p.Next == "" {
			return out, nil
		}
	}
}

func matches(it item, words []string) bool {
	if len(words) == 0 {
		return true
	}
	hay := strings.ToLower(strings.Join([]string{it.ID, it.Kind, it.Mode, it.Status, it.Client, it.Session, it.Origin,
		it.Chat, it.Child, it.Tool, it.Input, it.Cwd, it.Project, it.Message, it.Updated, it.Answer, it.DecidedBy, it.Delivered}, "\n"))
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// answerView is a question's answerSchema as the page uses it: the type,
// the choices (one button each; a boolean's are true and false), the
// bounds. nil when the schema is absent or not one a declaration may give.
type answerView struct {
	Type      string   `json:"type"`
	Choices   []string `json:"choices,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   *float64 `json:"maximum,omitempty"`
	MinLength *int     `json:"min_length,omitempty"`
	MaxLength *int     `json:"max_length,omitempty"`
}

func answerOf(schema string) *answerView {
	s := gjson.Parse(schema)
	if schema == "" || approvals.CheckAnswerSchema(s) != nil {
		return nil
	}
	a := &answerView{Type: s.Get("type").Str}
	for _, v := range s.Get("enum").Array() {
		a.Choices = append(a.Choices, vis(v.String()))
	}
	if a.Type == "boolean" && a.Choices == nil {
		a.Choices = []string{"true", "false"}
	}
	num := func(k string) *float64 {
		if v := s.Get(k); v.Exists() {
			return &v.Num
		}
		return nil
	}
	whole := func(k string) *int {
		if v := s.Get(k); v.Exists() {
			n := int(v.Int())
			return &n
		}
		return nil
	}
	a.Minimum, a.Maximum, a.MinLength, a.MaxLength = num("minimum"), num("maximum"), whole("minLength"), whole("maxLength")
	return a
}
