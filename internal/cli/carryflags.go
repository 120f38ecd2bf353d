package cli

import (
	"github.com/interceptor-dev/interceptor/internal/carry"
	"github.com/spf13/pflag"
)

// registerCarried adds the flags of the handle options the command takes
// (carry.Table: name, default, help), bound to o.
func registerCarried(fl *pflag.FlagSet, o *carry.Options, cmd carry.Commands) {
	for i := range carry.Table {
		if opt := &carry.Table[i]; opt.Takers&cmd != 0 {
			bind(fl, opt, o, opt.DefaultValue(), opt.Help)
		}
	}
}

// registerPassedOn adds install's flags that pass handle options on to the
// hooks it writes, bound to o: no default (unset, the hook's own applies)
// and install's help.
func registerPassedOn(fl *pflag.FlagSet, o *carry.Options) {
	for i := range carry.Table {
		if opt := &carry.Table[i]; opt.Install != "" {
			bind(fl, opt, o, nil, opt.Install)
		}
	}
}

// bind adds opt's flag to fl, bound to its field of o, with def (nil: the
// type's zero) as its default.
func bind(fl *pflag.FlagSet, opt *carry.Option, o *carry.Options, def any, help string) {
	switch p := opt.Field(o).(type) {
	case *string:
		d, _ := def.(string)
		fl.StringVar(p, opt.Name, d, help)
	case *int:
		d, _ := def.(int)
		fl.IntVar(p, opt.Name, d, help)
	case *bool:
		d, _ := def.(bool)
		fl.BoolVar(p, opt.Name, d, help)
	case *[]string:
		d, _ := def.([]string)
		fl.StringSliceVar(p, opt.Name, d, help)
	}
}
