package token

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// desktopCommander is the handles file of examples/servers/desktop-commander,
// as specs: what users copy is what is tested.
func desktopCommander(t *testing.T) []Spec {
	t.Helper()
	data, err := os.ReadFile("../../examples/servers/desktop-commander/handles.json")
	if err != nil {
		t.Fatal(err)
	}
	specs, err := ParseHandles(data, "handles.json")
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

func text(s string) Result { return Result{Texts: []string{s}} }

func TestMintDesktopCommander(t *testing.T) {
	specs := desktopCommander(t)
	pid, search := &specs[0], &specs[1]
	m, err := pid.Mint("start_process", text("Process started with PID 28869 (shell: /bin/bash)\nInitial output:\n$ "))
	if err != nil || len(m.Values) != 1 || m.Values[0] != "28869" {
		t.Fatalf("pid = %+v, %v", m, err)
	}
	// node:local's session (from Desktop Commander's source: a negative pid).
	if m, err := pid.Mint("start_process", text("Node.js session started with PID -1000 (MCP server execution)")); err != nil || len(m.Values) != 1 || m.Values[0] != "-1000" {
		t.Fatalf("node pid = %+v, %v", m, err)
	}
	// Another tool's result mentioning a PID mints nothing.
	if m, _ := pid.Mint("list_processes", text("Process started with PID 1")); len(m.Values) != 0 {
		t.Fatalf("list_processes minted %v", m.Values)
	}
	for _, line := range []string{"Started file search session: search_1_1795681427519", "Started content search session: search_2_1795681427600\nPattern: x"} {
		m, err := search.Mint("start_search", text(line))
		if err != nil || len(m.Values) != 1 || !strings.HasPrefix(m.Values[0], "search_") {
			t.Fatalf("sessionId from %q = %+v, %v", line, m, err)
		}
	}
}

func TestMintDeclaredKeysTakenAsTheyAre(t *testing.T) {
	s := FlagSpec("session_index", "session_index", 0, nil, []string{"start_session"}, nil, nil)
	for _, r := range []Result{
		{Meta: gjson.Parse(`{"session_index":"ABCDEF"}`)},
		{Structured: gjson.Parse(`{"session_index":"ABCDEF"}`)},
		{Texts: []string{`{"session_index":"ABCDEF","workflow":"x"}`}},
	} {
		m, err := s.Mint("start_session", r)
		if err != nil || len(m.Values) != 1 || m.Values[0] != "ABCDEF" {
			t.Errorf("Mint(%+v) = %+v, %v", r, m, err)
		}
	}
	// From a prose line, a 6-character value is a mention unless a pattern
	// is declared; the pattern replaces the letters-and-digits rule.
	if m, _ := s.Mint("get_activity", text("session_index: ABCDEF")); len(m.Values) != 0 {
		t.Errorf("a short prose value was taken: %v", m.Values)
	}
	s.Pattern = regexp.MustCompile(`^(?:[A-Z2-7]{6})$`)
	if m, err := s.Mint("get_activity", text("session_index: ABCDEF")); err != nil || len(m.Values) != 1 {
		t.Errorf("with a pattern: %+v, %v", m, err)
	}
	// A number under the key of a number handle, as its literal.
	n := Spec{Name: "pid", Arg: "pid", Kind: KindNumber, From: []Source{{Meta: "pid", JSON: "pid"}}}
	if m, err := n.Mint("x", Result{Structured: gjson.Parse(`{"pid":28869}`)}); err != nil || m.Values[0] != "28869" {
		t.Errorf("number = %+v, %v", m, err)
	}
	if _, err := n.Mint("x", Result{Structured: gjson.Parse(`{"pid":"abc"}`)}); err == nil {
		t.Error("a string under a number handle's key was taken")
	}
}

func TestApplyLifetimes(t *testing.T) {
	rot := FlagSpec("session_token", "session_token", 0, nil, []string{"start_session"}, nil, nil)
	l, note := rot.Apply(Live{}, "start_session", Minted{Values: []string{"A"}}, nil, "")
	if l.Default != "A" || note != "" {
		t.Fatalf("first = %+v %q", l, note)
	}
	l, _ = rot.Apply(l, "next_step", Minted{Values: []string{"B"}}, nil, "")
	if l.Default != "B" || len(l.Values) != 2 {
		t.Fatalf("rotated = %+v", l)
	}
	// A tool that returns nothing keeps what is held...
	if l2, note := rot.Apply(l, "next_step", Minted{}, nil, ""); l2.Default != "B" || note != "" {
		t.Fatalf("nothing from next_step = %+v %q", l2, note)
	}
	// ...a start tool that returns nothing retires it, and says so.
	l, note = rot.Apply(l, "start_session", Minted{}, errors.New("the value lacks letters or digits"), "")
	if l.Default != "" || l.Withdrawn == "" || !strings.Contains(note, "no longer injected") || strings.Contains(note, "B") {
		t.Fatalf("refused start = %+v %q", l, note)
	}
	l, _ = rot.Apply(l, "start_session", Minted{Values: []string{"C"}}, nil, "")
	if l.Default != "C" || l.Withdrawn != "" {
		t.Fatalf("after a new start = %+v", l)
	}

	// Stable: another tool's value is live, not injected.
	st := rot
	st.Lifetime = Stable
	l, _ = st.Apply(Live{}, "start_session", Minted{Values: []string{"PARENT"}}, nil, "")
	l, _ = st.Apply(l, "dispatch_child", Minted{Values: []string{"CHILD1"}}, nil, "")
	if l.Default != "PARENT" || len(l.Values) != 2 {
		t.Fatalf("stable after dispatch_child = %+v", l)
	}
	// Several values at once: all live, none chosen.
	l, _ = rot.Apply(Live{}, "take_snapshot", Minted{Values: []string{"1_1", "1_2"}}, nil, "")
	if l.Default != "" || len(l.Values) != 2 {
		t.Fatalf("several = %+v", l)
	}
}

func TestFillDesktopCommander(t *testing.T) {
	specs := desktopCommander(t)
	h := Holding{"pid": {Values: Held{"2002", "1001"}, Default: "2002"}}
	fill := func(tool, args string) Filled {
		t.Helper()
		f, err := Fill(args, tool, specs, h, nil)
		if err != nil {
			t.Fatalf("Fill(%s, %s): %v", tool, args, err)
		}
		return f
	}
	// The latest, as a number, where the tool takes it.
	if f := fill("read_process_output", `{"timeout_ms":100}`); gjson.Get(f.Args, "pid").Raw != "2002" {
		t.Errorf("latest = %s", f.Args)
	}
	// A tool that does not take it never gets it.
	if f := fill("read_file", `{"path":"/x"}`); f.Changed {
		t.Errorf("read_file got %s", f.Args)
	}
	// Naming the first by value reaches the first; as a string, typed.
	if f := fill("kill_process", `{"pid":1001}`); f.Changed {
		t.Errorf("a named pid was changed: %s", f.Args)
	}
	if f := fill("kill_process", `{"pid":"1001"}`); gjson.Get(f.Args, "pid").Raw != "1001" {
		t.Errorf("a pid named as a string = %s", f.Args)
	}
	// A number handle's stand-in (a model may copy one) becomes the number.
	if f := fill("kill_process", `{"pid":"`+StandIn("pid", "1001")+`"}`); gjson.Get(f.Args, "pid").Raw != "1001" {
		t.Errorf("a pid stand-in = %s", f.Args)
	}
	// Withdrawn: no pid injected, and Withheld says why.
	h["pid"] = Live{Values: Held{"2002"}, Withdrawn: "start_process returned no pid"}
	if f := fill("kill_process", `{}`); f.Changed || len(f.Withheld) != 1 || f.Withheld[0].Handle != "pid" {
		t.Errorf("withdrawn = %+v", f)
	}
}

func TestFillNearMissAndSchema(t *testing.T) {
	tok := strings.Repeat("eyJzaWQiOiJhYmMi", 30) // 480 characters
	specs := []Spec{FlagSpec("session_token", "session_token", 0, nil, nil, []string{"start_session"}, nil)}
	h := Holding{"session_token": {Values: Held{tok}, Default: tok}}
	typo := tok[:100] + "9f" + tok[100:] // two characters inserted
	f, err := Fill(`{"session_token":"`+typo+`"}`, "next_step", specs, h, nil)
	if err != nil || gjson.Get(f.Args, "session_token").Str != tok || !strings.Contains(strings.Join(f.Trace, ";"), "repaired") {
		t.Fatalf("near miss: %v %+v", err, f.Trace)
	}
	// Far off: left alone.
	far := strings.Repeat("x", 480)
	if f, _ := Fill(`{"session_token":"`+far+`"}`, "next_step", specs, h, nil); f.Changed {
		t.Fatal("a value far from every held one was changed")
	}
	// The proxy's schema: a tool without the argument gets nothing; one
	// whose schema says number gets a number (the flags' handle: even
	// where the schema calls it optional).
	noArg := func(string) SchemaArg { return SchemaArg{} }
	if f, _ := Fill(`{}`, "list_workflows", specs, h, noArg); f.Changed {
		t.Fatal("a tool whose schema lacks the argument got it")
	}
	num := Holding{"session_token": {Values: Held{"42"}, Default: "42"}}
	isNum := func(string) SchemaArg { return SchemaArg{Has: true, Number: true} }
	if f, _ := Fill(`{}`, "x", specs, num, isNum); gjson.Get(f.Args, "session_token").Raw != "42" {
		t.Fatalf("schema number = %s", f.Args)
	}
}

func TestNearMiss(t *testing.T) {
	a := strings.Repeat("ab12", 10)
	b := strings.Repeat("zz99", 10)
	cases := []struct {
		v    string
		held Held
		want string
	}{
		{a[:5] + "X" + a[5:], Held{a, b}, a},              // one inserted
		{a[:5] + a[7:], Held{a, b}, a},                    // two dropped
		{a, Held{a, b}, ""},                               // held itself
		{"short", Held{"shorx"}, ""},                      // short values are never repaired
		{a[:5] + "XYZ" + a[5:], Held{a}, ""},              // three edits: too far for 40 characters
		{a[:5] + "X" + a[5:], Held{a, a[:6] + a[5:]}, ""}, // near two: left alone
	}
	for _, c := range cases {
		// As for a handle declared repairable: every long value.
		if got, ok := NearMiss(c.v, c.held, LongValue); got != c.want || ok != (c.want != "") {
			t.Errorf("NearMiss(%q) = %q %v, want %q", c.v, got, ok, c.want)
		}
		// By default these 40-character values are not repaired, and
		// never when repair is off.
		for _, from := range []int{RepairLen, 0} {
			if got, ok := NearMiss(c.v, c.held, from); ok {
				t.Errorf("NearMiss(%q, from %d) = %q: repaired a value shorter than %d", c.v, from, got, RepairLen)
			}
		}
	}
}

// Short values are replaced only as whole words, long ones wherever they
// stand; the stand-in carries the handle's name.
func TestRedactWholeWords(t *testing.T) {
	sets := []Named{{Name: "session_index", Held: Held{"AB2CDE"}}}
	got, _ := RedactNamedText("sha 9f00AB2CDE77, index AB2CDE.", sets)
	want := "sha 9f00AB2CDE77, index " + StandIn("session_index", "AB2CDE") + "."
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	long := strings.Repeat("k9", 15)
	got, _ = RedactNamedText("x"+long+"y", []Named{{Name: "session_token", Held: Held{long}}})
	if strings.Contains(got, long) {
		t.Fatalf("a long value glued to text survived: %q", got)
	}
}

func TestHiddenPolicies(t *testing.T) {
	long := strings.Repeat("k9", 15)
	specs := []Spec{
		{Name: "a", StandIns: StandInsLong},
		{Name: "b", StandIns: StandInsAll},
		{Name: "c", StandIns: StandInsNone},
		{Name: "d", Kind: KindNumber, StandIns: StandInsAll},
	}
	h := Holding{
		"a": {Values: Held{long, "short1"}},
		"b": {Values: Held{"short2", "abc"}},
		"c": {Values: Held{long}},
		"d": {Values: Held{"1234567890123456789012"}},
	}
	got := h.Hidden(specs)
	if len(got) != 2 || got[0].Name != "a" || len(got[0].Held) != 1 || got[1].Name != "b" || len(got[1].Held) != 1 || got[1].Held[0] != "short2" {
		t.Fatalf("Hidden = %+v", got)
	}
}

func TestParseHandlesErrors(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`[]`, "not a JSON object"},
		{`{"handles":[]}`, "non-empty array"},
		{`{"handles":[{"name":"pid","frm":[]}]}`, `handles[0] ("pid"): unknown key "frm"`},
		{`{"handles":[{"name":"pid","from":[{"text":"no group"}]}]}`, "exactly one group"},
		{`{"handles":[{"name":"pid","type":"int","from":{"meta":"pid"}}]}`, `type "int"`},
		{`{"handles":[{"name":"i","lifetime":"stable","from":{"meta":"i"}}]}`, "needs starts"},
		{`{"handles":[{"name":"i","from":{"meta":"i"},"starts":["x"],"lifetime":"stable","to":{}}]}`, "names no tools"},
		{`{"handles":[{"name":"a","from":{"meta":"a"}},{"name":"a","from":{"meta":"a"}}]}`, "declared twice"},
		{`{"handles":[{"name":"a","from":{"meta":"a","json":"x..y"}}]}`, "empty key"},
	} {
		_, err := ParseHandles([]byte(c.doc), "h.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "handles file h.json: ") {
			t.Errorf("ParseHandles(%s) = %v, want %q", c.doc, err, c.want)
		}
	}
	specs, err := ParseHandles([]byte(`{"handles":[{"name":"cursor","arg":"after","from":{"json":"pageInfo.endCursor"}}]}`), "h.json")
	if err != nil || specs[0].Arg != "after" || specs[0].From[0].JSON != "pageInfo.endCursor" {
		t.Fatalf("nested path: %+v %v", specs, err)
	}
	if m, err := specs[0].Mint("list_issues", Result{Texts: []string{`{"pageInfo":{"endCursor":"Y3Vyc29yOnYyOpK5"}}`}}); err != nil || m.Values[0] != "Y3Vyc29yOnYyOpK5" {
		t.Fatalf("cursor = %+v %v", m, err)
	}
}

// A handle's type, lifetime and stand_ins take one of their words; any
// other is refused naming the handle and the words.
func TestHandleChoices(t *testing.T) {
	for field, want := range map[string]string{
		"type":      `want "string" or "number"`,
		"lifetime":  `want "rotates" or "stable"`,
		"stand_ins": `want "long", "all" or "none"`,
	} {
		_, err := ParseHandles([]byte(`{"handles":[{"name":"pid","`+field+`":"odd","from":[{"tools":["t"],"text":"(\\d+)"}]}]}`), "h.json")
		if err == nil || !strings.Contains(err.Error(), `handles[0] ("pid"): `+field+` "odd": `+want) {
			t.Errorf("%s odd: %v", field, err)
		}
	}
	specs, err := ParseHandles([]byte(`{"handles":[{"name":"pid","type":"number","lifetime":"stable","stand_ins":"none","starts":["t"],"from":[{"tools":["t"],"text":"(\\d+)"}]}]}`), "h.json")
	if err != nil || specs[0].Kind != KindNumber || specs[0].Lifetime != Stable || specs[0].StandIns != StandInsNone {
		t.Errorf("%+v, %v", specs, err)
	}
}
