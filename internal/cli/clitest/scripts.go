// Package clitest runs the CLI's behaviour tests, the testscripts in
// cmd/interceptor/testdata/script, against a binary's main as a separate
// process: cmd/interceptor's and cmd/interceptor-http's tests run them
// alike, each with its own CLI as the interceptor command.
package clitest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/cli"
	"github.com/interceptor-dev/interceptor/internal/hooks"
	"github.com/interceptor-dev/interceptor/internal/install"
	"github.com/rogpeppe/go-internal/testscript"
)

// Main is a test binary's TestMain: it lets testscript run the binary as
// the interceptor command, whose main is f's cli.Main.
func Main(m *testing.M, f *cli.Factory) {
	testscript.Main(m, map[string]func(){
		"interceptor": func() { os.Exit(cli.Main(os.Args[1:], f)) },
	})
}

// Run runs the scripts in dir (cmd/interceptor/testdata/script), with
// root the module's testdata dir (fixtures).
func Run(t *testing.T, dir, root string) {
	root, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURES", filepath.Join(root, "fixtures"))
			env.Setenv("DOCUMENTED", filepath.Join(root, "documented"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("XDG_STATE_HOME", "")
			env.Setenv("INTERCEPTOR_STATE_DIR", filepath.Join(env.WorkDir, "state"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"lines":    cmdLines,
			"perm":     cmdPerm,
			"nofile":   cmdNoFile,
			"contains": cmdContains,
			"snapshot": cmdSnapshot,
			"mcpargv":  cmdMCPArgv,
			"expand":   cmdExpand,
		},
	})
}

// expand SRC DST: writes SRC to DST with $VAR and ${VAR} replaced by the
// script's variables (a config that must name $WORK's real path).
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: expand SRC DST")
	}
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, []byte(os.Expand(ts.ReadFile(args[0]), ts.Getenv)), 0o644))
}

// lines stdout|stderr N: the stream has exactly N lines.
func cmdLines(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: lines stdout|stderr N")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	out := ts.ReadFile(args[0])
	got := strings.Count(out, "\n")
	if out != "" && !strings.HasSuffix(out, "\n") {
		got++
	}
	if (got == want) == neg {
		ts.Fatalf("%s has %d lines, want %s%d:\n%s", args[0], got, map[bool]string{true: "not ", false: ""}[neg], want, out)
	}
}

// perm MODE FILE...: each file has exactly this permission (octal).
func cmdPerm(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: perm MODE FILE...")
	}
	want, err := strconv.ParseUint(args[0], 8, 32)
	ts.Check(err)
	for _, f := range args[1:] {
		matches, _ := filepath.Glob(ts.MkAbs(f))
		if len(matches) == 0 {
			ts.Fatalf("perm: no file %s", f)
		}
		for _, m := range matches {
			fi, err := os.Lstat(m)
			ts.Check(err)
			if (uint64(fi.Mode().Perm()) == want) == neg {
				ts.Fatalf("%s has mode %04o, want %s%04o", m, fi.Mode().Perm(), map[bool]string{true: "not ", false: ""}[neg], want)
			}
		}
	}
}

// nofile GLOB: nothing matches (used to prove nothing was written).
func cmdNoFile(ts *testscript.TestScript, neg bool, args []string) {
	for _, g := range args {
		matches, _ := filepath.Glob(ts.MkAbs(g))
		if (len(matches) == 0) == neg {
			ts.Fatalf("nofile %s: found %v", g, matches)
		}
	}
}

// contains FILE FILE2: FILE's content holds FILE2's content verbatim (trimmed),
// for checking a token appears (or with !, never appears) in an output.
func cmdContains(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: contains FILE NEEDLEFILE")
	}
	hay := ts.ReadFile(args[0])
	needle := strings.TrimSpace(ts.ReadFile(args[1]))
	if needle == "" {
		ts.Fatalf("contains: empty needle")
	}
	if bytes.Contains([]byte(hay), []byte(needle)) == neg {
		ts.Fatalf("%s %s the text of %s", args[0], map[bool]string{true: "contains", false: "lacks"}[neg], args[1])
	}
}

// mcpargv CLIENT SERVER FILE: writes to FILE the command line (the
// command and its arguments, one a line) of every entry of SERVER in the
// client's MCP lists, as install and doctor read them: what the process
// list shows once the client starts it. Fails when there is none.
func cmdMCPArgv(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: mcpargv CLIENT SERVER FILE")
	}
	c, ok := hooks.FindClient(args[0])
	if !ok {
		ts.Fatalf("mcpargv: no client %q", args[0])
	}
	env := install.Env{Home: ts.Getenv("HOME"), Project: ts.MkAbs("."), Getenv: ts.Getenv}
	servers, problems := install.MCPServers(env, c)
	if len(problems) > 0 {
		ts.Fatalf("mcpargv: %v", problems)
	}
	var out strings.Builder
	for _, s := range servers {
		if s.Name == args[1] {
			out.WriteString(strings.Join(append([]string{s.Command}, s.Args...), "\n") + "\n")
		}
	}
	if out.Len() == 0 {
		ts.Fatalf("mcpargv: %s has no server %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(out.String()), 0o644))
}

// snapshot DIR FILE: writes to FILE every entry under DIR, one a line:
// its path, type and mode, and a file's size and SHA-256; cmp two
// snapshots to show a tree came back byte for byte (lock files, backups
// and empty dirs included).
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: snapshot DIR FILE")
	}
	root := ts.MkAbs(args[0])
	var out strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&out, "%s %s", filepath.ToSlash(rel), fi.Mode())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&out, " %d %x", len(b), sha256.Sum256(b))
		}
		out.WriteByte('\n')
		return nil
	})
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out.String()), 0o644))
}
