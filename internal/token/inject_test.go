package token

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// uidSpec is chrome-devtools-mcp's element uid declared as issue 35's user
// declared it (docs/handles.md's table): every uid a snapshot prints, to the
// tools whose schema has uid; inject is a handles file's, given or not.
func uidSpec(t *testing.T, extra string) Spec {
	t.Helper()
	specs, err := ParseHandles([]byte(`{"handles":[{"name":"uid","from":{"tools":["take_snapshot"],"text":"uid=(\\S+)"}`+extra+`}]}`), "h.json")
	if err != nil {
		t.Fatal(err)
	}
	return specs[0]
}

// schemaOf is a tool's input schema with the argument uid, required or not.
func schemaOf(required bool) Schema {
	return func(arg string) SchemaArg { return SchemaArg{Has: arg == "uid", Required: required && arg == "uid"} }
}

// TestFillOptionalArgument (issue 35 item 7): a call that leaves out an
// optional argument means something of its own (take_screenshot without
// uid: the whole page), so a handles file's handle is not injected there,
// only where the argument is required, or where the file says "inject":
// "always". Where no schema is known (hooks), the tools "to" names get it,
// as before; without "to" nothing says the tool takes it.
func TestFillOptionalArgument(t *testing.T) {
	one := Holding{"uid": {Values: Held{"1_0"}, Default: "1_0"}}
	spec := uidSpec(t, "")
	if spec.Inject != InjectRequired {
		t.Fatalf("a handles file's default inject: %v", spec.Inject)
	}
	f, err := Fill(`{"pageId":2}`, "take_screenshot", []Spec{spec}, one, schemaOf(false))
	if err != nil || f.Changed || f.Args != `{"pageId":2}` || !strings.Contains(strings.Join(f.Trace, ";"), "optional") {
		t.Fatalf("take_screenshot without uid (the whole page) got %s (%v, %q)", f.Args, err, f.Trace)
	}
	if f, _ := Fill(`{"pageId":2}`, "click", []Spec{spec}, one, schemaOf(true)); gjson.Get(f.Args, "uid").Str != "1_0" {
		t.Fatalf("click, whose uid is required: %s", f.Args)
	}
	always := uidSpec(t, `,"inject":"always"`)
	if always.Inject != InjectAlways {
		t.Fatalf(`"inject":"always" read as %v`, always.Inject)
	}
	if f, _ := Fill(`{}`, "take_screenshot", []Spec{always}, one, schemaOf(false)); gjson.Get(f.Args, "uid").Str != "1_0" {
		t.Fatalf(`"inject":"always" on an optional argument: %s`, f.Args)
	}
	// "inject": "never": not even where it is required, nor in the hooks;
	// a value the call names is still typed.
	never := uidSpec(t, `,"inject":"never","type":"number","to":{"tools":["click"]}`)
	seven := Holding{"uid": {Values: Held{"7"}, Default: "7"}}
	for _, schema := range []Schema{schemaOf(true), nil} {
		if f, _ := Fill(`{}`, "click", []Spec{never}, seven, schema); f.Changed {
			t.Fatalf(`"inject": "never" injected: %s`, f.Args)
		}
		if f, _ := Fill(`{"uid":"7"}`, "click", []Spec{never}, seven, schema); gjson.Get(f.Args, "uid").Raw != "7" {
			t.Fatalf(`"inject": "never", a held number named as a string: %s`, f.Args)
		}
	}
	// No schema (hooks): "to" decides.
	declared := uidSpec(t, `,"to":{"tools":["click"]}`)
	if f, _ := Fill(`{}`, "click", []Spec{declared}, one, nil); gjson.Get(f.Args, "uid").Str != "1_0" {
		t.Fatalf("a tool \"to\" names, no schema: %s", f.Args)
	}
	if f, _ := Fill(`{}`, "take_screenshot", []Spec{spec}, one, nil); f.Changed {
		t.Fatalf("no \"to\" and no schema (the proxy before tools/list): %s", f.Args)
	}
	// A withdrawn value is not missed by a call that leaves an optional
	// argument out: it never needed one.
	gone := Holding{"uid": {Values: Held{"1_0"}, Withdrawn: "take_snapshot returned no uid"}}
	if f, _ := Fill(`{}`, "take_screenshot", []Spec{spec}, gone, schemaOf(false)); len(f.Withheld) != 0 || f.Changed {
		t.Fatalf("an optional argument left out was withheld: %+v", f)
	}
	// The tool still takes it: a held number named as a string is sent as
	// the number.
	num := uidSpec(t, `,"type":"number"`)
	n := Holding{"uid": {Values: Held{"7"}, Default: "7"}}
	if f, _ := Fill(`{"uid":"7"}`, "take_screenshot", []Spec{num}, n, schemaOf(false)); gjson.Get(f.Args, "uid").Raw != "7" {
		t.Fatalf("a held number named as a string: %s", f.Args)
	}
	// The flags' one handle is injected wherever the tool takes it.
	flag := FlagSpec("session_token", "session_token", 0, nil, nil, nil, nil)
	h := Holding{"session_token": {Values: Held{"tok-0123456789abcdefghij"}, Default: "tok-0123456789abcdefghij"}}
	if f, _ := Fill(`{}`, "next_step", []Spec{flag}, h, func(string) SchemaArg { return SchemaArg{Has: true} }); !f.Changed {
		t.Fatal("the flags' handle, optional in the schema, was not injected")
	}
}

// TestShowsStandIns: the model never reads a number, a stand_ins "none"
// handle, or a value its pattern keeps shorter than a stand-in's length as
// a stand-in; the proxy's schema note names stand-ins only where it may.
func TestShowsStandIns(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		want bool
	}{
		{Spec{}, true},
		{Spec{Kind: KindNumber}, false},
		{Spec{StandIns: StandInsNone}, false},
		{Spec{Pattern: regexp.MustCompile(`^(?:[A-Z2-7]{6})$`)}, false},
		{Spec{Pattern: regexp.MustCompile(`^(?:[A-Z2-7]{6})$`), StandIns: StandInsAll}, true},
		{Spec{Pattern: regexp.MustCompile(`^(?:[a-z]{3})$`), StandIns: StandInsAll}, false},
		{Spec{Pattern: regexp.MustCompile(`^(?:tk\.[0-9a-f]{32})$`)}, true},
		{Spec{Pattern: regexp.MustCompile(`^(?:\d+)$`)}, true},
		{Spec{Pattern: regexp.MustCompile(`^(?:a{1,5}|b{2,19})$`)}, false},
		{Spec{Pattern: regexp.MustCompile(`^(?:é{10})$`)}, true}, // 20 bytes
		{Spec{Pattern: regexp.MustCompile(`^(?i:k{5})$`)}, true}, // the Kelvin sign is 3 bytes
	} {
		if got := c.spec.ShowsStandIns(); got != c.want {
			t.Errorf("%+v: ShowsStandIns %t, want %t", c.spec, got, c.want)
		}
	}
}
