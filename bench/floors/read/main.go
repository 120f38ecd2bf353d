//go:build linux

// Command read is the floor for any Go hook: it reads its whole stdin, as a
// hook must before it can parse the event, and exits. Nothing a Go hook does
// can cost less. It imports only io and os, so its start-up is the Go
// runtime's own.
package main

import (
	"io"
	"os"
)

func main() {
	if _, err := io.ReadAll(os.Stdin); err != nil {
		os.Exit(1)
	}
}
