package install

import (
	"fmt"
	"strconv"

	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/tailscale/hujson"
	"github.com/tidwall/gjson"
)

// entryOAuth is what an HTTP entry's OAuth block (Claude Code's "oauth")
// says, which the relay takes over: the server then authorizes the relay
// (docs/proxy.md), with the same client, callback port and scopes.
type entryOAuth struct {
	clientID string
	port     int
	scope    string
}

// readOAuth reads the block v. A key the relay has no way to honour
// (authServerMetadataUrl, or one it does not know) is refused, naming
// it: dropping it would authorize otherwise than the user asked.
func readOAuth(c *hooks.Client, v *hujson.Value) (entryOAuth, error) {
	var o entryOAuth
	p := plain(v)
	if !p.IsObject() {
		return o, fmt.Errorf("%q is not an object", c.MCPEntry.OAuth)
	}
	var err error
	p.ForEach(func(k, val gjson.Result) bool {
		switch k.Str {
		case "clientId":
			if val.Type != gjson.String {
				err = fmt.Errorf("%s.clientId is not a string", c.MCPEntry.OAuth)
			}
			o.clientID = val.Str
		case "callbackPort":
			n, perr := strconv.Atoi(val.Raw)
			if val.Type != gjson.Number || perr != nil || n <= 0 || n > 65535 {
				err = fmt.Errorf("%s.callbackPort is not a port", c.MCPEntry.OAuth)
			}
			o.port = n
		case "scopes":
			if val.Type != gjson.String {
				err = fmt.Errorf("%s.scopes is not a string", c.MCPEntry.OAuth)
			}
			o.scope = val.Str
		default:
			err = fmt.Errorf("%s's OAuth setting %q is not one the relay takes over (it takes clientId, callbackPort and scopes): wire the proxy by hand (docs/proxy.md)", c.Display, k.Str)
		}
		return err == nil
	})
	return o, err
}

// args are the relay's flags for o.
func (o entryOAuth) args() []string {
	var argv []string
	if o.clientID != "" {
		argv = append(argv, "--client-id", o.clientID)
	}
	if o.port != 0 {
		argv = append(argv, "--callback-port", strconv.Itoa(o.port))
	}
	if o.scope != "" {
		argv = append(argv, "--scope", o.scope)
	}
	return argv
}

// oauthNote says what install could not carry over: a pre-registered
// client's secret, which Claude Code keeps in its own secure storage.
func oauthNote(c *hooks.Client, o entryOAuth) []string {
	if o.clientID == "" {
		return nil
	}
	return []string{fmt.Sprintf("if OAuth client %s has a secret, %s kept it where the relay cannot read it: put it in the entry's environment (e.g. INTERCEPTOR_OAUTH_CLIENT_SECRET) and add --client-secret-env INTERCEPTOR_OAUTH_CLIENT_SECRET to its args", o.clientID, c.Display)}
}
