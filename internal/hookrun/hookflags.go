package hookrun

import (
	"strings"

	"github.com/interceptor-dev/interceptor/internal/approvals"
	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// Cmds is a set of hook commands.
type Cmds uint8

const (
	CmdInject Cmds = 1 << iota
	CmdCapture
	CmdClear
	CmdDeliver
	CmdApprove
)

// FlagKind is how a hook flag's value is read.
type FlagKind uint8

const (
	FlagString FlagKind = iota + 1
	FlagBool
	FlagDuration // time.ParseDuration
	// FlagArray repeats, each value whole (no comma splits it): the first
	// given replaces the default, later ones add.
	FlagArray
)

// HookFlag is one flag of the hook commands that is no handle option
// (those are carry.Table's): one entry of HookFlags.
type HookFlag struct {
	Name string // without "--"
	Kind FlagKind
	Cmds Cmds // the hook commands that take it
	// Default is the value without the flag: a string, bool or
	// time.Duration as Kind says (nil: the zero value).
	Default any
	// Help is the flag's help; ApproveHelp replaces it for approve
	// ("": the same).
	Help, ApproveHelp string
	// Env says INTERCEPTOR_<NAME> may set it (EnvFlag: by name, in every
	// command of every binary).
	Env bool
	// hook and approve are pointers to the field the flag sets in the
	// options of inject, capture, clear and deliver, and of approve:
	// *string, *bool, *time.Duration or *[]string (nil: no such field).
	hook    func(*Flags) any
	approve func(*ApproveFlags) any
}

// HookFlags are the hook commands' flags besides the handle options, from
// which both of their parsers register them: interceptor-hook's (argv.go)
// and interceptor's cobra commands (internal/cli). A new hook flag is one
// entry here and its field in Flags or ApproveFlags.
var HookFlags = []HookFlag{
	{Name: "client", Kind: FlagString, Cmds: allHooks, Default: "auto",
		Help: "the client sending the event: auto, " + clientNamesMark,
		hook: func(h *Flags) any { return &h.Client }, approve: func(a *ApproveFlags) any { return &a.Client }},
	{Name: "state-dir", Kind: FlagString, Cmds: allHooks, Env: true,
		Help:        "where tokens are kept",
		ApproveHelp: "state dir holding the approval queue and the tokens kept out of its records",
		hook:        func(h *Flags) any { return &h.StateDir }, approve: func(a *ApproveFlags) any { return &a.StateDir }},
	{Name: "debug-log", Kind: FlagString, Cmds: allHooks, Env: true,
		Help:        "append a trace of each run to this file (tokens masked)",
		ApproveHelp: "append a trace of each run to this file",
		hook:        func(h *Flags) any { return &h.DebugLog }, approve: func(a *ApproveFlags) any { return &a.DebugLog }},
	{Name: "expire-on-session-end", Kind: FlagBool, Cmds: CmdDeliver,
		Help: "on a session-end event, expire the session's open human tool requests",
		hook: func(h *Flags) any { return &h.Expire }},
	{Name: "match", Kind: FlagString, Cmds: CmdApprove,
		Help:    "only tools whose name matches this regex need approval (default: all)",
		approve: func(a *ApproveFlags) any { return &a.Match }},
	{Name: "allow", Kind: FlagArray, Cmds: CmdApprove,
		Help:    "allow tools whose name matches this regex without asking (repeatable)",
		approve: func(a *ApproveFlags) any { return &a.Allow }},
	{Name: "deny", Kind: FlagArray, Cmds: CmdApprove,
		Help:    "deny tools whose name matches this regex without asking; wins over --allow (repeatable)",
		approve: func(a *ApproveFlags) any { return &a.Deny }},
	{Name: "timeout", Kind: FlagDuration, Cmds: CmdApprove, Default: approvals.DefaultTimeout,
		Help:    "how long to wait for a decision",
		approve: func(a *ApproveFlags) any { return &a.Timeout }},
	{Name: "on-timeout", Kind: FlagString, Cmds: CmdApprove, Default: "deny",
		Help:    "what an undecided call gets after --timeout: deny or allow",
		approve: func(a *ApproveFlags) any { return &a.OnTimeout }},
	// interceptor children tags a child's requests with it (children.ChatEnv).
	{Name: "chat", Kind: FlagString, Cmds: CmdApprove, Env: true,
		Help:    "tag requests with this child chat (interceptor children sets INTERCEPTOR_CHAT)",
		approve: func(a *ApproveFlags) any { return &a.Chat }},
	{Name: "arg", Kind: FlagString, Cmds: CmdApprove, Default: approvals.DefaultKey,
		Help:    "the token argument: the queue shows a stand-in for any value under it, and for any token held for the session",
		approve: func(a *ApproveFlags) any { return &a.Arg }},
}

const allHooks = CmdInject | CmdCapture | CmdClear | CmdDeliver | CmdApprove

// clientNamesMark ends --client's help: Usage puts the clients' names
// there (hooks.ClientNames, which HookFlags must not call at init: a hook
// pays for every package-level call at start-up).
const clientNamesMark = "CLIENTS"

// Field is a pointer to the field f sets in a command's options: in a for
// approve (a not nil), else in h.
func (f *HookFlag) Field(h *Flags, a *ApproveFlags) any {
	if a != nil {
		return f.approve(a)
	}
	return f.hook(h)
}

// Usage is f's help in the command c.
func (f *HookFlag) Usage(c Cmds) string {
	help := f.Help
	if c == CmdApprove && f.ApproveHelp != "" {
		help = f.ApproveHelp
	}
	return strings.Replace(help, clientNamesMark, strings.Join(hooks.ClientNames(), ", "), 1)
}

// CmdOf is the hook command named name (0: none).
func CmdOf(name string) Cmds {
	switch name {
	case "inject":
		return CmdInject
	case "capture":
		return CmdCapture
	case "clear":
		return CmdClear
	case "deliver":
		return CmdDeliver
	case "approve":
		return CmdApprove
	}
	return 0
}
