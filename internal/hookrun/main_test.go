package hookrun

import (
	"bytes"
	"strings"
	"testing"
)

// TestMainExitCodes: interceptor-hook never exits 2 (a client reads it as
// "block this call"): a hook command exits 0 whatever it meets, with at
// most one stderr line; a word that is no hook command exits 1.
func TestMainExitCodes(t *testing.T) {
	for _, c := range []struct {
		args      []string
		code      int
		out, errs string
	}{
		{[]string{"--help"}, 0, "interceptor-hook runs interceptor's hook commands", ""},
		{[]string{"inject", "--help"}, 0, "interceptor-hook inject is interceptor inject", ""},
		{[]string{"approve", "-h"}, 0, "interceptor-hook approve is interceptor approve", ""},
		{nil, 1, "", "want a hook command"},
		{[]string{"proxy"}, 1, "", "the other commands are interceptor's"},
		{[]string{"inject", "--nope"}, 0, "", "interceptor: unknown flag: --nope (see --help)"},
		{[]string{"inject"}, 0, "", "interceptor: inject: --server is required"},
		{[]string{"capture", "--server", "wf", "extra"}, 0, "", `unknown command "extra" for "interceptor capture"`},
	} {
		var out, errs bytes.Buffer
		code := Main(c.args, &IO{In: strings.NewReader("{}"), Out: &out, Err: &errs})
		if code != c.code || !strings.Contains(out.String(), c.out) || (c.out == "") != (out.Len() == 0) ||
			!strings.Contains(errs.String(), c.errs) || strings.Count(errs.String(), "\n") > 1 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q", c.args, code, out.String(), errs.String(), c.code, c.out, c.errs)
		}
	}
}
