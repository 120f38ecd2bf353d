package hooks

import (
	"github.com/interceptor-dev/interceptor/internal/token"
	"github.com/tidwall/gjson"
)

// This file holds what several clients share: redacting an MCP tool result
// in the shapes clients pass it on (carry.ReadResult reads it).

// redactResult returns an MCP result (object, content array or string) with
// every held token replaced by its stand-in, and whether anything changed.
func redactResult(res gjson.Result, hidden []token.Named) (string, bool) {
	return token.RedactNamed(res.Raw, hidden)
}
