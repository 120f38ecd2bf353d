package fakemodel

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	if resp.StatusCode != 200 {
		t.Fatalf("%s: status %d: %s", url, resp.StatusCode, b.String())
	}
	return b.String()
}

func TestPlan(t *testing.T) {
	s := New(Options{})
	tools := []Tool{{Name: "Bash"}, {Name: "mcp__wf__start_session"}, {Name: "mcp__wf__next_step"}, {Name: "mcp__other__echo"}}
	var got []string
	for n := 0; n < 6; n++ {
		act, main := s.Plan(n, tools)
		if !main {
			t.Fatalf("n=%d: not main", n)
		}
		got = append(got, act.String())
	}
	want := []string{
		`call mcp__wf__start_session {}`,
		`call mcp__wf__next_step {"step":"one"}`,
		`call mcp__other__echo {"text":"hello from the e2e model"}`,
		`call mcp__wf__next_step {"step":"two"}`,
		`text "` + FinalText + `"`,
		`text "` + FinalText + `"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("script:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Naming schemes of each client.
	for _, tc := range []struct {
		tools []Tool
		want  string
	}{
		{[]Tool{{Name: "mcp_wf_start_session"}, {Name: "mcp_wf_next_step"}}, "mcp_wf_next_step"},
		{[]Tool{{Name: "wf_start_session"}, {Name: "wf_next_step"}, {Name: "xwf_next_step"}}, "wf_next_step"},
		{[]Tool{{Namespace: "mcp__wf", Name: "start_session"}, {Namespace: "mcp__wf", Name: "next_step"}}, "mcp__wf/next_step"},
	} {
		if act, _ := s.Plan(1, tc.tools); act.Tool.String() != tc.want {
			t.Errorf("tools %v: got %s, want %s", tc.tools, act.Tool, tc.want)
		}
	}
	if act, main := s.Plan(0, []Tool{{Name: "Bash"}, {Name: "mcp__wfx__next_step"}}); main || act.IsTool() {
		t.Errorf("side request planned %v main=%v", act, main)
	}
}

func TestAPIs(t *testing.T) {
	dir := t.TempDir()
	srv := httptest.NewServer(New(Options{RecordDir: dir}))
	defer srv.Close()

	// Anthropic: one tool result so far -> next_step(one), streamed.
	out := post(t, srv.URL+"/v1/messages?beta=true", `{"model":"m","stream":true,
		"tools":[{"name":"mcp__wf__start_session"},{"name":"mcp__wf__next_step"}],
		"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"mcp__wf__start_session","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"ok"}]}]}`)
	for _, want := range []string{"event: message_start", `"name":"mcp__wf__next_step"`, `"partial_json":"{\"step\":\"one\"}"`, `"stop_reason":"tool_use"`, "event: message_stop"} {
		if !strings.Contains(out, want) {
			t.Errorf("anthropic stream lacks %s:\n%s", want, out)
		}
	}
	// Anthropic side request, not streamed.
	out = post(t, srv.URL+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"title?"}]}`)
	if !strings.Contains(out, SideText) || !strings.Contains(out, `"stop_reason":"end_turn"`) {
		t.Errorf("anthropic side: %s", out)
	}

	// Responses (Codex): namespace tools, two outputs -> echo is absent, so next_step(two).
	out = post(t, srv.URL+"/v1/responses", `{"model":"m","stream":true,
		"tools":[{"type":"function","name":"shell"},{"type":"namespace","name":"mcp__wf","tools":[{"type":"function","name":"start_session"},{"type":"function","name":"next_step"}]}],
		"input":[{"type":"message","role":"user","content":[]},{"type":"function_call_output","call_id":"1"},{"type":"function_call_output","call_id":"2"}]}`)
	for _, want := range []string{"event: response.output_item.done", `"namespace":"mcp__wf"`, `"name":"next_step"`, `"arguments":"{\"step\":\"two\"}"`, "event: response.completed"} {
		if !strings.Contains(out, want) {
			t.Errorf("responses stream lacks %s:\n%s", want, out)
		}
	}

	// Chat completions (OpenCode): three tool messages, echo offered -> next_step(two).
	out = post(t, srv.URL+"/v1/chat/completions", `{"model":"m","stream":true,
		"tools":[{"type":"function","function":{"name":"wf_start_session"}},{"type":"function","function":{"name":"wf_next_step"}},{"type":"function","function":{"name":"other_echo"}}],
		"messages":[{"role":"user","content":"go"},{"role":"tool"},{"role":"tool"},{"role":"tool"}]}`)
	for _, want := range []string{`"name":"wf_next_step"`, `"finish_reason":"tool_calls"`, "data: [DONE]"} {
		if !strings.Contains(out, want) {
			t.Errorf("chat stream lacks %s:\n%s", want, out)
		}
	}

	// Gemini: four function responses -> final text; a JSON side request gets schema-shaped JSON.
	out = post(t, srv.URL+"/v1beta/models/g:streamGenerateContent?alt=sse", `{
		"tools":[{"functionDeclarations":[{"name":"mcp_wf_start_session"},{"name":"mcp_wf_next_step"},{"name":"mcp_other_echo"}]}],
		"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"user","parts":[{"functionResponse":{}},{"functionResponse":{}}]},{"role":"user","parts":[{"functionResponse":{}},{"functionResponse":{}}]}]}`)
	if !strings.Contains(out, "data: ") || !strings.Contains(out, FinalText) {
		t.Errorf("gemini final: %s", out)
	}
	out = post(t, srv.URL+"/v1beta/models/g:generateContent", `{"contents":[],"generationConfig":{"responseMimeType":"application/json",
		"responseJsonSchema":{"type":"OBJECT","properties":{"next_speaker":{"type":"STRING","enum":["user","model"]},"score":{"type":"INTEGER"}}}}}`)
	var resp struct {
		Candidates []struct {
			Content struct {
				Parts []struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil || len(resp.Candidates) == 0 {
		t.Fatalf("gemini side: %v %s", err, out)
	}
	if got := resp.Candidates[0].Content.Parts[0].Text; got != `{"next_speaker":"user","score":1}` {
		t.Errorf("gemini JSON side answer %s", got)
	}

	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 6 {
		t.Errorf("recorded %d files, want 6: %v", len(files), files)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "0001-anthropic-main.json"))
	if !strings.Contains(string(b), "mcp__wf__next_step") {
		t.Errorf("recorded body: %s", b)
	}
}

func TestBarrier(t *testing.T) {
	b := &Barrier{AtResults: 1, Parties: 2, Timeout: 5 * time.Second}
	srv := httptest.NewServer(New(Options{Barrier: b}))
	defer srv.Close()
	body := `{"stream":false,"tools":[{"name":"wf_start_session"},{"name":"wf_next_step"}],
		"messages":[{"role":"user","content":[{"type":"tool_result"}]}]}`
	first := make(chan time.Time, 1)
	go func() { post(t, srv.URL+"/v1/messages", body); first <- time.Now() }()
	time.Sleep(200 * time.Millisecond)
	select {
	case <-first:
		t.Fatal("first party was not held")
	default:
	}
	// A side request and a request at another depth are not held.
	post(t, srv.URL+"/v1/messages", `{"messages":[]}`)
	post(t, srv.URL+"/v1/messages", `{"tools":[{"name":"wf_start_session"},{"name":"wf_next_step"}],"messages":[]}`)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); post(t, srv.URL+"/v1/messages", body) }()
	wg.Wait()
	select {
	case <-first:
	case <-time.After(2 * time.Second):
		t.Fatal("first party not released by the second")
	}
	if b.TimedOut() != 0 {
		t.Errorf("timed out %d", b.TimedOut())
	}
}

func TestProbeScript(t *testing.T) {
	p := ProbeScript{Marker: "probe"}
	tools := []Tool{{Name: "Bash"}, {Name: "mcp__wf-server__probe"}, {Namespace: "mcp__wf", Name: "Probe_X"}, {Name: "mcp__wf-server__probe"}}
	var got []string
	for n := 0; n < 3; n++ {
		act, main := p.Plan(Conversation{Results: make([]string, n)}, tools)
		if !main {
			t.Fatalf("n=%d: not main", n)
		}
		got = append(got, act.String())
	}
	want := []string{
		`call mcp__wf-server__probe {"probe":"mcp__wf-server__probe"}`,
		`call mcp__wf/Probe_X {"probe":"mcp__wf/Probe_X"}`,
		`text "` + FinalText + `"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("probe script:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if act, main := p.Plan(Conversation{}, []Tool{{Name: "Bash"}}); main || act.IsTool() {
		t.Errorf("no probe tool: planned %v main=%v", act, main)
	}
}

func TestToolsOf(t *testing.T) {
	for body, want := range map[string]string{
		`{"tools":[{"name":"mcp__wf__a"},{"name":"Bash"}]}`:                                                           "mcp__wf__a Bash",
		`{"tools":[{"type":"function","function":{"name":"wf_a"}}]}`:                                                  "wf_a",
		`{"tools":[{"type":"function","name":"shell"},{"type":"namespace","name":"mcp__wf","tools":[{"name":"a"}]}]}`: "shell mcp__wf/a",
		`{"tools":[{"functionDeclarations":[{"name":"mcp_wf_a"},{"name":"x"}]}]}`:                                     "mcp_wf_a x",
		`not json`: "",
	} {
		var names []string
		for _, tool := range ToolsOf([]byte(body)) {
			names = append(names, tool.String())
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("ToolsOf(%s) = %q, want %q", body, got, want)
		}
	}
}

// recordingScript records the conversations it is asked to plan.
type recordingScript struct {
	mu    sync.Mutex
	convs []Conversation
}

func (r *recordingScript) Plan(c Conversation, tools []Tool) (Action, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.convs = append(r.convs, c)
	return Action{Text: FinalText}, true
}

// Each API's tool results reach the script as text.
func TestConversationResults(t *testing.T) {
	rec := &recordingScript{}
	srv := httptest.NewServer(New(Options{Script: rec}))
	defer srv.Close()
	post(t, srv.URL+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":[
		{"type":"tool_result","tool_use_id":"a","content":"first\nsession_token: A1"},
		{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"second"}]}]}]}`)
	post(t, srv.URL+"/v1/responses", `{"model":"m","input":[{"type":"function_call_output","call_id":"1","output":"r1"},
		{"type":"function_call_output","call_id":"2","output":[{"type":"input_text","text":"r2"}]}]}`)
	post(t, srv.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"tool","content":"c1"},{"role":"tool","content":[{"type":"text","text":"c2"}]}]}`)
	post(t, srv.URL+"/v1beta/models/g:generateContent", `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"g1"}}}]}]}`)
	want := [][]string{{"first\nsession_token: A1", "second\ntext"}, {"r1", "r2\ninput_text"}, {"c1", "c2\ntext"}, {"f\ng1"}}
	if len(rec.convs) != len(want) {
		t.Fatalf("%d conversations planned, want %d", len(rec.convs), len(want))
	}
	for i, c := range rec.convs {
		if strings.Join(c.Results, "|") != strings.Join(want[i], "|") {
			t.Errorf("conversation %d: results %q, want %q", i, c.Results, want[i])
		}
	}
}
