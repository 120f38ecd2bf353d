package wfserver

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// lastLineToken is the value of the last line that is exactly
// "session_token: <value>" (the real line of an awkward answer).
func lastLineToken(text string) string {
	tok := ""
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, "session_token: "); ok {
			tok = v
		}
	}
	return tok
}

func TestAwkwardNestedFlow(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "log.jsonl")
	cs, _ := connect(t, Config{LogPath: logPath, Awkward: true})

	// start_session answers in TOON: the token on an indented line.
	res := call(t, cs, "start_session", map[string]any{"workflow_id": "release-review"})
	o1, _ := res.Meta["session_token"].(string)
	if !strings.Contains(text(res), "\n  session_token: "+o1) || lastLineToken(text(res)) != "" {
		t.Fatalf("start_session text is not TOON with an indented token line:\n%s", text(res))
	}

	// next_step: prose, code, a quoted stranger's token and an echo of the
	// old token come before the real line.
	res = call(t, cs, "next_step", map[string]any{"step": "one", "session_token": o1})
	o2, _ := res.Meta["session_token"].(string)
	txt := text(res)
	real := strings.Index(txt, "\nsession_token: "+o2)
	for _, before := range []string{ProseLine, CodeLine, QuoteLine, o1} {
		if i := strings.Index(txt, before); i < 0 || i > real {
			t.Errorf("next_step text lacks %q before the real line:\n%s", before, txt)
		}
	}
	if lastLineToken(txt) != o2 || !strings.HasSuffix(txt, o2) {
		t.Errorf("next_step's real line is not last: %q", txt)
	}

	// A nested session needs a verified parent: a stand-in, a stale or a
	// foreign token is refused.
	for _, bad := range []string{"[session_token 1a2b3c4d held by interceptor]", o1, StrangerToken} {
		if r := call(t, cs, "start_session", map[string]any{"workflow_id": "child", "parent_session_token": bad}); !r.IsError {
			t.Errorf("start_session with parent %q accepted", bad)
		}
	}
	res = call(t, cs, "start_session", map[string]any{"workflow_id": "child-review", "parent_session_token": o2})
	c1, _ := res.Meta["session_token"].(string)
	if !strings.Contains(text(res), "  parent_session_token: "+o2) {
		t.Errorf("child's TOON does not echo the parent's token:\n%s", text(res))
	}
	res = call(t, cs, "next_step", map[string]any{"step": "child-one", "session_token": c1})
	if res.IsError {
		t.Fatalf("child next_step: %s", text(res))
	}
	// The orchestrator goes on with its own (older) token: still the latest of its session.
	res = call(t, cs, "next_step", map[string]any{"step": "two", "session_token": o2})
	o3, _ := res.Meta["session_token"].(string)
	if res.IsError || o3 == "" {
		t.Fatalf("orchestrator next_step: %s", text(res))
	}

	// get_status: the unchanged token in _meta only.
	res = call(t, cs, "get_status", map[string]any{"session_token": o3})
	if res.IsError || res.Meta["session_token"] != o3 || strings.Contains(text(res), o3) {
		t.Errorf("get_status: meta %v text %q", res.Meta, text(res))
	}

	// Checkpoints: JSON text with the handle; resume needs handle AND token.
	res = call(t, cs, "save_checkpoint", map[string]any{"session_token": o3})
	var saved struct {
		Handle string `json:"checkpoint_handle"`
		Token  string `json:"session_token"`
	}
	if err := json.Unmarshal([]byte(text(res)), &saved); err != nil || saved.Handle == "" || saved.Token != res.Meta["session_token"] {
		t.Fatalf("save_checkpoint text %q: %v", text(res), err)
	}
	if r := call(t, cs, "resume_checkpoint", map[string]any{"checkpoint_handle": saved.Handle}); !r.IsError || !strings.Contains(text(r), VerdictMissing) {
		t.Errorf("resume_checkpoint without the token: %q", text(r))
	}
	if r := call(t, cs, "resume_checkpoint", map[string]any{"checkpoint_handle": "ckpt_nope", "session_token": saved.Token}); !r.IsError || !strings.Contains(text(r), VerdictBadHandle) {
		t.Errorf("resume_checkpoint with an unknown handle: %q", text(r))
	}
	res = call(t, cs, "resume_checkpoint", map[string]any{"checkpoint_handle": saved.Handle, "session_token": saved.Token})
	if res.IsError || lastLineToken(text(res)) != res.Meta["session_token"] {
		t.Errorf("resume_checkpoint: %q", text(res))
	}

	recs, err := ReadLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	orchestrator, _ := Parse(o1)
	for _, r := range recs {
		if r.Event != "call" {
			continue
		}
		v := r.Tool + "=" + r.Verdict
		if r.ParentSID != "" {
			v += " parent"
			if r.ParentSID != orchestrator.SID {
				t.Errorf("child's parent %s, want %s", r.ParentSID, orchestrator.SID)
			}
		}
		got = append(got, v)
	}
	want := "start_session=ok next_step=ok start_session=malformed_token start_session=stale_token start_session=malformed_token " +
		"start_session=ok parent next_step=ok next_step=ok get_status=ok save_checkpoint=ok resume_checkpoint=missing_token " +
		"resume_checkpoint=bad_checkpoint_handle resume_checkpoint=ok"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("log:\n got %s\nwant %s", g, want)
	}
}

func TestAwkwardSchemas(t *testing.T) {
	for _, optional := range []bool{false, true} {
		cs, _ := connect(t, Config{Awkward: true, TokenOptional: optional})
		tools, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]string{}
		for _, tool := range tools.Tools {
			b, _ := json.Marshal(tool.InputSchema)
			names[tool.Name] = string(b)
		}
		for _, name := range []string{"next_step", "get_status", "save_checkpoint", "resume_checkpoint"} {
			if req := strings.Contains(names[name], `"session_token"]`) || strings.Contains(names[name], `"session_token",`); req == optional {
				t.Errorf("TokenOptional=%v: %s schema %s", optional, name, names[name])
			}
		}
		if !strings.Contains(names["resume_checkpoint"], `"checkpoint_handle"`) || !strings.Contains(names["start_session"], `"parent_session_token"`) {
			t.Errorf("schemas %v", names)
		}
	}
}
