package hooks

import (
	"slices"
	"testing"
)

// TestClientsDescribedOnce: every client is in Clients once, under a name
// and a display name no other client has, with a hook format that is its
// own (its adapter answers to its name) or, like Kilo CLI's, another
// listed client's.
func TestClientsDescribedOnce(t *testing.T) {
	names, displays := map[string]bool{}, map[string]bool{}
	for _, c := range Clients {
		if c.Name == "" || c.Display == "" || names[c.Name] || displays[c.Display] {
			t.Errorf("client %q (%q): a name or display name missing or taken twice", c.Name, c.Display)
		}
		names[c.Name], displays[c.Display] = true, true
		if c.Hooks == nil {
			t.Errorf("%s: no hook format", c.Name)
			continue
		}
		if !c.ownHooks() {
			owner, ok := FindClient(c.Hooks.Name())
			if !ok || !owner.ownHooks() {
				t.Errorf("%s: its payloads are %s's, which is not a client with a format of its own", c.Name, c.Hooks.Name())
			}
		}
	}
	var sorted []string
	for _, c := range ByName() {
		sorted = append(sorted, c.Name)
	}
	if !slices.IsSorted(sorted) || len(sorted) != len(Clients) {
		t.Errorf("ByName: %v", sorted)
	}
	if got := ClientNames(); slices.Contains(got, KiloClient.Name) || !slices.Contains(got, OpenCodeClient.Name) {
		t.Errorf("--client names %v: want the clients with payloads of their own", got)
	}
}

// TestAdapterReadsTheEventsClient: an adapter matches tool names by the
// description of the client that sent the event, not by a global of its
// own: the same payload, parsed under another spelling, matches under that
// spelling.
func TestAdapterReadsTheEventsClient(t *testing.T) {
	payload := []byte(`{"session_id":"s","turn_id":"t","hook_event_name":"PreToolUse","tool_name":"wf__next","tool_input":{}}`)
	ev, err := Parse(payload, nil)
	if err != nil || ev.Client.Name() != CodexClient.Name {
		t.Fatalf("%v, %v", ev, err)
	}
	if _, ok := ev.Client.Tool(ev, "wf"); ok {
		t.Fatal("wf__next matched under Codex's mcp__<server>__ spelling")
	}
	other := CodexClient
	other.Naming = ClineClient.Naming // <server>__<tool>
	ev.desc = &other
	if tool, ok := ev.Client.Tool(ev, "wf"); !ok || tool != "next" {
		t.Errorf("under the event's client's spelling: %q, %v", tool, ok)
	}
}
