package carry

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/token"
)

func TestDefaults(t *testing.T) {
	o := Defaults()
	if o.Arg != "session_token" || o.MetaKey != "session_token" || o.MinLen != token.DefaultMinLen ||
		!slices.Equal(o.SkipTools, []string{"start_session"}) || !slices.Equal(o.StartTools, []string{"start_session"}) ||
		o.KeepIf != nil || o.Servers != nil || o.Redact || o.Sessionless || o.TokenPattern != "" || o.HandlesFile != "" {
		t.Fatalf("defaults: %+v", o)
	}
	handles, _ := Lookup("handles")
	for _, opt := range Table {
		if opt.Help == "" || opt.Takers == 0 {
			t.Errorf("--%s: no help or no command takes it", opt.Name)
		}
		named := regexp.MustCompile(`--` + opt.Name + `(?:[^a-z-]|$)`).MatchString(handles.Help[strings.Index(handles.Help, "replaces"):])
		if opt.ByHandles != named {
			t.Errorf("--handles's help and --%s's ByHandles disagree", opt.Name)
		}
		if opt.ByHandles && opt.Takers&Proxy == 0 {
			t.Errorf("--%s: replaced by --handles, which the proxy takes, but the proxy does not take it", opt.Name)
		}
	}
}

// TestSet: Set reads each option as the flag parser does (pflag): a
// list's first value replaces its default and later ones add, each
// comma-separated and CSV quoted; a number in Go's syntax; a bool alone is
// true.
func TestSet(t *testing.T) {
	o := Defaults()
	for _, kv := range [][2]string{
		{"skip-tool", "a,b"}, {"skip-tool", `"c,d"`}, {"start-tool", ""}, {"min-token-length", "0x10"},
		{"sessionless", ""}, {"redact", "false"}, {"arg", "session_index"}, {"server", "wf"}, {"server", "wf2"},
	} {
		if err := o.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%q, %q): %v", kv[0], kv[1], err)
		}
	}
	if !slices.Equal(o.SkipTools, []string{"a", "b", "c,d"}) || o.StartTools == nil || len(o.StartTools) != 0 ||
		o.MinLen != 16 || !o.Sessionless || o.Redact || o.Arg != "session_index" || !slices.Equal(o.Servers, []string{"wf", "wf2"}) {
		t.Fatalf("after Set: %+v", o)
	}
	if !o.Given("arg") || o.Given("meta-key") {
		t.Fatalf("Given: arg %t, meta-key %t", o.Given("arg"), o.Given("meta-key"))
	}
	for _, kv := range [][2]string{{"min-token-length", "twenty"}, {"sessionless", "maybe"}, {"skip-tool", `"a`}, {"no-such", "x"}} {
		if err := o.Set(kv[0], kv[1]); err == nil || !strings.Contains(err.Error(), "--"+kv[0]) {
			t.Errorf("Set(%q, %q): %v, want an error naming the option", kv[0], kv[1], err)
		}
	}
}

// TestResolve: --arg alone names --meta-key too; --handles may not be
// mixed with what it replaces, and is read only when given.
func TestResolve(t *testing.T) {
	o := Defaults()
	_ = o.Set("arg", "session_index")
	if err := o.Resolve(o.Given); err != nil || o.MetaKey != "session_index" {
		t.Fatalf("arg alone: meta-key %q, %v", o.MetaKey, err)
	}
	o = Defaults()
	_ = o.Set("arg", "a")
	_ = o.Set("meta-key", "m")
	if err := o.Resolve(o.Given); err != nil || o.MetaKey != "m" {
		t.Fatalf("arg and meta-key: meta-key %q, %v", o.MetaKey, err)
	}
	o = Defaults()
	_ = o.Set("token-pattern", "^tok-[0-9]+$")
	if err := o.Resolve(o.Given); err != nil || o.Pattern == nil || !o.Pattern.MatchString("tok-1") {
		t.Fatalf("token-pattern: %v %v", o.Pattern, err)
	}
	file := filepath.Join(t.TempDir(), "handles.json")
	if err := os.WriteFile(file, []byte(`{"handles":[{"name":"pid","type":"number","from":[{"json":"pid"}],"to":{"tools":["read"]}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	o = Defaults()
	_ = o.Set("handles", file)
	_ = o.Set("keep-if", "x")
	if err := o.Resolve(o.Given); err == nil || err.Error() != "--handles replaces --keep-if: declare it in "+file+" instead" {
		t.Fatalf("handles with keep-if: %v", err)
	}
	o = Defaults()
	_ = o.Set("handles", file)
	if err := o.Resolve(o.Given); err != nil || len(o.Handles) != 1 || o.Specs()[0].Name != "pid" {
		t.Fatalf("handles: %+v %v", o.Handles, err)
	}
}

// TestArgsReadBack: what Args writes, set word by word, gives back the
// options written (install writes the hooks' options, the hooks read them).
func TestArgsReadBack(t *testing.T) {
	var o Options // install's: zero is "the hook's default", left out
	o.NotServers = []string{"wf__admin"}
	o.Arg, o.MinLen, o.TokenPattern = "tok", 12, `^a,b$`
	o.SkipTools, o.StartTools, o.KeepIf = []string{"start_session", "x,y", " z"}, []string{}, []string{}
	o.Sessionless, o.Redact = true, true
	all := func(*Option) bool { return true }
	words := o.Args(all)
	want := []string{"--not-server", "wf__admin", "--redact", "--arg", "tok", "--min-token-length", "12", "--token-pattern", `^a,b$`,
		"--skip-tool", "start_session", "--skip-tool", `"x,y"`, "--skip-tool", `" z"`, "--start-tool=", "--keep-if=", "--sessionless"}
	if !slices.Equal(words, want) {
		t.Fatalf("Args:\n got %q\nwant %q", words, want)
	}
	back := Defaults()
	for i := 0; i < len(words); i++ {
		name, value, inline := strings.Cut(strings.TrimPrefix(words[i], "--"), "=")
		if opt, _ := Lookup(name); !inline && opt.Kind != Bool {
			value = words[i+1]
			i++
		}
		if err := back.Set(name, value); err != nil {
			t.Fatal(err)
		}
	}
	back.MetaKey = ""
	back.given = nil
	if !reflect.DeepEqual(back, o) {
		t.Fatalf("read back:\n got %+v\nwant %+v", back, o)
	}
}

// TestGivenReadsBools: doctor's reading of a hook's argv knows a bool
// takes no value: the word after --sessionless (or --redact) is the next
// option, not its value; a value may look like a flag.
func TestGivenReadsBools(t *testing.T) {
	argv := []string{"--client", "codex", "--server", "wf", "--sessionless", "--arg", "tok", "--redact", "--keep-if", "--meta-key", "--state-dir", "/s", "--meta-key=m"}
	agree := func(o *Option) bool { return o.Agree }
	got := Given(argv, agree)
	want := []string{"--sessionless", "--arg", "tok", "--keep-if", "--meta-key", "--meta-key=m"}
	if !slices.Equal(got, want) {
		t.Fatalf("Given:\n got %q\nwant %q", got, want)
	}
}

// TestResolveInject (issue 35 item 7): a handles file's handle is injected
// only where its argument is required unless the file says "inject":
// "always"; the flags' one handle wherever the tool takes it, as before.
func TestResolveInject(t *testing.T) {
	file := filepath.Join(t.TempDir(), "handles.json")
	if err := os.WriteFile(file, []byte(`{"handles":[
	  {"name":"pageId","type":"number","from":[{"json":"pageId"}],"to":{"tools":["take_snapshot"]}},
	  {"name":"cursor","arg":"after","inject":"always","from":[{"json":"endCursor"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	o := Defaults()
	o.HandlesFile = file
	if err := o.Resolve(o.Given); err != nil {
		t.Fatal(err)
	}
	specs := o.Specs()
	if len(specs) != 2 || specs[0].Inject != token.InjectRequired || specs[1].Inject != token.InjectAlways {
		t.Fatalf("handles file: %+v", specs)
	}
	flags := Defaults()
	if err := flags.Resolve(flags.Given); err != nil {
		t.Fatal(err)
	}
	if s := flags.Specs(); s[0].Inject != token.InjectAlways {
		t.Fatalf("the flags' handle: inject %v", s[0].Inject)
	}
}

// TestReadListAsCSV: ReadList's split of a value without quotes or line
// breaks reads what a csv.Reader reads, and the rest goes to one.
func TestReadListAsCSV(t *testing.T) {
	for _, v := range []string{"wf", "a,b", ",", "a,,b", " a , b ", "a,", ",a", "\ta", "x y", "é,ü", "#a", "a\"b", `"a,b",c`, "a\nb", "a\r\nb", "a\rb", `"a`, `"`, "a,\"b\"\"c\""} {
		got, gerr := ReadList(v)
		want, werr := csv.NewReader(strings.NewReader(v)).Read()
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !slices.Equal(got, want) {
			t.Errorf("ReadList(%q) = %q, %v; csv reads %q, %v", v, got, gerr, want, werr)
		}
	}
}
