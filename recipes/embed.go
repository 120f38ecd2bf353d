// Package recipes holds what users copy by hand; the OpenCode plugin shim is
// embedded here so that `interceptor install opencode` writes the same file.
package recipes

import _ "embed"

// OpenCodeShim is opencode/interceptor.ts, the OpenCode plugin shim.
//
//go:embed opencode/interceptor.ts
var OpenCodeShim string

// OpenCodeShimV2 is opencode/interceptor-v2.ts, the shim for OpenCode 2's
// plugin API (install writes it when `opencode --version` says 2.x).
//
//go:embed opencode/interceptor-v2.ts
var OpenCodeShimV2 string
