package hookrun

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
)

// The hook commands' flags, read without cobra or pflag for
// interceptor-hook, as pflag reads them in interceptor: --name value,
// --name=value, a bool alone, -h or --help; a list repeats. Every flag
// comes from a table both parsers register from: the handle options from
// carry.Table (set by carry.Options.Set), the others from HookFlags. The
// environment fills what EnvFlag allows, by ApplyEnv, as internal/cli's
// root does. TestHookArgvMatchesCobra (internal/cli) runs both parsers on
// the same argv and environment and compares what they read.

// ErrHelp is -h or --help: print the help and exit 0.
var ErrHelp = errors.New("help requested")

// flag is one flag of a command, as the parser reads it.
type flag struct {
	isBool bool
	set    func(string) error
}

// flagSet is one hook command's flags; changed are those given, on the
// command line or by the environment.
type flagSet struct {
	cmd     string
	flags   map[string]*flag
	changed map[string]bool
}

func newFlagSet(cmd string) *flagSet {
	return &flagSet{cmd: cmd, flags: map[string]*flag{}, changed: map[string]bool{}}
}

// hookFlags adds the flags of HookFlags that the command c takes, each
// at its default, bound to h (approve: a).
func (s *flagSet) hookFlags(c Cmds, h *Flags, a *ApproveFlags) {
	for i := range HookFlags {
		hf := &HookFlags[i]
		if hf.Cmds&c == 0 {
			continue
		}
		name := hf.Name
		switch p := hf.Field(h, a).(type) {
		case *string:
			*p, _ = hf.Default.(string)
			s.flags[name] = &flag{set: func(v string) error { *p = v; return nil }}
		case *bool:
			*p, _ = hf.Default.(bool)
			s.flags[name] = &flag{isBool: true, set: func(v string) error {
				b, err := strconv.ParseBool(v)
				if err == nil {
					*p = b
				}
				return err
			}}
		case *time.Duration:
			*p, _ = hf.Default.(time.Duration)
			s.flags[name] = &flag{set: func(v string) error {
				d, err := time.ParseDuration(v)
				if err == nil {
					*p = d
				}
				return err
			}}
		case *[]string:
			*p = nil
			s.flags[name] = &flag{set: func(v string) error {
				if s.changed[name] {
					*p = append(*p, v)
				} else {
					*p = []string{v}
				}
				return nil
			}}
		}
	}
}

// carried adds the handle options of carry.Table that commands take,
// each at its default and set through o.Set.
func (s *flagSet) carried(o *carry.Options, takes carry.Commands) {
	for i := range carry.Table {
		opt := &carry.Table[i]
		if opt.Takers&takes == 0 {
			continue
		}
		setDefault(opt, o)
		s.flags[opt.Name] = &flag{isBool: opt.Kind == carry.Bool, set: func(v string) error {
			if opt.Kind == carry.Bool && v == "" {
				// Set reads "" as a bool given alone; pflag refuses
				// --redact= and INTERCEPTOR_REDACT="".
				_, err := strconv.ParseBool(v)
				return err
			}
			if err := o.Set(opt.Name, v); err != nil {
				return errors.Unwrap(err) // Set names the option; set names the flag
			}
			return nil
		}}
	}
}

// setDefault puts opt's default into its field of o.
func setDefault(opt *carry.Option, o *carry.Options) {
	switch p := opt.Field(o).(type) {
	case *string:
		*p = opt.DefaultValue().(string)
	case *int:
		*p = opt.DefaultValue().(int)
	case *bool:
		*p = opt.DefaultValue().(bool)
	case *[]string:
		*p = opt.DefaultValue().([]string)
	}
}

// set sets the flag name from value, as pflag's FlagSet.Set words a
// value that does not parse.
func (s *flagSet) set(name, value string) error {
	f, ok := s.flags[name]
	if !ok {
		return fmt.Errorf("no such flag -%s", name)
	}
	if err := f.set(value); err != nil {
		return fmt.Errorf("invalid argument %q for %q flag: %v", value, "--"+name, err)
	}
	s.changed[name] = true
	return nil
}

// given reports whether the flag name was given.
func (s *flagSet) given(name string) bool { return s.changed[name] }

// names are the flags, sorted (the order pflag visits them in).
func (s *flagSet) names() []string { return slices.Sorted(maps.Keys(s.flags)) }

// parse reads args (after the command's name) into the flags, then the
// environment (lookup) into those not given; a positional argument is an
// error, as the hook commands take none.
func (s *flagSet) parse(args []string) error {
	var positional []string
	for len(args) > 0 {
		a := args[0]
		args = args[1:]
		switch {
		case a == "--":
			positional = append(positional, args...)
			args = nil
		case strings.HasPrefix(a, "--"):
			var err error
			if args, err = s.long(a, args); err != nil {
				return flagError(err)
			}
		case len(a) > 1 && a[0] == '-':
			// The only shorthand is cobra's -h.
			for i, c := range a[1:] {
				if c != 'h' {
					return flagError(fmt.Errorf("unknown shorthand flag: %q in -%s", c, a[1+i:]))
				}
			}
			return ErrHelp
		default:
			positional = append(positional, a)
		}
	}
	if len(positional) > 0 {
		return fmt.Errorf("unknown command %q for %q", positional[0], "interceptor "+s.cmd)
	}
	return nil
}

// flagError is a flag that does not parse, as interceptor words it.
func flagError(err error) error {
	if err == ErrHelp {
		return err
	}
	return fmt.Errorf("%w (see --help)", err)
}

// long reads one --name or --name=value (taking its value from rest when
// it needs one) and returns what is left of rest.
func (s *flagSet) long(arg string, rest []string) ([]string, error) {
	name, value, hasValue := strings.Cut(arg[2:], "=")
	if arg == "--" || arg[2] == '-' || arg[2] == '=' {
		return rest, fmt.Errorf("bad flag syntax: %s", arg)
	}
	f, ok := s.flags[name]
	switch {
	case !ok && name == "help":
		return rest, ErrHelp
	case !ok:
		return rest, fmt.Errorf("unknown flag: --%s", name)
	case hasValue:
	case f.isBool:
		value = "true"
	case len(rest) > 0:
		value, rest = rest[0], rest[1:]
	default:
		return rest, fmt.Errorf("flag needs an argument: --%s", name)
	}
	return rest, s.set(name, value)
}

// ParseHook reads the arguments of inject, capture, clear or deliver
// (after the command's name) and the environment (lookup: os.LookupEnv)
// into their Flags, as interceptor's own commands read them.
func ParseHook(cmd string, args []string, lookup func(string) (string, bool)) (*Flags, error) {
	c := CmdOf(cmd)
	if c == 0 || c == CmdApprove {
		return nil, fmt.Errorf("unknown command %q", cmd)
	}
	f := &Flags{}
	s := newFlagSet(cmd)
	f.Changed = s.given
	s.hookFlags(c, f, nil)
	s.carried(&f.Opts, carryTakers(c))
	if err := s.parse(args); err != nil {
		return nil, err
	}
	if err := ApplyEnv(s.names(), s.given, s.set, lookup); err != nil {
		return nil, err
	}
	return f, nil
}

// carryTakers is the hook command c as carry.Table's takers say it.
func carryTakers(c Cmds) carry.Commands {
	switch c {
	case CmdInject:
		return carry.Inject
	case CmdCapture:
		return carry.Capture
	case CmdClear:
		return carry.Clear
	case CmdDeliver:
		return carry.Deliver
	}
	return 0
}

// ParseApprove reads approve's arguments and the environment into its
// flags. A variable the environment may not set is kept in EnvErr, not
// returned: approve denies the call for it once the event is read.
func ParseApprove(args []string, lookup func(string) (string, bool)) (*ApproveFlags, error) {
	f := &ApproveFlags{}
	s := newFlagSet("approve")
	s.hookFlags(CmdApprove, nil, f)
	if err := s.parse(args); err != nil {
		return nil, err
	}
	f.EnvErr = ApplyEnv(s.names(), s.given, s.set, lookup)
	return f, nil
}
