// Package recipes holds what users copy by hand; the OpenCode plugin shim is
// embedded here so that `interceptor install opencode` writes the same file.
package recipes

import _ "embed"

// OpenCodeShim is opencode/interceptor.ts, the OpenCode plugin shim.
//
//go:embed opencode/interceptor.ts
var OpenCodeShim string
