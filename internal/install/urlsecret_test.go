package install

import (
	"slices"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// TestURLSecrets: where an address may hold a key, as messages name it,
// and the address as they show it: never the key itself.
func TestURLSecrets(t *testing.T) {
	for _, c := range []struct {
		url, masked string
		where       []string
	}{
		{"https://api.example.com/mcp", "https://api.example.com/mcp", nil},
		{"https://h/v1/mcp", "https://h/v1/mcp", nil},
		{"https://h/workspace-2024/mcp", "https://h/workspace-2024/mcp", nil},
		{"https://h/s/sk_live_51HxABCDEFGHIJKLMNOPQRSTUVWXYZ/mcp?api_key=QK1234567890&team=t1",
			"https://h/s/sk_l…/mcp?api_key=…&team=…",
			[]string{"its path (sk_l…)", "its query (api_key=…&team=…)"}},
		{"https://h/ghp_0123456789abcdefghij/mcp", "https://h/ghp_…/mcp", []string{"its path (ghp_…)"}},
		{"https://h/t/a1b2c3d4e5f6/mcp", "https://h/t/a1b2…/mcp", []string{"its path (a1b2…)"}},
		{"https://me:p4ss@h/mcp", "https://…@h/mcp", []string{"its user info"}},
		{"https://h/mcp#k=secretfrag", "https://h/mcp#…", []string{"its fragment"}},
		{"https://h/mcp?x", "https://h/mcp?x", []string{"its query (x)"}},
		{"::not a url", "(an address that does not parse; not shown)", []string{"an address that does not parse (not shown)"}},
	} {
		if got := MaskURL(c.url); got != c.masked {
			t.Errorf("MaskURL(%q) = %q, want %q", c.url, got, c.masked)
		}
		if got := URLSecrets(c.url); !slices.Equal(got, c.where) {
			t.Errorf("URLSecrets(%q) = %q, want %q", c.url, got, c.where)
		}
		for _, key := range []string{"51HxABC", "QK1234567890", "p4ss", "secretfrag", "0123456789abcdefghij"} {
			if strings.Contains(MaskURL(c.url)+strings.Join(URLSecrets(c.url), ""), key) {
				t.Errorf("%q: a message shows %q", c.url, key)
			}
		}
	}
}

// TestProxyCommandKeepsTheAddressOutOfArgv: the relay's words never hold
// the address or a header; a client whose entry could hold no environment
// is refused when they would have to, with the key masked.
func TestProxyCommandKeepsTheAddressOutOfArgv(t *testing.T) {
	const secretURL = "https://h/s/sk_live_51HxABCDEFGHIJKLMNOP/mcp?api_key=QK1234567890"
	o := Options{Server: "s", Bin: "/b/interceptor"}
	withEnv := &hooks.Client{Name: "x", Display: "X", MCPEntry: hooks.MCPEntry{Env: "env"}}
	argv, env, err := proxyCommand(withEnv, o, serverEntry{url: secretURL, headers: [][2]string{{"Authorization", "Bearer t0k"}}})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(argv, " "); strings.Contains(w, "sk_live") || strings.Contains(w, "QK1234567890") || strings.Contains(w, "t0k") || !strings.Contains(w, "--url-env "+URLEnv) {
		t.Errorf("argv: %q", argv)
	}
	if !slices.Contains(env, [2]string{URLEnv, secretURL}) || !slices.Contains(env, [2]string{"INTERCEPTOR_HEADER_AUTHORIZATION", "Bearer t0k"}) {
		t.Errorf("env: %q", env)
	}

	noEnv := &hooks.Client{Name: "y", Display: "Y", MCPEntry: hooks.MCPEntry{}}
	_, _, err = proxyCommand(noEnv, o, serverEntry{url: secretURL})
	if err == nil || !strings.Contains(err.Error(), "Y cannot give a command an environment") || !strings.Contains(err.Error(), "its path (sk_l…), its query (api_key=…)") ||
		strings.Contains(err.Error(), "51Hx") || strings.Contains(err.Error(), "QK1234567890") {
		t.Errorf("a client without env, a key in the address: %v", err)
	}
	if _, _, err = proxyCommand(noEnv, o, serverEntry{url: "https://h/mcp", headers: [][2]string{{"X-Key", "t0k"}}}); err == nil || strings.Contains(err.Error(), "t0k") {
		t.Errorf("a client without env, a header: %v", err)
	}
	// Nothing secret, nowhere to put it: the address may stand in argv.
	argv, env, err = proxyCommand(noEnv, o, serverEntry{url: "https://h/mcp"})
	if err != nil || !slices.Contains(argv, "https://h/mcp") || env != nil {
		t.Errorf("a plain address without env: %q %q %v", argv, env, err)
	}
	// Every client install --proxy knows can carry an environment.
	for _, c := range hooks.Clients {
		if len(c.MCPServers) > 0 && c.MCPEntry.Env == "" {
			t.Errorf("%s lists MCP servers but its entries hold no environment", c.Name)
		}
	}
}
