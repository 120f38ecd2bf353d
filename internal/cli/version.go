package cli

import (
	"fmt"
	"path"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// versionString is the version line; version is the release's stamp (""
// from source).
func versionString(version string) string {
	v := version
	bi, ok := debug.ReadBuildInfo()
	if v == "" {
		v = "dev"
		if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	return fmt.Sprintf("%s %s (%s; %s, %s/%s)", binaryName(bi, ok), v, commitOf(bi, ok), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// progName is the binary's own name for what it prints (interceptor or
// interceptor-http): its errors, its notes and warnings, its help.
func progName() string { return binaryName(debug.ReadBuildInfo()) }

// binaryName is the binary's own name, from its main package
// (interceptor-http's version said "interceptor"); its test binary counts
// as it.
func binaryName(bi *debug.BuildInfo, ok bool) string {
	if ok {
		if name := strings.TrimSuffix(path.Base(bi.Path), ".test"); strings.HasPrefix(name, "interceptor") {
			return name
		}
	}
	return "interceptor"
}

// commitOf is the commit the binary was built from, as Go stamps it from
// git (go build in a clone; not go run): its hash, when, and "dirty" when
// the tree had uncommitted changes. SECURITY.md asks for it in reports.
func commitOf(bi *debug.BuildInfo, ok bool) string {
	if !ok {
		return "commit unknown"
	}
	var rev, when string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "commit unknown: not stamped (go build -buildvcs=true in a git clone stamps it)"
	}
	out := "commit " + rev[:min(12, len(rev))]
	if when != "" {
		out += " of " + when
	}
	if dirty {
		out += ", with uncommitted changes"
	}
	return out
}

func newVersionCmd(io *IO, version string) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(io.Out, versionString(version))
			return err
		},
	}
}
