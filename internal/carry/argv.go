package carry

import (
	"encoding/csv"
	"strconv"
	"strings"
)

// Args are the options keep selects, as command-line words in Table's
// order, each only when it says more than its absence would: a string or
// number that is not zero, a bool that is true, a list that is not nil (one
// "--name value" per value, CSV quoted where the flag parser would split
// or trim it; an empty one, explicitly none, is "--name="). A hook given
// these words reads back o (install writes the hooks' options with it).
func (o *Options) Args(keep func(*Option) bool) []string {
	var out []string
	for i := range Table {
		opt := &Table[i]
		if !keep(opt) {
			continue
		}
		flag := "--" + opt.Name
		switch p := opt.field(o).(type) {
		case *string:
			if *p != "" {
				out = append(out, flag, *p)
			}
		case *int:
			if *p != 0 {
				out = append(out, flag, strconv.Itoa(*p))
			}
		case *bool:
			if *p {
				out = append(out, flag)
			}
		case *[]string:
			out = append(out, listArgs(flag, *p)...)
		}
	}
	return out
}

// listArgs writes a list option the way the flag parser reads it back.
func listArgs(flag string, vals []string) []string {
	if vals == nil {
		return nil
	}
	if len(vals) == 0 {
		return []string{flag + "="}
	}
	var out []string
	for _, v := range vals {
		if strings.ContainsAny(v, ",\"\n\r") || strings.TrimSpace(v) != v {
			var sb strings.Builder
			w := csv.NewWriter(&sb)
			_ = w.Write([]string{v})
			w.Flush()
			v = strings.TrimRight(sb.String(), "\n")
		}
		out = append(out, flag, v)
	}
	return out
}

// Given are the words of argv (a command's flags) that give an option keep
// selects, as written and in order: "--name value", "--name=value", or a
// bool's "--name" alone. Words of other flags are skipped (doctor reads
// what a hook command carries with it).
func Given(argv []string, keep func(*Option) bool) []string {
	var out []string
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		name, _, inline := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") {
			continue
		}
		opt, ok := Lookup(name)
		if !ok || !keep(opt) {
			continue
		}
		out = append(out, a)
		if !inline && opt.Kind != Bool && i+1 < len(argv) {
			out = append(out, argv[i+1])
			i++
		}
	}
	return out
}
