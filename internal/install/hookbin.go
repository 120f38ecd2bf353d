package install

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// HookBinName is the hook binary's name: interceptor's hook commands
// alone (cmd/interceptor-hook), which start faster than the whole CLI.
const HookBinName = "interceptor-hook"

// HookBin is the binary the hooks run for bin: interceptor-hook beside it
// when it is there and executable (releases ship both), else bin itself.
// uninstall and doctor know both by their names (interceptor…).
func HookBin(bin string) string {
	name := HookBinName
	if strings.HasSuffix(bin, ".exe") {
		name += ".exe"
	}
	p := filepath.Join(filepath.Dir(bin), name)
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || (runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0) {
		return bin
	}
	return p
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
