package proxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// cdtList is chrome-devtools-mcp 1.11.0's tools/list, cut to what the
// tests read: take_screenshot's uid is optional (left out: the whole
// page), click's is required; every page-scoped tool requires pageId.
const cdtList = `{"jsonrpc":"2.0","id":"L","result":{"tools":[
 {"name":"take_snapshot","inputSchema":{"type":"object","properties":{"pageId":{"type":"number","description":"The page id"}},"required":["pageId"]}},
 {"name":"take_screenshot","inputSchema":{"type":"object","properties":{"pageId":{"type":"number"},"uid":{"type":"string","description":"The uid of an element on the page from the page content snapshot. If omitted, takes a page screenshot."},"fullPage":{"type":"boolean"}},"required":["pageId"]}},
 {"name":"click","inputSchema":{"type":"object","properties":{"pageId":{"type":"number"},"uid":{"type":"string","description":"The uid of an element"}},"required":["pageId","uid"]}}]}}`

// proxyFor is a rewriter with the handles file text, which has seen list.
func proxyFor(t *testing.T, handles, list string) (*Rewriter, gjson.Result) {
	t.Helper()
	specs, err := token.ParseHandles([]byte(handles), "h.json")
	if err != nil {
		t.Fatal(err)
	}
	rw := newRW(t, Config{Server: "chrome-devtools", Options: carry.Options{Handles: specs}})
	rw.fromClient([]byte(`{"jsonrpc":"2.0","id":"L","method":"tools/list"}`))
	return rw, gjson.ParseBytes(rw.fromServer([]byte(list)))
}

// Issue 35 item 7, as it ran against the real server: a uid handle as
// docs/handles.md's table suggests; a snapshot with a single uid; then
// take_screenshot without uid (the whole page) got that uid and failed
// ("Node is not of type HTMLElement"). Now a call that leaves an optional
// argument out goes on as the model made it, and the argument stays in the
// schema (the model can still name an element); click, which requires a
// uid, still gets the one held.
func TestProxyOptionalArgumentNotInjected(t *testing.T) {
	rw, list := proxyFor(t, `{"handles":[{"name":"uid","from":{"tools":["take_snapshot"],"text":"uid=(\\S+)"}}]}`, cdtList)
	if shot := list.Get("result.tools.1.inputSchema"); !shot.Get("properties.uid").Exists() || shot.Get("required").Raw != `["pageId"]` ||
		!strings.HasPrefix(shot.Get("properties.uid.description").Str, "The uid of an element on the page from the page content snapshot. If omitted, takes a page screenshot.") {
		t.Fatalf("take_screenshot's optional uid was changed: %s", shot.Raw)
	}
	if click := list.Get("result.tools.2.inputSchema"); click.Get("properties.uid").Exists() || strings.Contains(click.Get("required").Raw, "uid") {
		t.Fatalf("click's required uid (a rotating handle) is still asked of the model: %s", click.Raw)
	}
	rw.fromClient(callMsg("1", "take_snapshot", `{"pageId":1}`))
	rw.fromServer(textResult("1", `## Latest page snapshot\nuid=1_0 RootWebArea \"Probe\" url=\"about:blank\"`))
	in := callMsg("2", "take_screenshot", `{"pageId":1}`)
	if out := rw.fromClient(in); !same(out, in) {
		t.Fatalf("a whole-page screenshot became an element's: %s", out)
	}
	if out := rw.fromClient(callMsg("3", "click", `{"pageId":1}`)); gjson.GetBytes(out, "params.arguments.uid").Str != "1_0" {
		t.Fatalf("click, whose uid is required: %s", out)
	}
	// "inject": "always" says the absence means nothing: the old way.
	rw, list = proxyFor(t, `{"handles":[{"name":"uid","inject":"always","from":{"tools":["take_snapshot"],"text":"uid=(\\S+)"}}]}`, cdtList)
	if list.Get("result.tools.1.inputSchema.properties.uid").Exists() {
		t.Fatalf(`"inject": "always": the argument is still asked of the model: %s`, list.Get("result.tools.1").Raw)
	}
	rw.fromClient(callMsg("1", "take_snapshot", `{"pageId":1}`))
	rw.fromServer(textResult("1", `uid=1_0 RootWebArea`))
	if out := rw.fromClient(callMsg("2", "take_screenshot", `{"pageId":1}`)); gjson.GetBytes(out, "params.arguments.uid").Str != "1_0" {
		t.Fatalf(`"inject": "always": %s`, out)
	}
}

// The note a stable handle's argument gets says only what is true: no
// stand-in where the model never reads one (a number, a 6-character
// index), that the value comes once a starts tool returned one, and it is
// a sentence of its own after the server's description.
func TestProxySchemaNoteIsTrue(t *testing.T) {
	_, list := proxyFor(t, `{"handles":[{"name":"pageId","type":"number","lifetime":"stable","starts":["new_page"],
	  "from":{"tools":["new_page"],"text":"(?m)^(\\d+): .*\\[selected\\]$"}}]}`, cdtList)
	desc := list.Get("result.tools.0.inputSchema.properties.pageId.description").Str
	want := "The page id. Interceptor fills this in when it is left out, with the pageId that new_page returned (once one has). To use another, pass its value."
	if desc != want {
		t.Fatalf("pageId's description:\n got %q\nwant %q", desc, want)
	}
	if req := list.Get("result.tools.0.inputSchema.required").Raw; strings.Contains(req, "pageId") {
		t.Fatalf("a stable handle's argument is still required: %s", req)
	}
	// No description: the note alone. A long string handle: the stand-in.
	_, list = proxyFor(t, `{"handles":[{"name":"pageId","lifetime":"stable","starts":["new_page","select_page"],
	  "from":{"tools":["new_page","select_page"],"meta":"pageId"}}]}`, cdtList)
	desc = list.Get("result.tools.1.inputSchema.properties.pageId.description").Str
	if !strings.HasPrefix(desc, "Interceptor fills this in when it is left out, with the pageId that new_page or select_page returned (once one has). To use another, pass it as an earlier result shows it: a value, or a stand-in [pageId … held by interceptor].") {
		t.Fatalf("a string handle's note: %q", desc)
	}
	// workflow-server's index: 6 characters, never a stand-in.
	_, list = proxyFor(t, `{"handles":[{"name":"session_index","lifetime":"stable","pattern":"[A-Z2-7]{6}","starts":["start_session"],
	  "from":{"meta":"session_index"}}]}`, `{"jsonrpc":"2.0","id":"L","result":{"tools":[
	  {"name":"next_activity","inputSchema":{"type":"object","properties":{"session_index":{"type":"string","description":"Session index from start_session:"}},"required":["session_index"]}}]}}`)
	desc = list.Get("result.tools.0.inputSchema.properties.session_index.description").Str
	if desc != "Session index from start_session. Interceptor fills this in when it is left out, with the session_index that start_session returned (once one has). To use another, pass its value." {
		t.Fatalf("session_index's description: %q", desc)
	}
	// An optional argument interceptor does not fill in: where a stand-in
	// may be shown, one line says it may be passed; else nothing changes.
	_, list = proxyFor(t, `{"handles":[{"name":"uid","stand_ins":"all","from":{"text":"uid=(\\S+)"}}]}`, cdtList)
	if desc := list.Get("result.tools.1.inputSchema.properties.uid.description").Str; !strings.HasSuffix(desc, "takes a page screenshot. A stand-in [uid … held by interceptor] shown in an earlier result may be passed here: interceptor replaces it with its value.") {
		t.Fatalf("an optional argument's stand-in line: %q", desc)
	}
}

// listOf is a tools/list response with the tools recorded in file (the
// real server's, testdata).
func listOf(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return `{"jsonrpc":"2.0","id":"L","result":{"tools":` + strings.TrimSpace(string(b)) + `}}`
}

// exampleHandles is the text of examples/servers/<server>/handles.json.
func exampleHandles(t *testing.T, server string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "servers", server, "handles.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The chrome-devtools example with the tools chrome-devtools-mcp 1.11.0
// lists: the selected page's id goes into every page-scoped call that
// names none, never into select_page or close_page (the model's choice),
// and a whole-page screenshot stays one.
func TestExampleChromeDevtools(t *testing.T) {
	rw, list := proxyFor(t, exampleHandles(t, "chrome-devtools"), listOf(t, "chrome-devtools-mcp-1.11.0.tools.json"))
	for _, tool := range list.Get("result.tools").Array() {
		name, pageID := tool.Get("name").Str, tool.Get("inputSchema.properties.pageId")
		switch {
		case !pageID.Exists():
		case name == "select_page" || name == "close_page":
			if strings.Contains(pageID.Get("description").Str, "nterceptor") || !strings.Contains(tool.Get("inputSchema.required").Raw, "pageId") {
				t.Errorf("%s: the model's choice of a page was changed: %s", name, tool.Get("inputSchema").Raw)
			}
		case strings.Contains(pageID.Get("description").Str, "stand-in") || !strings.HasSuffix(pageID.Get("description").Str, "with the pageId that list_pages or new_page or select_page or close_page returned (once one has). To use another, pass its value."):
			t.Errorf("%s: pageId's description %q", name, pageID.Get("description").Str)
		}
	}
	rw.fromClient(callMsg("1", "new_page", `{"url":"http://127.0.0.1:8000/p.html"}`))
	rw.fromServer(textResult("1", `## Pages\n1: about:blank\n2: Probe (http://127.0.0.1:8000/p.html) [selected]`))
	for _, c := range []struct{ tool, args, want string }{
		{"take_snapshot", `{}`, `{"pageId":2}`},
		{"take_screenshot", `{}`, `{"pageId":2}`},
		{"take_screenshot", `{"pageId":"2"}`, `{"pageId":2}`},
		{"click", `{"uid":"1_2","pageId":1}`, `{"uid":"1_2","pageId":1}`},
		{"select_page", `{}`, `{}`},
		{"close_page", `{}`, `{}`},
	} {
		if got := gjson.GetBytes(rw.fromClient(callMsg("2", c.tool, c.args)), "params.arguments").Raw; got != c.want {
			t.Errorf("%s %s went out as %s, want %s", c.tool, c.args, got, c.want)
		}
	}
}

// The Playwright example with the tools @playwright/mcp 0.0.83 lists: a
// tab index is never filled in, and one named as a string goes out as the
// number the server takes; the page-wide calls stay page-wide.
func TestExamplePlaywright(t *testing.T) {
	rw, list := proxyFor(t, exampleHandles(t, "playwright"), listOf(t, "playwright-mcp-0.0.83.tools.json"))
	for _, tool := range list.Get("result.tools").Array() {
		if tool.Get("name").Str == "browser_tabs" && strings.Contains(tool.Get("inputSchema").Raw, "nterceptor") {
			t.Errorf("browser_tabs's schema names interceptor, which never fills index in: %s", tool.Get("inputSchema").Raw)
		}
	}
	rw.fromClient(callMsg("1", "browser_tabs", `{"action":"new"}`))
	rw.fromServer(textResult("1", `### Result\n- 0: [Probe](http://127.0.0.1:8000/p.html)\n- 1: (current) [Two](http://127.0.0.1:8000/q.html)`))
	for _, c := range []struct{ tool, args, want string }{
		{"browser_tabs", `{"action":"select","index":"0"}`, `{"action":"select","index":0}`},
		{"browser_tabs", `{"action":"close"}`, `{"action":"close"}`},
		{"browser_tabs", `{"action":"select","index":"7"}`, `{"action":"select","index":"7"}`},
		{"browser_take_screenshot", `{"type":"png"}`, `{"type":"png"}`},
	} {
		if got := gjson.GetBytes(rw.fromClient(callMsg("2", c.tool, c.args)), "params.arguments").Raw; got != c.want {
			t.Errorf("%s %s went out as %s, want %s", c.tool, c.args, got, c.want)
		}
	}
	// One tab: the one index held is still not filled in.
	rw.fromClient(callMsg("3", "browser_tabs", `{"action":"close","index":1}`))
	rw.fromServer(textResult("3", `### Result\n- 0: (current) [Probe](http://127.0.0.1:8000/p.html)`))
	if got := gjson.GetBytes(rw.fromClient(callMsg("4", "browser_tabs", `{"action":"close"}`)), "params.arguments").Raw; got != `{"action":"close"}` {
		t.Errorf("close with one tab held went out as %s", got)
	}
}
