package proxy

import (
	"testing"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// Issue 20's loop through `interceptor proxy --arg session_index` (no other
// flag), as e2e/handles_e2e_test.go's TestHandlesIndex*/proxy runs it with
// real clients: dispatch_child returns a child's index, the model names it
// in one call, and that call's result carries the child's index in
// _meta.session_index (the session the call ran against). The parent's next
// call must still get the parent's index; with --arg alone the handle
// rotates, and it gets the child's.
func TestArgAloneKeepsTheParentsIndex(t *testing.T) {
	rw := newRW(t, Config{Server: "workflow-server", Options: carry.Options{Arg: "session_index", MetaKey: "session_index", MinLen: token.DefaultMinLen,
		SkipTools: []string{"start_session"}, StartTools: []string{"start_session"}}})
	call := func(id, tool, args string) []byte {
		return rw.fromClient([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`))
	}
	answer := func(id, idx, text string) {
		rw.fromServer([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"_meta":{"session_index":"` + idx + `"},"content":[{"type":"text","text":` + text + `}]}}`))
	}
	call("1", "start_session", `{"workflow_id":"release-review"}`)
	answer("1", "KXRMPT", `"{\"session_index\":\"KXRMPT\",\"status\":\"started\"}"`)
	call("2", "dispatch_child", `{"workflow_id":"child-review"}`)
	answer("2", "KXRMPT", `"{\"child_session_index\":\"ZBQWNL\",\"status\":\"dispatched\"}"`)
	if got := gjson.GetBytes(call("3", "get_activity", `{"activity_id":"child","session_index":"ZBQWNL"}`), "params.arguments.session_index").Str; got != "ZBQWNL" {
		t.Fatalf("the call naming the child got session_index %q, want the child's ZBQWNL", got)
	}
	answer("3", "ZBQWNL", `"# Activity: child\n\nsession_index: ZBQWNL"`)
	if got := gjson.GetBytes(call("4", "next_activity", `{"transition":"after-child"}`), "params.arguments.session_index").Str; got != "KXRMPT" {
		t.Errorf("the parent's next call got session_index %q, want the parent's KXRMPT (the child's is not the session's)", got)
	}
}
