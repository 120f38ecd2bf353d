package present

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// An edit names the text it replaces, not lines of the file: the diff
// shows each replacement as a hunk of the text's own lines (no line
// numbers: the file is not read), the lines both sides share as context.

// maxLCS bounds the line-by-line comparison of one edit (old lines times
// new lines); past it the hunk shows every old line removed and every new
// one added, which is still exactly the edit.
const maxLCS = 1 << 20

// editDiff renders an Edit's or MultiEdit's replacements as a unified
// diff of path.
func editDiff(path string, in gjson.Result) string {
	type edit struct {
		old, new string
		all      bool
	}
	read := func(e gjson.Result) edit {
		return edit{old: pick(e, "old_string", "oldString", "old_str"), new: pick(e, "new_string", "newString", "new_str"),
			all: e.Get("replace_all").Bool() || e.Get("replaceAll").Bool()}
	}
	var edits []edit
	if es := in.Get("edits"); es.IsArray() {
		for _, e := range es.Array() {
			edits = append(edits, read(e))
		}
	} else {
		edits = append(edits, read(in))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", path, path)
	for i, e := range edits {
		fmt.Fprintf(&b, "@@ edit %d of %d", i+1, len(edits))
		if e.all {
			b.WriteString(", every occurrence")
		}
		b.WriteString(" @@\n")
		for _, l := range diffLines(splitLines(e.old), splitLines(e.new)) {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func pick(v gjson.Result, keys ...string) string {
	for _, k := range keys {
		if x := v.Get(k); x.Exists() {
			return x.String()
		}
	}
	return ""
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// diffLines is the line diff of a to b: " " lines both hold, "-" lines
// only a holds, "+" lines only b holds, by a longest common subsequence.
func diffLines(a, b []string) []string {
	var out []string
	if len(a)*len(b) > maxLCS {
		for _, l := range a {
			out = append(out, "-"+l)
		}
		for _, l := range b {
			out = append(out, "+"+l)
		}
		return out
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, " "+a[i])
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "-"+a[i])
			i++
		default:
			out = append(out, "+"+b[j])
			j++
		}
	}
	return out
}
