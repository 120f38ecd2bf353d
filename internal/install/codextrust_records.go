package install

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// CodexTrustRecords returns the [hooks.state] entries Codex writes into
// config.toml when a person trusts every command hook of hooksJSON with
// /hooks, as TOML text (one table per hook). For automation that vets its
// own hooks and runs codex headless (the children e2e suite), where /hooks
// cannot be used. A hook whose hash is not known here is an error.
func CodexTrustRecords(hooksJSON string) (string, error) {
	data, err := os.ReadFile(hooksJSON)
	if err != nil {
		return "", err
	}
	if !gjson.ValidBytes(data) {
		return "", fmt.Errorf("%s: not valid JSON", hooksJSON)
	}
	var out []string
	var bad error
	gjson.GetBytes(data, "hooks").ForEach(func(event, groups gjson.Result) bool {
		for gi, g := range groups.Array() {
			var matcher *string
			if m := g.Get("matcher"); m.Exists() {
				matcher = &m.Str
			}
			for hi, h := range g.Get("hooks").Array() {
				hash, ok := codexHookHash(event.Str, matcher, h)
				if !ok {
					bad = fmt.Errorf("%s: hooks.%s[%d].hooks[%d]: its trust hash is not known here", hooksJSON, event.Str, gi, hi)
					return false
				}
				out = append(out, "[hooks.state."+jsonString(codexHookKey(hooksJSON, event.Str, gi, hi))+"]\ntrusted_hash = "+jsonString(hash)+"\n")
			}
		}
		return true
	})
	if bad != nil {
		return "", bad
	}
	sort.Strings(out)
	return strings.Join(out, "\n"), nil
}
