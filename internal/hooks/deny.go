package hooks

// DenyUnread renders a deny for a pre-tool event of client that could not be
// read (too large, nested too deep, not JSON, stdin never closed): the
// approve hook fails closed only if it can still answer, and with no Event
// to answer it renders the deny from the client alone. The approve hook is
// installed on pre-tool events only, so the deny is a pre-tool one; of the
// clients, only Claude Code, Codex and Factory Droid name the event in a
// deny, and all three call it PreToolUse (TestDenyUnread checks every
// adapter).
func DenyUnread(client Adapter, reason string) ([]byte, error) {
	ev := &Event{Client: client, Phase: PhasePreTool, Name: "PreToolUse"}
	return client.DecisionReply(ev, Decision{Reason: reason})
}
