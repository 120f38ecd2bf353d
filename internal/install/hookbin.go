package install

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// HookBinName is the hook binary's name: interceptor's hook commands
// alone (cmd/interceptor-hook), which start faster than the whole CLI.
const HookBinName = "interceptor-hook"

// HookBin is the binary the hooks run for bin: interceptor-hook beside it
// when it is there, executable and from the same build (releases ship
// both), else bin itself. uninstall and doctor know both by their names
// (interceptor…). warning says why a hook binary beside bin is not used
// ("" when none is there, or it is used).
//
// Same build is read from the two files' Go build info (debug/buildinfo:
// module version, VCS revision and whether the tree was modified, Go
// version), without running either: a hook binary left from an older
// release beside a newer interceptor would run hooks that the newer
// install, doctor and state dir do not match.
func HookBin(bin string) (path, warning string) {
	name := HookBinName
	if strings.HasSuffix(bin, ".exe") {
		name += ".exe"
	}
	p := filepath.Join(filepath.Dir(bin), name)
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || (runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0) {
		return bin, ""
	}
	if why := otherBuild(bin, p); why != "" {
		return bin, fmt.Sprintf("%s is not used: %s; the hooks run %s (replace %s with the one from %s's release, or remove it)", p, why, bin, name, filepath.Base(bin))
	}
	return p, ""
}

// otherBuild says how the Go binaries a and b differ in build, "" when
// they do not, or when neither is a Go binary (a wrapper script: nothing
// to compare).
func otherBuild(a, b string) string {
	ia, errA := buildinfo.ReadFile(a)
	ib, errB := buildinfo.ReadFile(b)
	switch {
	case errA != nil && errB != nil:
		return ""
	case errA != nil:
		return fmt.Sprintf("%s is not a Go binary interceptor can read the build of", a)
	case errB != nil:
		return "it is not a Go binary interceptor can read the build of"
	}
	for _, k := range []string{"version", "go", "vcs.revision", "vcs.modified"} {
		if va, vb := buildValue(ia, k), buildValue(ib, k); va != vb {
			return fmt.Sprintf("it is another build (%s %q, %s has %q)", k, vb, filepath.Base(a), va)
		}
	}
	return ""
}

// buildValue is one fact of a binary's build info: its module version,
// Go version, or a build setting.
func buildValue(bi *buildinfo.BuildInfo, key string) string {
	switch key {
	case "version":
		return bi.Main.Version
	case "go":
		return bi.GoVersion
	}
	for _, s := range bi.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// sameInstall reports whether the binaries a and b are one install's:
// the same path, or interceptor and interceptor-hook in one directory.
func sameInstall(a, b string) bool {
	if a == b {
		return true
	}
	ours := func(p string) bool {
		base := strings.TrimSuffix(filepath.Base(p), ".exe")
		return base == "interceptor" || base == HookBinName
	}
	return filepath.Dir(a) == filepath.Dir(b) && ours(a) && ours(b)
}

// hookBin is the binary the hook commands install writes run: HookBin,
// else Bin.
func (o Options) hookBin() string {
	if o.HookBin != "" {
		return o.HookBin
	}
	return o.Bin
}
