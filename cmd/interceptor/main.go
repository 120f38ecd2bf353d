// Command interceptor is the whole CLI but the commands that link net/http
// (interceptor-http has those): internal/cli is the CLI, this its main.
package main

import (
	"os"

	"github.com/interceptor-dev/interceptor/internal/cli"
)

// version is stamped by the release build: -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	f := cli.System()
	f.Version = version
	os.Exit(cli.Main(os.Args[1:], f))
}
