// Command interceptor-http is interceptor with the commands that link
// net/http: the relay to a Streamable HTTP server (proxy --url), the inbox
// page and auth (internal/cli/httpcmd). Hooks should run interceptor (or
// interceptor-hook), whose start-up net/http would slow.
package main

import (
	"os"

	"github.com/interceptor-dev/interceptor/internal/cli"
	"github.com/interceptor-dev/interceptor/internal/cli/httpcmd"
)

// version is stamped by the release build: -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	f := cli.System()
	f.Version = version
	f.HTTP = httpcmd.Commands()
	os.Exit(cli.Main(os.Args[1:], f))
}
