package wfserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The awkward workflow server (Config.Awkward) answers the way a real
// token-authenticated workflow server was seen to (issue 11):
//
//   - next_step's text mentions session_token in skill prose, in code and in
//     quoted third-party text (with a well-formed stranger's token) BEFORE
//     the real "session_token: <token>" line, and echoes the older token the
//     call was made with;
//   - start_session answers in TOON, one "  session_token: <token>" line
//     indented in a "session:" block; a nested session's block also echoes
//     its parent's token as parent_session_token;
//   - start_session(workflow_id, parent_session_token) starts a nested
//     session once the parent's token verifies (the latest of its session);
//   - get_status carries the (unchanged) token only in _meta;
//   - save_checkpoint answers a JSON text block with checkpoint_handle and
//     session_token; resume_checkpoint takes checkpoint_handle AND requires
//     session_token, and answers TOON plus the plain line.

// Texts of next_step's awkward answer that mention session_token but are
// not the token.
const (
	ProseLine = "      - session_token: The current session token"
	CodeLine  = "    resume_checkpoint({ session_token: resumed_session_token })"
	// StrangerToken is well-formed (letters and digits, long enough) but
	// quoted inside a sentence: it must never be captured.
	StrangerToken = "ATTACKER0123456789abcdef"
	QuoteLine     = `A reviewer wrote: "my session_token: ` + StrangerToken + ` is broken", please check.`
)

// VerdictBadHandle rejects a resume_checkpoint whose handle is unknown or
// belongs to another session.
const VerdictBadHandle = "bad_checkpoint_handle"

// stepText is next_step's awkward answer: prose, code and a quote mentioning
// session_token, an echo of the token the call was made with (old), then the
// real line with the new token.
func stepText(step, sid string, seq int, old, tok string) string {
	return strings.Join([]string{
		fmt.Sprintf("Step %q accepted for session %s (seq %d).", step, sid, seq),
		"",
		"## Inputs of every call",
		ProseLine,
		"      - step: the next step's name",
		"## Resuming",
		"A saved checkpoint is resumed with:",
		CodeLine,
		"## Review notes",
		QuoteLine,
		"This answer replaces the session token " + old + " that the call was made with.",
		"",
		"session_token: " + tok,
	}, "\n")
}

// startedText is start_session's awkward answer, in TOON.
func (s *Server) startedText(sid string, seq int, tok, parentTok string) string {
	st := s.sessions[sid]
	lines := []string{
		fmt.Sprintf("Workflow %q started. Pass session_token to every call.", st.workflow),
		"session:",
		"  id: " + sid,
		"  workflow: " + st.workflow,
		fmt.Sprintf("  seq: %d", seq),
	}
	if st.parent != "" {
		lines = append(lines, "  parent_session: "+st.parent, "  parent_session_token: "+parentTok)
	}
	return strings.Join(append(lines, "  session_token: "+tok), "\n")
}

func (s *Server) addAwkwardTools(srv *mcp.Server) {
	srv.AddTool(&mcp.Tool{
		Name:        "get_status",
		Description: "Report the session's status. Requires the latest session_token.",
		InputSchema: s.tokenSchema(""),
	}, s.getStatus)
	srv.AddTool(&mcp.Tool{
		Name:        "save_checkpoint",
		Description: "Save a checkpoint of the session. Requires the latest session_token; returns a checkpoint_handle.",
		InputSchema: s.tokenSchema(""),
	}, s.saveCheckpoint)
	srv.AddTool(&mcp.Tool{
		Name:        "resume_checkpoint",
		Description: "Resume a saved checkpoint. Requires the checkpoint_handle AND the latest session_token.",
		InputSchema: s.tokenSchema(`"checkpoint_handle":{"type":"string","description":"The handle save_checkpoint returned."}`, "checkpoint_handle"),
	}, s.resumeCheckpoint)
}

// authorized decodes a token-taking call's arguments and checks its
// session_token. On failure it logs rec and returns the error result.
// Callers hold s.mu.
func (s *Server) authorized(tool string, req *mcp.CallToolRequest) (Record, Claims, *mcp.CallToolResult) {
	args, err := decodeArgs(req.Params.Arguments)
	rec := Record{Event: "call", Tool: tool, Args: args, Structured: s.cfg.Structured}
	if err != nil {
		rec.Verdict, rec.Reason = VerdictBadArgument, err.Error()
		s.log(rec)
		return rec, Claims{}, errResult("bad arguments: %v", err)
	}
	rawTok, has := args["session_token"]
	rec.HasToken = has
	tok, _ := rawTok.(string)
	if tok == "" {
		rec.Verdict, rec.Reason = VerdictMissing, "session_token argument is missing or empty"
		s.log(rec)
		return rec, Claims{}, errResult("%s rejected (%s): session_token is required", tool, VerdictMissing)
	}
	rec.ReceivedToken = tok
	c, verdict, reason := s.check(tok)
	rec.ReceivedSID, rec.ReceivedSeq = c.SID, c.Seq
	if verdict != VerdictOK {
		rec.Verdict, rec.Reason = verdict, reason
		s.log(rec)
		return rec, c, errResult("%s rejected (%s): %s", tool, verdict, reason)
	}
	rec.Workflow = s.sessions[c.SID].workflow
	return rec, c, nil
}

func (s *Server) getStatus(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, c, bad := s.authorized("get_status", req)
	if bad != nil {
		return bad, nil
	}
	rec.Verdict = VerdictOK
	s.log(rec)
	st := s.sessions[c.SID]
	// The token stays the same and is only in _meta: a client that hides
	// _meta from hooks shows them nothing to capture here.
	return &mcp.CallToolResult{
		Meta: mcp.Meta{"session_token": st.latest},
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(
			"Session %s (workflow %s) is active at seq %d; the session token you sent is still the latest.", c.SID, st.workflow, st.seq)}},
	}, nil
}

func (s *Server) saveCheckpoint(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, c, bad := s.authorized("save_checkpoint", req)
	if bad != nil {
		return bad, nil
	}
	handle := "ckpt_" + randHex(6)
	s.handles[handle] = c.SID
	tok, sid, seq := s.issue(c.SID, "save_checkpoint")
	rec.Verdict, rec.IssuedToken, rec.IssuedSID, rec.IssuedSeq, rec.Handle = VerdictOK, tok, sid, seq, handle
	s.log(rec)
	body, _ := json.MarshalIndent(map[string]any{
		"checkpoint_handle": handle, "session_token": tok, "seq": seq,
		"note": "resume with resume_checkpoint({ checkpoint_handle, session_token })",
	}, "", "  ")
	return s.resultWithText(string(body), tok, map[string]any{"sid": sid, "seq": seq, "checkpoint_handle": handle}), nil
}

func (s *Server) resumeCheckpoint(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, c, bad := s.authorized("resume_checkpoint", req)
	if bad != nil {
		return bad, nil
	}
	handle, _ := rec.Args["checkpoint_handle"].(string)
	if owner, ok := s.handles[handle]; !ok || owner != c.SID {
		rec.Verdict, rec.Reason = VerdictBadHandle, fmt.Sprintf("checkpoint_handle %q was not saved by session %s", handle, c.SID)
		s.log(rec)
		return errResult("resume_checkpoint rejected (%s): %s", rec.Verdict, rec.Reason), nil
	}
	tok, sid, seq := s.issue(c.SID, "resume_checkpoint")
	rec.Verdict, rec.IssuedToken, rec.IssuedSID, rec.IssuedSeq, rec.Handle = VerdictOK, tok, sid, seq, handle
	s.log(rec)
	text := strings.Join([]string{
		"checkpoint:",
		"  handle: " + handle,
		fmt.Sprintf("  seq: %d", seq),
		"  session_token: " + tok,
		"",
		"session_token: " + tok,
	}, "\n")
	return s.resultWithText(text, tok, map[string]any{"sid": sid, "seq": seq, "checkpoint_handle": handle}), nil
}
