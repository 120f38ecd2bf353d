package install

import (
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tailscale/hujson"
)

// FuzzHookEditRoundTrip: on any HuJSON object, merging a server's hooks
// keeps every comment and gives valid HuJSON, and taking them out again
// gives back the same document (the same values and comments; whitespace
// inside an empty container may go).
func FuzzHookEditRoundTrip(f *testing.F) {
	for _, docs := range preexisting {
		for _, d := range docs {
			f.Add(d)
		}
	}
	f.Add("{\n  \"hooks\": {\n    \"BeforeTool\": [ // none\n    ],\n  },\n}\n")
	f.Add(`{/*a*/"hooks"/*b*/:/*c*/{/*d*/"AfterTool"/*e*/:[/*f*/{"hooks":[]}/*g*/,]/*h*/}/*i*/}`)
	gemini := hooks.GeminiClient
	gemini.Syntax.TrailingCommas = true // the editor handles them; try them too
	c := &gemini
	f.Fuzz(func(t *testing.T, doc string) {
		if strings.Contains(doc, "interceptor") {
			return // hooks of its own: merge updates rather than adds
		}
		e, err := parseConfig("f", []byte(doc), c)
		if err != nil {
			return
		}
		o := Options{Client: c.Name, Server: "wf", Bin: testBin, Approve: ApproveOptions{On: true}}
		out, err := mergeHooks("f", e, hookFile{c}.entries(o), "wf", false)
		if err != nil {
			return // a "hooks" that is not an object, and the like
		}
		if _, err := hujson.Parse(out); err != nil {
			t.Fatalf("merge made invalid HuJSON (%v):\n%s", err, out)
		}
		checkCommentsKept(t, doc, string(out))
		e, err = parseConfig("f", out, c)
		if err != nil {
			t.Fatal(err)
		}
		back, err := unmergeHooks("f", e, "wf", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		checkCommentsKept(t, doc, string(back))
		if minimal(back) != minimal([]byte(doc)) {
			t.Fatalf("uninstall did not give the document back:\n%s\nwant:\n%s\n(installed:\n%s)", back, doc, out)
		}
	})
}

// minimal is doc without whitespace, comments and trailing commas.
func minimal(doc []byte) string {
	v, err := hujson.Parse(append([]byte(nil), doc...))
	if err != nil {
		return "invalid: " + err.Error()
	}
	v.Minimize()
	return string(v.Pack())
}
