package approvals

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// Standing rules: "always allow" or "always deny" a shape of call, in a
// scope, kept in the queue dir's rules.json. The approve hook reads that
// one file (bounded, maxRulesFile) before it queues anything: a call a
// rule decides never waits, and its decision goes to history naming the
// rule. A rules file that cannot be read or parsed denies the call with
// one line naming the file (approvals fail closed). A rule matches the
// client and the tool name exactly as the client spells it: an MCP tool's
// name carries its server (mcp__<server>__<tool> and the like), so a rule
// made for one server's tool never decides another server's.

const (
	rulesName    = "rules.json"
	rulesLock    = ".rules.lock"
	maxRulesFile = 1 << 20
	maxRules     = 1000
)

// Scopes of a rule.
const (
	ScopeSession    = "session"    // the session it was made in
	ScopeProject    = "project"    // every session of the project
	ScopeEverywhere = "everywhere" // every session of the client
)

// Rule is one standing decision.
type Rule struct {
	ID    string `json:"id"`
	Allow bool   `json:"allow"`
	Scope string `json:"scope"`
	// Session or Project the rule is for (by Scope).
	Session string `json:"session,omitempty"`
	Project string `json:"project,omitempty"`
	Client  string `json:"client"`
	Tool    string `json:"tool"`
	// CommandPrefix narrows a shell tool's rule to commands that are the
	// prefix, or the prefix then a space and more words with no shell
	// operator (; & | ` $( < > and line breaks): "git status" matches
	// "git status -s", never "git status; rm -rf ~".
	CommandPrefix string `json:"command_prefix,omitempty"`
	// Command narrows a shell tool's rule to exactly this command (leading
	// and trailing blanks aside): any command, operators and line breaks
	// included, since nothing can follow it.
	Command string `json:"command,omitempty"`
	// PathPrefix narrows a file tool's rule to files under this directory
	// (absolute; a relative file path is taken from the call's Cwd).
	PathPrefix string    `json:"path_prefix,omitempty"`
	Created    time.Time `json:"created"`
	By         string    `json:"by,omitempty"`
}

// Describe is the rule in one line, for history and lists.
func (r Rule) Describe() string {
	verb := "deny"
	if r.Allow {
		verb = "allow"
	}
	s := fmt.Sprintf("rule %s: always %s %s %s", r.ID, verb, r.Client, r.Tool)
	if r.CommandPrefix != "" {
		s += fmt.Sprintf(" command %q…", r.CommandPrefix)
	}
	if r.Command != "" {
		s += fmt.Sprintf(" exactly %q", r.Command)
	}
	if r.PathPrefix != "" {
		s += " under " + r.PathPrefix
	}
	switch r.Scope {
	case ScopeSession:
		s += " in session " + r.Session
	case ScopeProject:
		s += " in project " + r.Project
	default:
		s += " everywhere"
	}
	return s
}

// check refuses a rule that could not match as its maker meant.
func (r Rule) check() error {
	switch r.Scope {
	case ScopeSession:
		if r.Session == "" {
			return errors.New("a session rule needs the session")
		}
	case ScopeProject:
		if r.Project == "" {
			return errors.New("a project rule needs the project")
		}
	case ScopeEverywhere:
	default:
		return fmt.Errorf("scope %q: want session, project or everywhere", r.Scope)
	}
	if r.Client == "" || r.Tool == "" {
		return errors.New("a rule needs the client and the tool")
	}
	if r.CommandPrefix != "" && (r.PathPrefix != "" || strings.ContainsAny(r.CommandPrefix, shellOps)) {
		return fmt.Errorf("command prefix %q: no shell operators, and not with a path prefix", r.CommandPrefix)
	}
	if r.Command != "" && (r.CommandPrefix != "" || r.PathPrefix != "") {
		return errors.New("an exact command goes with no prefix")
	}
	if r.PathPrefix != "" && !filepath.IsAbs(r.PathPrefix) {
		return fmt.Errorf("path prefix %q: must be absolute", r.PathPrefix)
	}
	return nil
}

// shellOps are what join commands or redirect in a shell: a command
// prefix never covers a command that holds one after the prefix.
const shellOps = ";&|`$<>\n\r(){}\\"

// Matches reports whether the rule decides c.
func (r Rule) Matches(c Call) bool {
	if r.Client != c.Client || r.Tool != c.Tool {
		return false
	}
	switch r.Scope {
	case ScopeSession:
		if c.Session == "" || r.Session != c.Session {
			return false
		}
	case ScopeProject:
		if c.Project == "" || r.Project != c.Project {
			return false
		}
	case ScopeEverywhere:
	default:
		return false
	}
	in := gjson.Parse(c.Input)
	if r.CommandPrefix != "" {
		cmd := in.Get("command")
		if cmd.Type != gjson.String {
			return false
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(cmd.Str), r.CommandPrefix)
		if !ok || rest != "" && rest[0] != ' ' || strings.ContainsAny(rest, shellOps) {
			return false
		}
	}
	if r.Command != "" {
		cmd := in.Get("command")
		if cmd.Type != gjson.String || strings.TrimSpace(cmd.Str) != r.Command {
			return false
		}
	}
	if r.PathPrefix != "" {
		p := ""
		for _, k := range []string{"file_path", "filePath", "path"} {
			if v := in.Get(k); v.Type == gjson.String {
				p = v.Str
				break
			}
		}
		if p == "" || !filepath.IsAbs(p) && c.Cwd == "" {
			return false
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.Cwd, p)
		}
		rel, err := filepath.Rel(filepath.Clean(r.PathPrefix), filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return false
		}
	}
	return true
}

// RulesPath is the rules file.
func (s *Store) RulesPath() string { return filepath.Join(s.Dir(), rulesName) }

// rulesFile is the file's shape.
type rulesFile struct {
	Rules []Rule `json:"rules"`
}

// Rules reads the rules: none when there is no file; an error, naming the
// file, when it cannot be read or parsed (the hook then denies).
func (s *Store) Rules() ([]Rule, error) {
	if err := s.check(); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	data, err := privfs.ReadFile(s.RulesPath(), "approval rules file", maxRulesFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f rulesFile
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("approval rules file %s: %v", s.RulesPath(), err)
	}
	for i, r := range f.Rules {
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("approval rules file %s: rule %d (%s): %v", s.RulesPath(), i+1, r.ID, err)
		}
	}
	return f.Rules, nil
}

// Ruling is the rule that decides c: deny rules first, so an allow never
// overrides a deny; nil when none does.
func Ruling(rules []Rule, c Call) *Rule {
	for _, allow := range []bool{false, true} {
		for i := range rules {
			if rules[i].Allow == allow && rules[i].Matches(c) {
				return &rules[i]
			}
		}
	}
	return nil
}

// AddRule stores a new rule and returns it with its id and time set.
func (s *Store) AddRule(r Rule) (Rule, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Rule{}, err
	}
	r.ID, r.Created = "r"+hex.EncodeToString(b[:]), s.clock().UTC()
	if err := r.check(); err != nil {
		return Rule{}, err
	}
	err := s.editRules(func(rs []Rule) ([]Rule, error) {
		if len(rs) >= maxRules {
			return nil, fmt.Errorf("%d rules already; revoke some first", len(rs))
		}
		return append(rs, r), nil
	})
	return r, err
}

// RevokeRule removes a rule by id and returns it.
func (s *Store) RevokeRule(id string) (Rule, error) {
	var gone Rule
	err := s.editRules(func(rs []Rule) ([]Rule, error) {
		for i, r := range rs {
			if r.ID == id {
				gone = r
				return append(rs[:i:i], rs[i+1:]...), nil
			}
		}
		return nil, fmt.Errorf("no rule %q", id)
	})
	return gone, err
}

// editRules changes the rules file under its lock: written whole aside and
// renamed over it (synced), so a hook reads the old rules or the new.
func (s *Store) editRules(fn func([]Rule) ([]Rule, error)) error {
	if err := s.ensure(); err != nil {
		return err
	}
	return privfs.Locked(filepath.Join(s.Dir(), rulesLock), "approval rules", s.LockTimeout, func() error {
		rs, err := s.Rules()
		if err != nil {
			return err
		}
		if rs, err = fn(rs); err != nil {
			return err
		}
		data, err := json.MarshalIndent(rulesFile{Rules: append([]Rule{}, rs...)}, "", "  ")
		if err != nil {
			return err
		}
		return privfs.WriteFile(s.RulesPath(), "approval rules file", append(data, '\n'), privfs.WriteOptions{Sync: true})
	})
}

// ProjectOf is the project of a session working in cwd: dir when the
// client names it (Claude Code's CLAUDE_PROJECT_DIR), else the nearest
// directory at or above cwd that holds .git, else cwd. It stats at most
// one entry per level of cwd.
func ProjectOf(dir, cwd string) string {
	if dir != "" {
		return filepath.Clean(dir)
	}
	if cwd == "" || !filepath.IsAbs(cwd) {
		return cwd
	}
	for d, n := filepath.Clean(cwd), 0; n < 64; n++ {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	return filepath.Clean(cwd)
}

// ruled is the decision rule makes on c, put in history first as a
// decided request naming the rule (written whole and linked there under a
// fresh id: no lock, no open record a page would flash). A history that
// cannot be written denies the call: an unrecorded decision is not made.
func (s *Store) ruled(c Call, rule Rule) (hooks.Decision, error) {
	secrets := LoadSecrets(c.Tokens, c.Session, c.Key)
	now := s.clock()
	r := Request{
		Client: c.Client, Session: c.Session, Tool: c.Tool, Input: secrets.Mask(c.Input), Created: now,
		Origin: c.Origin, Chat: c.Chat, ToolUseID: c.ToolUseID, Cwd: c.Cwd, Project: c.Project,
		Status: Denied, DecidedBy: rule.Describe(), DecidedAt: now, Rule: rule.ID,
	}
	if rule.Allow {
		r.Status = Allowed
	} else {
		r.Reason = fmt.Sprintf("%s is denied by a standing rule (%s)", c.Tool, rule.Describe())
	}
	secrets.MaskStrings(&r.Tool, &r.Origin, &r.Chat, &r.ToolUseID, &r.Cwd, &r.Project)
	if r.Input == "" || !gjson.Valid(r.Input) {
		r.Input = "{}"
	}
	r.Input = rawjson.OneLine(r.Input)
	if err := s.ensure(); err != nil {
		return hooks.Decision{}, err
	}
	var err error
	for range 3 {
		if r.ID, err = newID(now); err != nil {
			return hooks.Decision{}, fmt.Errorf("making an id: %w", err)
		}
		var data []byte
		if data, err = encode(r); err != nil {
			return hooks.Decision{}, err
		}
		var tmp string
		if tmp, err = s.stage(data); err != nil {
			return hooks.Decision{}, err
		}
		if _, lerr := os.Lstat(s.openPath(r.ID)); lerr == nil {
			os.Remove(tmp)
			continue
		}
		err = os.Link(tmp, s.historyPath(r.ID))
		os.Remove(tmp)
		if err == nil {
			return hooks.Decision{Allow: rule.Allow, Reason: r.Reason, By: "request " + r.ID + " " + string(r.Status) + " by " + r.DecidedBy}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return hooks.Decision{}, fmt.Errorf("approval record %s: %w", s.historyPath(r.ID), err)
		}
	}
	return hooks.Decision{}, fmt.Errorf("approval record: %w", err)
}

// Shapes of a rule made from a request (RuleFor).
const (
	ShapeTool    = "tool"    // every call of the tool
	ShapePrefix  = "prefix"  // the tool with this command or path prefix
	ShapeCommand = "command" // the tool with exactly this command
)

// RuleFor makes the rule "always allow (or deny) calls like r" in scope:
// r's client and tool, r's session or project by scope; with ShapePrefix,
// prefix narrows it to commands (a shell tool: r's input has a command) or
// files (r's input names a file) that start with it ("" suggests one:
// Suggest).
func RuleFor(r Request, allow bool, scope, shape, prefix, by string) (Rule, error) {
	rule := Rule{Allow: allow, Scope: scope, Client: r.Client, Tool: r.Tool, By: by}
	switch scope {
	case ScopeSession:
		rule.Session = r.Session
	case ScopeProject:
		rule.Project = r.Project
	}
	switch shape {
	case ShapeTool:
	case ShapeCommand:
		cmd := gjson.Get(r.Input, "command")
		if cmd.Type != gjson.String || strings.TrimSpace(cmd.Str) == "" {
			return Rule{}, fmt.Errorf("request %s: %s has no command", r.ID, r.Tool)
		}
		rule.Command = strings.TrimSpace(cmd.Str)
	case ShapePrefix:
		kind, suggested := Suggest(r)
		if prefix == "" {
			prefix = suggested
		}
		switch kind {
		case "command":
			rule.CommandPrefix = prefix
		case "path":
			rule.PathPrefix = prefix
		default:
			return Rule{}, fmt.Errorf("request %s: %s has no command or file to take a prefix of", r.ID, r.Tool)
		}
		if prefix == "" {
			return Rule{}, fmt.Errorf("request %s: no prefix", r.ID)
		}
	default:
		return Rule{}, fmt.Errorf("shape %q: want tool, command or prefix", shape)
	}
	return rule, rule.check()
}

// Suggest says what a prefix rule for r would narrow (kind "command" or
// "path", "" neither) and the prefix a person most likely means: the whole
// command when it holds no shell operator (else its words before the
// first), the directory of the file.
func Suggest(r Request) (kind, prefix string) {
	in := gjson.Parse(r.Input)
	if cmd := in.Get("command"); cmd.Type == gjson.String {
		c := strings.TrimSpace(cmd.Str)
		if i := strings.IndexAny(c, shellOps); i >= 0 {
			c = strings.TrimSpace(c[:i])
		}
		return "command", c
	}
	for _, k := range []string{"file_path", "filePath", "path"} {
		if v := in.Get(k); v.Type == gjson.String && v.Str != "" {
			p := v.Str
			if !filepath.IsAbs(p) {
				if r.Cwd == "" {
					return "path", ""
				}
				p = filepath.Join(r.Cwd, p)
			}
			return "path", filepath.Dir(filepath.Clean(p))
		}
	}
	return "", ""
}
