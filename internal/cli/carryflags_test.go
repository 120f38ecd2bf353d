package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/spf13/pflag"
)

// TestCarriedFlagsAsSet: the flags registered from carry.Table read a
// command line as carry.Options.Set does (what a hook entry without pflag
// parses with): same defaults, lists replaced then added to, CSV, numbers,
// bools alone or with a value.
func TestCarriedFlagsAsSet(t *testing.T) {
	for _, argv := range [][]string{
		nil,
		{"--server", "wf", "--server=a,b", "--arg", "session_index"},
		{"--skip-tool", "a", "--skip-tool", `"b,c"`, "--start-tool=", "--keep-if", "x,y"},
		{"--min-token-length", "0x20", "--token-pattern", "^t$", "--handles", "h.json"},
		{"--sessionless", "--redact=false", "--not-server", "wf__admin", "--meta-key", "m"},
	} {
		var viaFlags carry.Options
		fl := pflag.NewFlagSet("capture", pflag.ContinueOnError)
		registerCarried(fl, &viaFlags, carry.Capture)
		if err := fl.Parse(argv); err != nil {
			t.Fatalf("%q: %v", argv, err)
		}
		viaSet := carry.Defaults()
		for i := 0; i < len(argv); i++ {
			name, value, inline := strings.Cut(strings.TrimPrefix(argv[i], "--"), "=")
			if opt, _ := carry.Lookup(name); !inline && opt.Kind != carry.Bool {
				value = argv[i+1]
				i++
			}
			if err := viaSet.Set(name, value); err != nil {
				t.Fatalf("%q: Set: %v", argv, err)
			}
		}
		for _, opt := range carry.Table {
			if opt.Takers&carry.Capture == 0 {
				continue
			}
			a, b := opt.Field(&viaFlags), opt.Field(&viaSet)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%q: --%s: flags %v, Set %v", argv, opt.Name, reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem())
			}
			if fl.Changed(opt.Name) != viaSet.Given(opt.Name) {
				t.Errorf("%q: --%s: changed %t, given %t", argv, opt.Name, fl.Changed(opt.Name), viaSet.Given(opt.Name))
			}
		}
	}
}
