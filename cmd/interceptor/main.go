// Command interceptor sits in the tool-call path of AI coding agents and owns
// the session token of token-authenticated MCP servers, so the model never
// has to type it. See README.md.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], &streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, exit: os.Exit}))
}
