// Command interceptor-hook is interceptor's hook commands alone (inject,
// capture, clear, approve and deliver, on the one hook harness of
// internal/hookrun), without cobra and the rest of the CLI: a hook runs
// twice per tool call, and every package a binary links costs its start-up.
// interceptor install writes it into the hooks when it sits beside
// interceptor; interceptor inject and the rest do the same work.
package main

import (
	"os"

	"github.com/interceptor-dev/interceptor/internal/hookrun"
)

func main() {
	os.Exit(hookrun.Main(os.Args[1:], &hookrun.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Exit: os.Exit}))
}
