package cli

import (
	"bytes"
	"strings"
	"testing"
)

// proxy reads its flags, headers and the server's command into what it
// runs, without starting a server: a test's runF sees them, and a flag
// that does not go with the others stops it first.
func TestProxyOptionsFromFlags(t *testing.T) {
	io := &IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}
	var got *ProxyRun
	cmd := newProxyCmd(io, func(r *ProxyRun) error { got = r; return nil })
	cmd.SetArgs([]string{"--server-name", "wf", "--arg", "session_index", "--grace", "3s", "--", "node", "server.js", "--port", "1"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Config.Server != "wf" || got.Config.Arg != "session_index" || got.Grace.String() != "3s" ||
		strings.Join(got.Command, " ") != "node server.js --port 1" || got.URL != "" || got.Config.Log != io.Err {
		t.Errorf("stdio: %+v", got)
	}
	got = nil
	cmd = newProxyCmd(io, func(r *ProxyRun) error { got = r; return nil })
	cmd.SetArgs([]string{"--url", "https://h/mcp", "--header", "Authorization: Bearer x", "--header", " X-A : b "})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.URL != "https://h/mcp" || len(got.Header) != 2 || got.Header[0] != [2]string{"Authorization", "Bearer x"} || got.Header[1] != [2]string{"X-A", "b"} {
		t.Errorf("url: %+v", got)
	}
	// --url-env: the address from the environment (install --proxy puts
	// it there), never from the arguments; its value is never echoed.
	t.Setenv("WF_URL", "https://h/s/sk_live_secret/mcp?api_key=secret")
	t.Setenv("WF_BAD", "secret-value is no url")
	got = nil
	cmd = newProxyCmd(io, func(r *ProxyRun) error { got = r; return nil })
	cmd.SetArgs([]string{"--url-env", "WF_URL"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.URL != "https://h/s/sk_live_secret/mcp?api_key=secret" {
		t.Errorf("url-env: %+v", got)
	}
	// OAuth goes with the address however it was given: install --proxy
	// writes --url-env, and a relay without OAuth there never sent the
	// token auth login had stored.
	if got.OAuth == nil {
		t.Errorf("url-env: OAuth is off; want it on, as with --url")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "proxy: give the server's command after --, or --url"},
		{[]string{"--url-env", "WF_NOPE"}, "proxy: --url-env: the environment variable WF_NOPE is not set"},
		{[]string{"--url-env", "WF_BAD"}, "proxy: --url-env: WF_BAD does not hold an http or https URL"},
		{[]string{"--url-env", "WF_URL", "--url", "https://h/mcp"}, "proxy: give --url or --url-env, not both"},
		{[]string{"--url-env", "WF_URL", "--", "node"}, "proxy: give either a command or --url, not both"},
		{[]string{"--url", "u", "--", "node"}, "proxy: give either a command or --url, not both"},
		{[]string{"--url", "u", "--human-tools", "h.json"}, "proxy: --human-tools works with a stdio server"},
		{[]string{"--url", "u", "--header", "secret-value"}, `proxy: a --header is not "Name: value"`},
	} {
		cmd := newProxyCmd(io, func(*ProxyRun) error { t.Errorf("%v: ran", c.args); return nil })
		cmd.SetArgs(c.args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		if err := cmd.Execute(); err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "secret-value") {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
