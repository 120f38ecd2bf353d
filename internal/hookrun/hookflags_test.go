package hookrun

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/interceptor-dev/interceptor/internal/carry"
)

// TestHookFlagsTable: every entry of HookFlags binds, in each command that
// takes it, a field of its Kind's type and has a default of that type, so
// both parsers (argv.go and internal/cli) can register it from the entry
// alone.
func TestHookFlagsTable(t *testing.T) {
	seen := map[string]bool{}
	for i := range HookFlags {
		hf := &HookFlags[i]
		if hf.Name == "" || hf.Help == "" || hf.Cmds == 0 || seen[hf.Name] {
			t.Errorf("--%s: no name, help or command, or named twice", hf.Name)
		}
		seen[hf.Name] = true
		if _, ok := carry.Lookup(hf.Name); ok && hf.Cmds&^CmdApprove != 0 {
			t.Errorf("--%s: a handle option too (carry.Table), in the same command", hf.Name)
		}
		for _, c := range []Cmds{CmdInject, CmdCapture, CmdClear, CmdDeliver, CmdApprove} {
			if hf.Cmds&c == 0 {
				continue
			}
			var p any
			if c == CmdApprove {
				p = hf.Field(nil, &ApproveFlags{})
			} else {
				p = hf.Field(&Flags{}, nil)
			}
			var ok bool
			switch hf.Kind {
			case FlagString:
				_, ok = p.(*string)
				_, isStr := hf.Default.(string)
				ok = ok && (hf.Default == nil || isStr)
			case FlagBool:
				_, ok = p.(*bool)
				_, isBool := hf.Default.(bool)
				ok = ok && (hf.Default == nil || isBool)
			case FlagDuration:
				_, ok = p.(*time.Duration)
				_, isDur := hf.Default.(time.Duration)
				ok = ok && (hf.Default == nil || isDur)
			case FlagArray:
				_, ok = p.(*[]string)
				ok = ok && hf.Default == nil
			}
			if !ok {
				t.Errorf("--%s in command %b: field %T and default %T do not fit its kind %d", hf.Name, c, p, hf.Default, hf.Kind)
			}
		}
	}
}

// TestEnvFlag: the environment sets where state and the debug log go, the
// child chat, and the handle options carry.Table marks, and nothing that
// decides what is approved.
func TestEnvFlag(t *testing.T) {
	want := []string{"arg", "chat", "debug-log", "handles", "keep-if", "meta-key", "min-token-length", "not-server", "redact", "server", "skip-tool", "start-tool", "state-dir", "token-pattern"}
	if got := EnvFlagNames(); !slices.Equal(got, want) {
		t.Errorf("EnvFlagNames() = %q, want %q", got, want)
	}
	for _, n := range want {
		if !EnvFlag(n) {
			t.Errorf("EnvFlag(%q) = false", n)
		}
	}
	for _, n := range []string{"match", "allow", "deny", "timeout", "on-timeout", "approve", "client", "sessionless", "expire-on-session-end", "help", "reveal"} {
		if EnvFlag(n) {
			t.Errorf("EnvFlag(%q) = true", n)
		}
	}
}

// TestEnvName: the variable of a flag is INTERCEPTOR_ and its name upper
// cased with dashes as underscores, for every flag and odd names too.
func TestEnvName(t *testing.T) {
	names := []string{"", "a", "state-dir", "Min-Token-Length", "x9-_z", "é-ß", "--"}
	for i := range HookFlags {
		names = append(names, HookFlags[i].Name)
	}
	for i := range carry.Table {
		names = append(names, carry.Table[i].Name)
	}
	for _, n := range names {
		if got, want := EnvName(n), EnvPrefix+strings.ToUpper(strings.ReplaceAll(n, "-", "_")); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", n, got, want)
		}
	}
}
