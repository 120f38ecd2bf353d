package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/hookrun"
	"github.com/spf13/pflag"
)

// argvCase is one command line of a hook command and the environment it
// runs in.
type argvCase struct {
	args []string
	env  map[string]string
}

// TestHookArgvMatchesCobra runs every hook command's argv through both of
// its parsers, cobra's (interceptor) and hookrun's (interceptor-hook), on
// a table of argv and INTERCEPTOR_<FLAG> cases and compares what they
// read: the hookrun.Flags (every handle option, what Changed says, and the
// options Resolve makes of them) or approve's flags, or the error. Besides
// the fixed cases, every flag cobra registers is given once on the
// command line and once by its variable, so a flag added to one parser
// and not the other fails here.
func TestHookArgvMatchesCobra(t *testing.T) {
	handles := filepath.Join(t.TempDir(), "handles.json")
	if err := os.WriteFile(handles, []byte(`{"handles":[{"name":"pid","type":"number","from":[{"tools":["start"],"text":"PID (\\d+)"}],"to":{"tools":["use"]}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range hookrun.Commands {
		cases := append(fixedArgvCases(handles), flagArgvCases(t, cmd)...)
		for _, c := range cases {
			t.Run(cmd+" "+c.String(), func(t *testing.T) {
				clearInterceptorEnv(t)
				for k, v := range c.env {
					t.Setenv(k, v)
				}
				if cmd == "approve" {
					compareApprove(t, c)
				} else {
					compareHook(t, cmd, c)
				}
			})
		}
	}
}

func (c argvCase) String() string {
	var env []string
	for k, v := range c.env {
		env = append(env, k+"="+v)
	}
	return fmt.Sprintf("%q %s", c.args, strings.Join(env, " "))
}

// fixedArgvCases are the command lines where a lean parser goes wrong:
// repeats, CSV quoting, bools, numbers, help, syntax errors, positional
// arguments, and the environment beside the command line.
func fixedArgvCases(handles string) []argvCase {
	a := func(args ...string) argvCase { return argvCase{args: args} }
	e := func(env map[string]string, args ...string) argvCase { return argvCase{args: args, env: env} }
	return []argvCase{
		a(),
		a("--server", "wf"),
		a("--server=wf", "--server", "a,b"),
		a("--server", `a,"b,c"`),
		a("--server="),
		a("--server", `"a`),
		a("--server"),
		a("--skip-tool", "x"),
		a("--skip-tool", "x", "--skip-tool", "y,z"),
		a("--start-tool="),
		a("--keep-if", "k", "--not-server", "wf__admin"),
		a("--min-token-length", "0x10"),
		a("--min-token-length", "abc"),
		a("--min-token-length=-3"),
		a("--redact"),
		a("--redact=false"),
		a("--redact="),
		a("--redact", "false"),
		a("--sessionless=1"),
		a("--expire-on-session-end"),
		a("--arg", "page_token"),
		a("--arg", "a", "--meta-key", "m"),
		a("--token-pattern", "tok_[a-z]+"),
		a("--token-pattern", "["),
		a("--handles", handles),
		a("--handles", handles, "--arg", "x"),
		a("--client", "claude-code", "--state-dir", "/tmp/s", "--debug-log", "/tmp/d"),
		a("--client=codex", "--client", "gemini"),
		a("--match", "^mcp__", "--allow", "a,b", "--allow", "c", "--deny", "d"),
		a("--timeout", "1ms", "--on-timeout", "allow", "--chat", "c1"),
		a("--timeout", "soon"),
		a("--nope"),
		a("--nope=1"),
		a("-x"),
		a("-hx"),
		a("-h"),
		a("--help"),
		a("--server", "wf", "--help"),
		a("---server"),
		a("--=wf"),
		a("extra"),
		a("--server", "wf", "extra", "--nope"),
		a("--", "--server"),
		a("-"),
		e(map[string]string{"INTERCEPTOR_SERVER": "a,b"}),
		e(map[string]string{"INTERCEPTOR_SERVER": "a"}, "--server", "b"),
		e(map[string]string{"INTERCEPTOR_SERVER": ""}),
		e(map[string]string{"INTERCEPTOR_SKIP_TOOL": "x,y", "INTERCEPTOR_KEEP_IF": "k"}),
		e(map[string]string{"INTERCEPTOR_MIN_TOKEN_LENGTH": "bad"}),
		e(map[string]string{"INTERCEPTOR_MIN_TOKEN_LENGTH": "bad", "INTERCEPTOR_CLIENT": "codex"}),
		e(map[string]string{"INTERCEPTOR_REDACT": ""}),
		e(map[string]string{"INTERCEPTOR_REDACT": "true"}),
		e(map[string]string{"INTERCEPTOR_SESSIONLESS": "1"}),
		e(map[string]string{"INTERCEPTOR_SESSIONLESS": ""}),
		e(map[string]string{"INTERCEPTOR_CLIENT": "codex"}),
		e(map[string]string{"INTERCEPTOR_CLIENT": "codex"}, "--client", "codex"),
		e(map[string]string{"INTERCEPTOR_STATE_DIR": "/tmp/s", "INTERCEPTOR_DEBUG_LOG": "/tmp/d"}),
		e(map[string]string{"INTERCEPTOR_ARG": "page_token"}),
		e(map[string]string{"INTERCEPTOR_TOKEN_PATTERN": "["}),
		e(map[string]string{"INTERCEPTOR_HANDLES": handles, "INTERCEPTOR_ARG": "x"}),
		e(map[string]string{"INTERCEPTOR_MATCH": ".*", "INTERCEPTOR_ALLOW": "Bash"}),
		e(map[string]string{"INTERCEPTOR_TIMEOUT": "1h", "INTERCEPTOR_CHAT": "c1"}),
		e(map[string]string{"INTERCEPTOR_EXPIRE_ON_SESSION_END": "1"}),
		e(map[string]string{"INTERCEPTOR_HELP": "1"}),
	}
}

// flagArgvCases give each flag cobra registers for cmd, on the command
// line and by its variable, a value of its type.
func flagArgvCases(t *testing.T, cmd string) []argvCase {
	root := newRootCmd(&Factory{IO: &IO{}}, cmd)
	sub, _, err := root.Find([]string{cmd})
	if err != nil {
		t.Fatal(err)
	}
	sample := map[string]string{"bool": "true", "int": "7", "stringSlice": "a,b", "stringArray": "a,b", "duration": "90s", "string": "x1"}
	var cases []argvCase
	sub.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		v, ok := sample[f.Value.Type()]
		if !ok {
			t.Errorf("%s --%s: no sample value for a %s flag", cmd, f.Name, f.Value.Type())
			return
		}
		cases = append(cases,
			argvCase{args: []string{"--" + f.Name + "=" + v}},
			argvCase{env: map[string]string{envName(f.Name): v}})
	})
	if len(cases) < 6 {
		t.Fatalf("%s: cobra registers %d flags", cmd, len(cases)/2)
	}
	return cases
}

// clearInterceptorEnv unsets every INTERCEPTOR_ variable for the test.
func clearInterceptorEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, hookrun.EnvPrefix) {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
}

// viaCobra runs cmd's argv through interceptor's root, with the hook's run
// replaced by catch; it returns the command's error and whether it printed
// its help.
func viaCobra(t *testing.T, cmd string, args []string) (err error, help bool) {
	var out bytes.Buffer
	io := &IO{In: strings.NewReader(""), Out: &out, Err: &bytes.Buffer{}, Exit: func(int) { t.Error("the watchdog exited") }}
	root := newRootCmd(&Factory{IO: io}, cmd)
	root.SetArgs(append([]string{cmd}, args...))
	_, err = root.ExecuteC()
	return err, err == nil && strings.Contains(out.String(), "Usage:")
}

func compareHook(t *testing.T, cmd string, c argvCase) {
	var cobra *hookrun.Flags
	saved := runHook
	runHook = func(_ func(*hookrun.IO, *hookrun.Flags) error, _ *IO, f *hookrun.Flags) error { cobra = f; return nil }
	defer func() { runHook = saved }()
	cerr, chelp := viaCobra(t, cmd, c.args)
	lean, lerr := hookrun.ParseHook(cmd, c.args, os.LookupEnv)
	if sameOutcome(t, cerr, chelp, lerr) {
		return
	}
	if cobra == nil {
		t.Fatal("cobra ran no hook")
	}
	for _, pair := range [][2]string{{cobra.Client, lean.Client}, {cobra.StateDir, lean.StateDir}, {cobra.DebugLog, lean.DebugLog}} {
		if pair[0] != pair[1] {
			t.Errorf("cobra read %q, interceptor-hook %q", pair[0], pair[1])
		}
	}
	if cobra.Expire != lean.Expire {
		t.Errorf("--expire-on-session-end: cobra %v, interceptor-hook %v", cobra.Expire, lean.Expire)
	}
	names := []string{"client", "state-dir", "debug-log", "expire-on-session-end", "help", "no-such-flag"}
	for i := range carry.Table {
		opt := &carry.Table[i]
		names = append(names, opt.Name)
		cv, lv := reflect.ValueOf(opt.Field(&cobra.Opts)).Elem().Interface(), reflect.ValueOf(opt.Field(&lean.Opts)).Elem().Interface()
		if !reflect.DeepEqual(cv, lv) {
			t.Errorf("--%s: cobra read %#v, interceptor-hook %#v", opt.Name, cv, lv)
		}
	}
	for _, n := range names {
		if cobra.Changed(n) != lean.Changed(n) {
			t.Errorf("Changed(%q): cobra %v, interceptor-hook %v", n, cobra.Changed(n), lean.Changed(n))
		}
	}
	// What the hook makes of them: --arg naming --meta-key, --handles,
	// --token-pattern.
	cres, lres := cobra.Opts.Resolve(cobra.Changed), lean.Opts.Resolve(lean.Changed)
	if fmt.Sprint(cres) != fmt.Sprint(lres) {
		t.Errorf("Resolve: cobra %v, interceptor-hook %v", cres, lres)
	}
	if !reflect.DeepEqual(cobra.Opts.Specs(), lean.Opts.Specs()) {
		t.Errorf("resolved handles: cobra %+v, interceptor-hook %+v", cobra.Opts.Specs(), lean.Opts.Specs())
	}
}

func compareApprove(t *testing.T, c argvCase) {
	var cobra *hookrun.ApproveFlags
	saved := runApprove
	runApprove = func(_ *IO, f *hookrun.ApproveFlags) error { cobra = f; return nil }
	defer func() { runApprove = saved }()
	cerr, chelp := viaCobra(t, "approve", c.args)
	lean, lerr := hookrun.ParseApprove(c.args, os.LookupEnv)
	if sameOutcome(t, cerr, chelp, lerr) {
		return
	}
	if cobra == nil {
		t.Fatal("cobra ran no hook")
	}
	if fmt.Sprint(cobra.EnvErr) != fmt.Sprint(lean.EnvErr) {
		t.Errorf("EnvErr: cobra %v, interceptor-hook %v", cobra.EnvErr, lean.EnvErr)
	}
	cf, lf := *cobra, *lean
	cf.EnvErr, lf.EnvErr = nil, nil
	if !reflect.DeepEqual(cf, lf) {
		t.Errorf("cobra read %+v, interceptor-hook %+v", cf, lf)
	}
}

// sameOutcome fails t unless both parsers failed alike, both showed the
// help, or both parsed; it reports whether there is nothing more to
// compare.
func sameOutcome(t *testing.T, cerr error, chelp bool, lerr error) bool {
	lhelp := errors.Is(lerr, hookrun.ErrHelp)
	switch {
	case chelp || lhelp:
		if chelp != lhelp {
			t.Errorf("help: cobra %v, interceptor-hook %v (error %v)", chelp, lhelp, lerr)
		}
		return true
	case cerr != nil || lerr != nil:
		if fmt.Sprint(cerr) != fmt.Sprint(lerr) {
			t.Errorf("error:\ncobra            %v\ninterceptor-hook %v", cerr, lerr)
		}
		return true
	}
	return false
}

// TestHookBinaryMatchesCLI runs the same hooks (capture, then inject,
// capture --redact, approve, deliver and clear) on the recorded events of
// several clients through interceptor's Main and interceptor-hook's, each
// with a state dir of its own, and compares what each printed and its
// exit code.
func TestHookBinaryMatchesCLI(t *testing.T) {
	clients := []struct{ name, pre, post string }{
		{"droid", "droid.PreToolUse.next_step.json", "droid.PostToolUse.start_session.json"},
		{"claude-code", "claude-code.PreToolUse.text.json", "claude-code.PostToolUse.text.json"},
		{"codex", "codex.PreToolUse.structured.json", "codex.PostToolUse.structured.json"},
		{"gemini", "gemini.BeforeTool.text.json", "gemini.AfterTool.text.json"},
		{"opencode", "opencode.tool.execute.before.text.json", "opencode.tool.execute.after.text.json"},
	}
	clearInterceptorEnv(t)
	injected := false
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			pre, post := fixtureFile(t, c.pre), fixtureFile(t, c.post)
			cliDir, hookDir := filepath.Join(t.TempDir(), "state"), filepath.Join(t.TempDir(), "state")
			steps := []struct {
				in   []byte
				args []string
			}{
				{pre, []string{"inject", "--server", "wf"}},
				{post, []string{"capture", "--server", "wf"}},
				{pre, []string{"inject", "--server", "wf"}},
				{post, []string{"capture", "--server", "wf", "--redact"}},
				{pre, []string{"approve", "--timeout", "1ms", "--deny", ".*"}},
				{pre, []string{"deliver"}},
				{post, []string{"clear"}},
				{pre, []string{"inject", "--server", "wf"}},
				{pre, []string{"inject"}},
				{pre, []string{"inject", "--server", "wf", "--nope"}},
			}
			for _, s := range steps {
				var cout, cerr, hout, herr bytes.Buffer
				ccode := run(append(s.args, "--state-dir", cliDir), &IO{In: bytes.NewReader(s.in), Out: &cout, Err: &cerr})
				hcode := hookrun.Main(append(s.args, "--state-dir", hookDir), &IO{In: bytes.NewReader(s.in), Out: &hout, Err: &herr})
				herrs := strings.ReplaceAll(herr.String(), hookDir, cliDir)
				if ccode != hcode || cout.String() != hout.String() || cerr.String() != herrs {
					t.Fatalf("%q:\ninterceptor      exit %d, stdout %q, stderr %q\ninterceptor-hook exit %d, stdout %q, stderr %q",
						s.args, ccode, cout.String(), cerr.String(), hcode, hout.String(), herrs)
				}
				injected = injected || (s.args[0] == "inject" && cout.Len() > 0)
			}
		})
	}
	if !injected {
		t.Fatal("no inject printed a reply: the hooks compared did no work")
	}
}
