//go:build !linux

package approvals

// RawTerminal is not supported here: watch reads a key followed by Enter.
func RawTerminal(uintptr) (restore func(), ok bool) { return func() {}, false }
