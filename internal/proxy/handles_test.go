package proxy

import (
	"os"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// dcConfig is a proxy for Desktop Commander with the example handles file.
func dcConfig(t *testing.T) Config {
	t.Helper()
	data, err := os.ReadFile("../../examples/servers/desktop-commander/handles.json")
	if err != nil {
		t.Fatal(err)
	}
	specs, err := token.ParseHandles(data, "handles.json")
	if err != nil {
		t.Fatal(err)
	}
	return Config{Server: "desktop-commander", Options: carry.Options{Handles: specs}}
}

func callMsg(id, tool, args string) []byte { return []byte(call(id, tool, args)) }

func textResult(id, text string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + text + `"}]}}`)
}

// Two live processes: a call naming none reaches the latest, one naming the
// first reaches it, a tool that takes no pid never gets one.
func TestProxyHandlesTwoProcesses(t *testing.T) {
	rw := newRW(t, dcConfig(t))
	for i, pid := range []string{"1001", "2002"} {
		id := string(rune('1' + i))
		rw.fromClient(callMsg(id, "start_process", `{"command":"bash"}`))
		rw.fromServer(textResult(id, "Process started with PID "+pid+" (shell: /bin/bash)"))
	}
	out := rw.fromClient(callMsg("3", "read_process_output", `{"timeout_ms":100}`))
	if got := gjson.GetBytes(out, "params.arguments.pid").Raw; got != "2002" {
		t.Fatalf("latest: %s", out)
	}
	out = rw.fromClient(callMsg("4", "read_process_output", `{"pid":1001}`))
	if got := gjson.GetBytes(out, "params.arguments.pid").Raw; got != "1001" {
		t.Fatalf("named first: %s", out)
	}
	in := callMsg("5", "read_file", `{"path":"/x"}`)
	if out := rw.fromClient(in); !same(out, in) {
		t.Fatalf("read_file was rewritten: %s", out)
	}
	// A failed start retires the pid: the call is answered by interceptor
	// with an error the model reads, and never reaches the server.
	rw.fromClient(callMsg("6", "start_process", `{"command":"nope"}`))
	rw.fromServer(textResult("6", "Error: spawn nope ENOENT"))
	o := rw.FromClient(callMsg("7", "read_process_output", `{}`))
	back := gjson.ParseBytes(o.Back)
	if !o.Drop || !back.Get("result.isError").Bool() || !strings.Contains(back.Get("result.content.0.text").Str, "start_process returned no pid") {
		t.Fatalf("after a failed start: drop %v, back %s", o.Drop, o.Back)
	}
	if strings.Contains(string(o.Back), "2002") {
		t.Fatalf("the retired pid reached the model's answer: %s", o.Back)
	}
	// Naming a live pid still works.
	out = rw.fromClient(callMsg("8", "kill_process", `{"pid":2002}`))
	if got := gjson.GetBytes(out, "params.arguments.pid").Raw; got != "2002" {
		t.Fatalf("named after retirement: %s", out)
	}
}

// Which tools take a handle is learned from tools/list when the handle
// names none; a stable handle stays in the schema, optional and described,
// a rotating one is removed.
func TestProxyHandlesSchemas(t *testing.T) {
	specs, err := token.ParseHandles([]byte(`{"handles":[
	 {"name":"session_index","lifetime":"stable","starts":["start_session"],
	  "from":[{"meta":"session_index","json":"session_index"}]},
	 {"name":"cursor","arg":"after","from":[{"json":"pageInfo.endCursor"}]}]}`), "h.json")
	if err != nil {
		t.Fatal(err)
	}
	rw := newRW(t, Config{Server: "wf", Options: carry.Options{Handles: specs}})
	rw.fromClient([]byte(`{"jsonrpc":"2.0","id":"L","method":"tools/list"}`))
	list := rw.fromServer([]byte(`{"jsonrpc":"2.0","id":"L","result":{"tools":[
	 {"name":"start_session","inputSchema":{"type":"object","properties":{"workflow_id":{"type":"string"}}}},
	 {"name":"next_activity","inputSchema":{"type":"object","properties":{"session_index":{"type":"string","description":"The session."},"activity_id":{"type":"string"}},"required":["session_index","activity_id"]}},
	 {"name":"list_issues","inputSchema":{"type":"object","properties":{"after":{"type":"string"}},"required":["after"]}}]}}`))
	next := gjson.GetBytes(list, "result.tools.1.inputSchema")
	if !next.Get("properties.session_index").Exists() || strings.Contains(next.Get("required").Raw, "session_index") ||
		!strings.HasPrefix(next.Get("properties.session_index.description").Str, "The session. Interceptor fills this in when it is left out") {
		t.Fatalf("stable handle's schema: %s", next.Raw)
	}
	if li := gjson.GetBytes(list, "result.tools.2.inputSchema"); li.Get("properties.after").Exists() || strings.Contains(li.Raw, "after") {
		t.Fatalf("rotating handle's schema: %s", li.Raw)
	}
	// start_session's index; tools without the argument get none.
	rw.fromClient(callMsg("1", "start_session", `{}`))
	rw.fromServer([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"session_index\":\"ABCDEF\"}"}],"_meta":{"session_index":"ABCDEF"}}}`))
	out := rw.fromClient(callMsg("2", "next_activity", `{"activity_id":"a"}`))
	if gjson.GetBytes(out, "params.arguments.session_index").Str != "ABCDEF" {
		t.Fatalf("next_activity: %s", out)
	}
	in := callMsg("3", "start_session", `{}`)
	if out := rw.fromClient(in); !same(out, in) {
		t.Fatalf("start_session (no such argument) was rewritten: %s", out)
	}
}
