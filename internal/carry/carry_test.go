package carry

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// TestReadResultTextBlocks: a text block is one whose type is "text" or
// that has none (Gemini CLI's parts; a server's block without a type is
// still its own words), in hook mode and proxy mode alike; an embedded
// resource's text and a resource link are never read.
func TestReadResultTextBlocks(t *testing.T) {
	res := gjson.Parse(`{"content":[
		{"type":"text","text":"one"},
		{"text":"two"},
		{"type":"resource","resource":{"uri":"file:///a","text":"quoted"},"text":"also quoted"},
		{"type":"resource_link","uri":"file:///a","name":"a","text":"linked"},
		{"type":"image","data":"AAAA","mimeType":"image/png"},
		{"type":"text","text":3}
	],"_meta":{"k":"v"},"structuredContent":"{\"k\":\"s\"}"}`)
	specs := []token.Spec{token.FlagSpec("other", "other", 1, nil, nil, nil, nil)} // not in _meta: the texts are read
	for name, r := range map[string]token.Result{"hooks": ReadResult(res), "proxy": ReadResultFor(res, specs, "t")} {
		if !slices.Equal(r.Texts, []string{"one", "two"}) {
			t.Errorf("%s: texts %q", name, r.Texts)
		}
		if r.Meta.Get("k").Str != "v" || r.Structured.Get("k").Str != "s" {
			t.Errorf("%s: meta %s, structured %s", name, r.Meta.Raw, r.Structured.Raw)
		}
	}
	// A bare content array, and a string (Claude Code's
	// JSON.stringify(structuredContent), or plain text).
	if r := ReadResult(gjson.Parse(`[{"text":"a"},{"type":"text","text":"b"}]`)); !slices.Equal(r.Texts, []string{"a", "b"}) {
		t.Errorf("array: %q", r.Texts)
	}
	if r := ReadResult(gjson.Parse(`"{\"k\":\"s\"}"`)); r.Structured.Get("k").Str != "s" || r.Texts != nil {
		t.Errorf("string of JSON: %+v", r)
	}
	if r := ReadResult(gjson.Parse(`"k: v"`)); !slices.Equal(r.Texts, []string{"k: v"}) {
		t.Errorf("string: %q", r.Texts)
	}
}

// TestReadResultForSkipsTexts: the proxy's reader leaves the text blocks
// alone when every source that reads the tool finds its value in _meta
// (which a source reads first: token.Choose), and reads them when one may
// not, or when a source matches the text itself.
func TestReadResultForSkipsTexts(t *testing.T) {
	withLine := []token.Spec{{Name: "h", Arg: "h", From: []token.Source{{Meta: "h", Line: "h"}}}}
	textRe := []token.Spec{{Name: "h", Arg: "h", From: []token.Source{{Text: regexp.MustCompile(`h=(\w+)`)}}}}
	otherTool := []token.Spec{{Name: "h", Arg: "h", From: []token.Source{{Tools: []string{"other"}, Line: "h"}}}}
	res := gjson.Parse(`{"content":[{"type":"text","text":"h: x"}],"_meta":{"h":"v"}}`)
	if r := ReadResultFor(res, withLine, "t"); r.Texts != nil || r.Meta.Get("h").Str != "v" {
		t.Errorf("in _meta: texts %q", r.Texts)
	}
	if r := ReadResultFor(res, otherTool, "t"); r.Texts != nil {
		t.Errorf("no source reads the tool: texts %q", r.Texts)
	}
	if r := ReadResultFor(res, textRe, "t"); len(r.Texts) != 1 {
		t.Errorf("a text source: texts %q", r.Texts)
	}
	noMeta := gjson.Parse(`{"content":[{"type":"text","text":"h: x"}]}`)
	if r := ReadResultFor(noMeta, withLine, "t"); len(r.Texts) != 1 {
		t.Errorf("not in _meta: texts %q", r.Texts)
	}
}

// memory is a Holder in memory, which runs each update twice (as a store
// that lost a race does) to show Apply depends only on what it is given.
type memory struct {
	h       token.Holding
	updates int
}

func (m *memory) Update(fn func(token.Holding) bool) error {
	m.updates++
	for range 2 {
		next := maps.Clone(m.h)
		if next == nil {
			next = token.Holding{}
		}
		if fn(next) {
			m.h = next
		}
	}
	return nil
}

const (
	tok1 = "eyJzaWQiOiJvbmUifQ.0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	tok2 = "eyJzaWQiOiJ0d28ifQ.1f1e2d3c4b5a69788796a5b4c3d2e1f0"
	doc  = "eyJzaWQiOiJldmlsIn0.ATTACKER0123456789abcdefATTACKER"
)

func flagSpecs() []token.Spec {
	return []token.Spec{token.FlagSpec("session_token", "session_token", token.DefaultMinLen, nil, []string{"start_session"}, []string{"start_session"}, nil)}
}

func result(t *testing.T, raw string) token.Result {
	t.Helper()
	if !gjson.Valid(raw) {
		t.Fatalf("not JSON: %s", raw)
	}
	return ReadResult(gjson.Parse(raw))
}

// TestTakeAndRetire: a result's value is held and injected next; a start
// tool retires it before its result comes; once _meta carried the value, a
// prose line (a document the tool passed through) is not read.
func TestTakeAndRetire(t *testing.T) {
	specs := flagSpecs()
	hd := &memory{}
	taken, err := Take(hd, specs, "start_session", result(t, `{"content":[{"type":"text","text":"ok"}],"_meta":{"session_token":"`+tok1+`"}}`), nil)
	if err != nil || hd.h["session_token"].Default != tok1 || !hd.h["session_token"].MetaSeen {
		t.Fatalf("start: %+v %v", hd.h, err)
	}
	if len(taken.Captured) != 1 || strings.Contains(taken.Captured[0].String(), tok1) || !strings.Contains(taken.Captured[0].String(), "from _meta") || taken.Notes != nil {
		t.Fatalf("taken: %+v", taken)
	}
	// A raw document line, after _meta carried the value: not taken.
	if _, err := Take(hd, specs, "read_file", result(t, `{"content":[{"type":"text","text":"session_token: `+doc+`"}]}`), nil); err != nil {
		t.Fatal(err)
	}
	if got := hd.h["session_token"]; got.Default != tok1 || slices.Contains(got.Values, doc) {
		t.Fatalf("the document's line was taken: %+v", got)
	}
	// Most calls start nothing: the holder is not even asked.
	n := hd.updates
	if err := Retire(hd, specs, "next_step"); err != nil || hd.updates != n {
		t.Fatalf("retire on a tool that starts nothing: %d updates, %v", hd.updates-n, err)
	}
	if err := Retire(hd, specs, "start_session"); err != nil {
		t.Fatal(err)
	}
	if got := hd.h["session_token"]; got.Default != "" || got.Withdrawn == "" || !slices.Contains(got.Values, tok1) {
		t.Fatalf("after a start's call: %+v", got)
	}
	// The start returns none: a note says the one before is not injected.
	taken, _ = Take(hd, specs, "start_session", result(t, `{"content":[{"type":"text","text":"failed"}]}`), nil)
	if len(taken.Notes) != 1 || !strings.Contains(taken.Notes[0], "no longer injected") || hd.h["session_token"].Default != "" {
		t.Fatalf("a start without a value: %+v %+v", taken, hd.h)
	}
	// The next start's value is injected again.
	_, _ = Take(hd, specs, "start_session", result(t, `{"_meta":{"session_token":"`+tok2+`"}}`), nil)
	if got := hd.h["session_token"]; got.Default != tok2 || got.Withdrawn != "" {
		t.Fatalf("the next start: %+v", got)
	}
}

// TestTakeEcho: a result whose one value is what the call carried is an
// echo: held, not injected in place of the one held.
func TestTakeEcho(t *testing.T) {
	specs := flagSpecs()
	hd := &memory{h: token.Holding{"session_token": {Values: token.Held{tok1}, Default: tok1}}}
	carried := []string{tok2}
	if _, err := Take(hd, specs, "next_step", result(t, `{"structuredContent":{"session_token":"`+tok2+`"}}`), carried); err != nil {
		t.Fatal(err)
	}
	if got := hd.h["session_token"]; got.Default != tok1 || !slices.Contains(got.Values, tok2) {
		t.Fatalf("echo: %+v", got)
	}
}

func TestResume(t *testing.T) {
	specs := []token.Spec{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	rec := map[string]token.Live{"a": {Values: token.Held{"x"}, Default: "x"}, "b": {Withdrawn: "why"}, "c": {}}
	h := Resume(specs, func(name string) token.Live { return rec[name] })
	if len(h) != 2 || h["a"].Default != "x" || h["b"].Withdrawn != "why" {
		t.Fatalf("resumed %+v", h)
	}
}
