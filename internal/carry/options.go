package carry

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/privfs"
	"github.com/interceptor-dev/interceptor/internal/token"
)

// Options say which servers' handles are carried and how, for hook mode
// (inject, capture, clear) and proxy mode alike. Each field is one Option of
// Table, which is where its flag, environment variable, install's argv and
// doctor's reading of it come from; Pattern and Handles are what Resolve
// makes of TokenPattern and HandlesFile.
type Options struct {
	Servers []string // the handle servers; tools of any other server are left alone
	// NotServers are configured servers whose tool names could be read as a
	// server's too (Codex's mcp__wf__admin__drop may be server wf__admin):
	// a tool that matches one of them is never given a handle.
	NotServers   []string
	Arg          string   // the argument the value goes into
	MetaKey      string   // the key the server returns the value under
	MinLen       int      // shortest value taken from a prose line
	TokenPattern string   // a regular expression a value must match whole ("": none)
	HandlesFile  string   // a --handles file ("": the one handle the fields above describe)
	SkipTools    []string // tools never given the latest value (e.g. start_session)
	StartTools   []string // tools that start a session: one that returns no value retires the old one
	KeepIf       []string // arguments that, when present, mean the call needs no value
	// Sessionless lets events that carry no session id use the server's
	// current record, which every capture then also writes: the last value
	// any session captured. Off, such events get and keep nothing (every
	// client observed sends a session id).
	Sessionless bool
	Redact      bool // replace values with stand-ins in what the model reads

	Pattern *regexp.Regexp // TokenPattern compiled (Resolve)
	// Handles are the values carried, from HandlesFile (Resolve); nil: the
	// one handle the fields above describe (token.FlagSpec).
	Handles []token.Spec

	given map[string]bool // the options Set named
}

// Kind is the type of an option's value, as a flag parser reads it.
type Kind uint8

const (
	String Kind = iota + 1
	Int
	Bool
	// List is a repeatable option: each value is comma-separated (CSV
	// quoted where it holds a comma or a quote); the first one given
	// replaces the default, later ones add to it.
	List
)

// Commands is the set of commands that take an option.
type Commands uint8

const (
	Inject Commands = 1 << iota
	Capture
	Clear
	Deliver
	Proxy
)

// Option is one handle option: one entry of Table.
type Option struct {
	Name    string // the flag's name, without "--"
	Kind    Kind
	Default string // the value without the flag, as it would be given ("": none)
	Help    string // the flag's help (inject, capture, clear, proxy)
	Takers  Commands
	// Env says INTERCEPTOR_<NAME> may set it (a variable is inherited by
	// every process below the shell that set it: none may widen what runs
	// unasked).
	Env bool
	// Agree says inject and capture must be given the same value: capture
	// stores what inject reads (doctor fails a server where they differ).
	Agree bool
	// ByHandles says a --handles file replaces it (the two may not be mixed).
	ByHandles bool
	// Install is install's help for the flag that passes it to the hooks
	// it writes ("": install takes no flag for it).
	Install string
	field   func(*Options) any // a pointer to the field the option sets
}

// defaultMinLen is token.DefaultMinLen as --min-token-length's Default
// (TestDefaults keeps them one): a constant, not strconv.Itoa, so
// Table is static data and costs a hook's start-up nothing to build.
const defaultMinLen = "20"

// hookTakers are the commands that read what is carried.
const hookTakers = Inject | Capture | Proxy

// Table is every handle option, in the order install writes them. A new
// option is one entry here and one field of Options.
var Table = []Option{
	{Name: "server", Kind: List, Takers: Inject | Capture | Clear | Deliver, Env: true,
		Help:  "name of the token server as configured in the client (repeatable)",
		field: func(o *Options) any { return &o.Servers }},
	{Name: "not-server", Kind: List, Takers: Inject | Capture, Env: true,
		Help:  "another configured server whose tool names could be read as --server's (e.g. wf__admin beside wf): its tools never get a token (repeatable)",
		field: func(o *Options) any { return &o.NotServers }},
	{Name: "redact", Kind: Bool, Takers: Capture, Env: true,
		Help:    "remove the token from the result the model reads, where the client allows",
		Install: "capture with --redact",
		field:   func(o *Options) any { return &o.Redact }},
	{Name: "arg", Kind: String, Default: "session_token", Takers: hookTakers, Env: true, Agree: true, ByHandles: true,
		Help:    "tool argument the value is injected into (alone, it names --meta-key too)",
		Install: "pass --arg to the hooks (alone, it names --meta-key too)",
		field:   func(o *Options) any { return &o.Arg }},
	{Name: "meta-key", Kind: String, Default: "session_token", Takers: hookTakers, Env: true, Agree: true, ByHandles: true,
		Help:    "key the server returns the value under (_meta, structuredContent, JSON text, `key: value` lines); default: --arg",
		Install: "pass --meta-key to the hooks",
		field:   func(o *Options) any { return &o.MetaKey }},
	{Name: "min-token-length", Kind: Int, Default: defaultMinLen, Takers: hookTakers, Env: true, Agree: true, ByHandles: true,
		Help:    "shortest value taken from a `key: value` text line (values under the key in _meta or JSON are taken as they are)",
		Install: "pass --min-token-length to the hooks",
		field:   func(o *Options) any { return &o.MinLen }},
	{Name: "token-pattern", Kind: String, Takers: hookTakers, Env: true, Agree: true, ByHandles: true,
		Help:    "regular expression a value must match whole; replaces the length and letters-and-digits rules for text lines",
		Install: "pass --token-pattern to the hooks",
		field:   func(o *Options) any { return &o.TokenPattern }},
	{Name: "handles", Kind: String, Takers: hookTakers, Env: true, Agree: true,
		Help:    "JSON file declaring the server's handles (docs/handles.md); replaces --arg, --meta-key, --token-pattern, --min-token-length, --skip-tool, --start-tool and --keep-if",
		Install: "pass --handles FILE to the hooks (made absolute; docs/handles.md)",
		field:   func(o *Options) any { return &o.HandlesFile }},
	{Name: "skip-tool", Kind: List, Default: "start_session", Takers: hookTakers, Env: true, Agree: true, ByHandles: true,
		Help:    "tool never injected (repeatable)",
		Install: "pass --skip-tool to the hooks (repeatable)",
		field:   func(o *Options) any { return &o.SkipTools }},
	{Name: "start-tool", Kind: List, Default: "start_session", Takers: hookTakers, Env: true, Agree: true, ByHandles: true,
		Help:    "tool that starts a session: when its result carries no value, the one held before is no longer injected (repeatable)",
		Install: "pass --start-tool to the hooks (repeatable)",
		field:   func(o *Options) any { return &o.StartTools }},
	{Name: "keep-if", Kind: List, Takers: hookTakers, Env: true, Agree: true, ByHandles: true,
		Help:    "do not inject when the call already carries this argument besides --arg (repeatable; e.g. checkpoint_handle for a server where a handle replaces the token)",
		Install: "pass --keep-if to the hooks (repeatable)",
		field:   func(o *Options) any { return &o.KeepIf }},
	{Name: "sessionless", Kind: Bool, Takers: Inject | Capture | Clear | Deliver, Agree: true,
		Help:    "let events that carry no session id share the server's latest values (every capture then also writes them); off, such events get and keep nothing",
		Install: "pass --sessionless to the hooks (events without a session id share the server's latest values)",
		field:   func(o *Options) any { return &o.Sessionless }},
}

// Lookup returns the option named name.
func Lookup(name string) (*Option, bool) {
	for i := range Table {
		if Table[i].Name == name {
			return &Table[i], true
		}
	}
	return nil, false
}

// Field returns a pointer to the field of o that opt sets: *string, *int,
// *bool or *[]string, as opt.Kind says (a flag parser binds to it).
func (opt *Option) Field(o *Options) any { return opt.field(o) }

// Defaults are the options before any is given: each option's Default.
func Defaults() Options {
	var o Options
	for i := range Table {
		if opt := &Table[i]; opt.Default != "" {
			if err := opt.set(&o, opt.Default, false); err != nil {
				panic(fmt.Sprintf("carry: the default of --%s: %v", opt.Name, err))
			}
		}
	}
	return o
}

// DefaultValue is opt's Default as its field's type: string, int, bool or
// []string (nil for a list without one).
func (opt *Option) DefaultValue() any {
	var o Options
	if opt.Default != "" {
		if err := opt.set(&o, opt.Default, false); err != nil {
			panic(fmt.Sprintf("carry: the default of --%s: %v", opt.Name, err))
		}
	}
	switch p := opt.field(&o).(type) {
	case *string:
		return *p
	case *int:
		return *p
	case *bool:
		return *p
	case *[]string:
		return *p
	}
	return nil
}

// Set sets the option named name from value, as a flag parser reads the
// flag: a number in Go's syntax, a bool as strconv.ParseBool reads it
// ("" for a bool given alone: true), a list's comma-separated values (its
// first Set replaces the default, later ones add). It refuses a name
// that is no option and a value of the wrong type, naming the option.
func (o *Options) Set(name, value string) error {
	opt, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("unknown option --%s", name)
	}
	if err := opt.set(o, value, o.given[name]); err != nil {
		return fmt.Errorf("invalid argument %q for --%s: %w", value, name, err)
	}
	if o.given == nil {
		o.given = map[string]bool{}
	}
	o.given[name] = true
	return nil
}

// Given reports whether Set set the option named name.
func (o Options) Given(name string) bool { return o.given[name] }

// set parses value into opt's field of o; add appends to a list.
func (opt *Option) set(o *Options, value string, add bool) error {
	switch p := opt.field(o).(type) {
	case *string:
		*p = value
	case *int:
		n, err := strconv.ParseInt(value, 0, 64)
		if err != nil {
			return err
		}
		*p = int(n)
	case *bool:
		if value == "" {
			value = "true"
		}
		b, err := strconv.ParseBool(value)
		if err != nil {
			return err
		}
		*p = b
	case *[]string:
		vals, err := ReadList(value)
		if err != nil {
			return err
		}
		if add {
			vals = append(*p, vals...)
		}
		*p = vals
	}
	return nil
}

// ReadList reads one value of a list option: comma-separated, CSV quoted
// ("" is the empty list).
func ReadList(value string) ([]string, error) {
	if value == "" {
		return []string{}, nil
	}
	if !strings.ContainsAny(value, "\"\r\n") {
		// No quote and one line: CSV's fields are the comma-separated
		// parts as they are. Every hook reads its --server and the lists'
		// defaults, and a csv.Reader costs a 4 KiB buffer each.
		return strings.Split(value, ","), nil
	}
	return csv.NewReader(strings.NewReader(value)).Read()
}

// Resolve makes the options ready to use; given says which options the
// user gave (a flag parser's Changed, or o.Given). --arg alone names
// --meta-key too; --handles is read (only then: a hook without it reads no
// file) and may not be mixed with the options it replaces; --token-pattern
// is compiled.
func (o *Options) Resolve(given func(name string) bool) error {
	if given("arg") && !given("meta-key") {
		o.MetaKey = o.Arg
	}
	if o.HandlesFile != "" {
		if err := o.CheckHandlesAlone(given); err != nil {
			return err
		}
		specs, err := ReadHandles(o.HandlesFile)
		if err != nil {
			return err
		}
		o.Handles = specs
		return nil
	}
	if o.TokenPattern != "" {
		re, err := token.CompilePattern(o.TokenPattern)
		if err != nil {
			return err
		}
		o.Pattern = re
	}
	return nil
}

// CheckHandlesAlone refuses --handles beside an option it replaces.
func (o *Options) CheckHandlesAlone(given func(name string) bool) error {
	for i := range Table {
		if Table[i].ByHandles && given(Table[i].Name) {
			return fmt.Errorf("--handles replaces --%s: declare it in %s instead", Table[i].Name, o.HandlesFile)
		}
	}
	return nil
}

// ReadHandles reads a --handles file.
func ReadHandles(path string) ([]token.Spec, error) {
	data, _, err := privfs.ReadRegular(path, "handles file", token.MaxHandlesFile)
	if errors.Is(err, fs.ErrNotExist) {
		if !filepath.IsAbs(path) {
			// A hook runs in the client's working dir, not the one the
			// path was written for.
			wd, _ := os.Getwd()
			return nil, fmt.Errorf("--handles %s: no such file in the current dir (%s); give its absolute path", path, wd)
		}
		return nil, fmt.Errorf("--handles %s: no such file", path)
	}
	if err != nil {
		return nil, err
	}
	return token.ParseHandles(data, path)
}

// Specs are the handles the options carry.
func (o Options) Specs() []token.Spec {
	if o.Handles != nil {
		return o.Handles
	}
	return []token.Spec{token.FlagSpec(o.Arg, o.MetaKey, o.MinLen, o.Pattern, o.StartTools, o.SkipTools, o.KeepIf)}
}

// ValidateHandles checks what is carried, so a typo is reported once and
// clearly instead of as a silent no-op.
func (o Options) ValidateHandles() error {
	if o.Handles != nil {
		return token.CheckAll(o.Handles)
	}
	if err := token.ValidateKey(o.Arg); err != nil {
		return fmt.Errorf("--arg: %w", err)
	}
	if err := token.ValidateKey(o.MetaKey); err != nil {
		return fmt.Errorf("--meta-key: %w", err)
	}
	return nil
}

// Validate is ValidateHandles for a hook, which also needs the servers.
func (o Options) Validate() error {
	if len(o.Servers) == 0 {
		return errors.New("--server is required (or INTERCEPTOR_SERVER)")
	}
	for _, s := range o.Servers {
		if s == "" {
			return errors.New("--server names an empty server")
		}
	}
	return o.ValidateHandles()
}

// ValidateHooks is Validate for hook mode, where no tool schema says which
// tools take a handle: a handles file must name them (to.tools, to.match).
func (o Options) ValidateHooks() error {
	if err := o.Validate(); err != nil {
		return err
	}
	for _, s := range o.Handles {
		if !s.Declared() {
			return fmt.Errorf("handle %q: hooks need \"to\" (to.tools or to.match: the tools that take it); only the proxy learns them from tools/list", s.Name)
		}
	}
	return nil
}
