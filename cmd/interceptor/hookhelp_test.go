package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// TestHookHelpFollowsTheClients: approve's help names the clients install
// writes it for and where new arguments do not reach the call, deliver's
// each client's turn-start event, mcp's the client whose permission prompt
// permit answers: all from the clients' descriptions, so a tenth client
// shows up in them.
func TestHookHelpFollowsTheClients(t *testing.T) {
	tenth := hooks.ClaudeCodeClient
	tenth.Name, tenth.Display, tenth.PromptEvent, tenth.NewInputCaveat = "tenth", "Tenth Agent", "TenthPrompt", "Tenth Agent drops new input on its TenthTool event"
	saved := hooks.Clients
	hooks.Clients = append(append([]*hooks.Client{}, saved...), &tenth)
	t.Cleanup(func() { hooks.Clients = saved })
	help := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append(args, "--help"), &streams{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
			t.Fatalf("%v --help: exit %d: %s", args, code, errb.String())
		}
		return strings.Join(strings.Fields(out.String()), " ")
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"approve"}, []string{"OpenCode and Tenth Agent.", "Tenth Agent drops new input on its TenthTool event"}},
		{[]string{"deliver"}, []string{"Gemini CLI BeforeAgent", "Tenth Agent TenthPrompt"}},
		{[]string{"mcp"}, []string{"permit, for " + hooks.PermitClient.Display + "'s --permission-prompt-tool"}},
	} {
		got := help(c.args...)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("interceptor %v --help lacks %q:\n%s", c.args, w, got)
			}
		}
	}
}
