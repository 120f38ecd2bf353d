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
	growStack(len(os.Args))
	os.Exit(hookrun.Main(os.Args[1:], &hookrun.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Exit: os.Exit}))
}

// growStack grows the goroutine's stack to what a hook run needs while
// the stack is shallow. Go starts a goroutine's stack small and doubles it
// whenever a call needs more, copying the stack and adjusting each frame
// on it: a hook run did that twice deep in gjson (parsing the event, then
// the state record), a seventh of the instructions the whole process runs
// (callgrind, GOMAXPROCS=1: 113,593 of about 760,000). A 12 KiB frame here
// makes it one copy of two frames, to the 32 KiB the run stays within;
// the frame's zeroing costs less than the copies it saves (morestack
// 34,892 instructions, all included).
//
//go:noinline
func growStack(i int) byte {
	var pad [12 << 10]byte
	pad[i%len(pad)] = byte(i)
	return pad[(i+1)%len(pad)]
}
