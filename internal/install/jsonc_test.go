package install

import (
	"strings"
	"testing"

	"github.com/interceptor-dev/interceptor/internal/hooks"
)

// Every client with a JSON hooks file, given a commented one (or one with a
// trailing comma): where the client reads it (its Syntax, from the real
// binary), install adds the hooks keeping every comment, doctor sees them
// and uninstall gives back the bytes; elsewhere install refuses in one line
// naming the file and the client, and touches nothing.
func TestJSONCPerClient(t *testing.T) {
	for _, c := range hooks.Clients {
		if c.Layout != hooks.Grouped && c.Layout != hooks.Flat {
			continue // no JSON hooks file (a plugin, scripts)
		}
		version := ""
		if strings.Contains(c.Skeleton, `"version"`) {
			version = ",\n  \"version\": 1"
		}
		for _, kind := range []struct {
			name, doc, refusal string
			accepted           bool
		}{
			{"comments", "// my settings\n{\n  /* kept */\n  \"theme\": \"dark\"" + version + " // mine\n}\n", "has comments", c.Syntax.Comments},
			{"trailing comma", "{\n  \"theme\": \"dark\"" + version + ",\n}\n", "has a trailing comma", c.Syntax.TrailingCommas},
		} {
			t.Run(c.Name+"/"+kind.name, func(t *testing.T) {
				env := testEnv(t)
				path, err := ConfigPath(env, c.Name, User)
				if err != nil {
					t.Fatal(err)
				}
				mustWrite(t, path, kind.doc, 0o644)
				o := opts(c.Name, User)
				_, err = Install(env, o)
				if !kind.accepted {
					if err == nil {
						t.Fatalf("installed into a file %s does not read:\n%s", c.Display, mustRead(t, path))
					}
					msg := err.Error()
					if !strings.HasPrefix(msg, path+" "+kind.refusal+", which "+c.Display+" ") || strings.Contains(msg, "\n") {
						t.Errorf("refusal %q: want one line naming %s, what it has and %s", msg, path, c.Display)
					}
					if mustRead(t, path) != kind.doc || exists(path+BackupSuffix) {
						t.Error("a refused file was touched")
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				after := mustRead(t, path)
				checkInstalled(t, c.Name, after)
				checkCommentsKept(t, kind.doc, after)
				if _, err := Uninstall(env, o); err != nil {
					t.Fatal(err)
				}
				if got := mustRead(t, path); got != kind.doc {
					t.Fatalf("after uninstall:\n%s\nwant byte-identical:\n%s", got, kind.doc)
				}
			})
		}
	}
}

// A hooks file a Windows editor saved with byte-order marks (Cursor's
// agent writes them before its payloads too): every client with a JSON
// hooks file gets its hooks added, the marks kept in front, doctor's reader
// sees the hooks, and uninstall gives back the bytes.
func TestBOMConfigPerClient(t *testing.T) {
	for _, c := range hooks.Clients {
		if c.Layout != hooks.Grouped && c.Layout != hooks.Flat {
			continue
		}
		version := ""
		if strings.Contains(c.Skeleton, `"version"`) {
			version = ",\n  \"version\": 1"
		}
		doc := "\ufeff\ufeff{\n  \"theme\": \"dark\"" + version + "\n}\n"
		t.Run(c.Name, func(t *testing.T) {
			env := testEnv(t)
			path, err := ConfigPath(env, c.Name, User)
			if err != nil {
				t.Fatal(err)
			}
			mustWrite(t, path, doc, 0o644)
			o := opts(c.Name, User)
			if _, err := Install(env, o); err != nil {
				t.Fatal(err)
			}
			after := mustRead(t, path)
			if !strings.HasPrefix(after, "\ufeff\ufeff{") {
				t.Errorf("the marks were not kept in front:\n%q", after)
			}
			found, err := FindHooks(path, []byte(after), c)
			if err != nil || len(found) < 2 || found[0].Command.Sub == "" {
				t.Errorf("FindHooks: %d hooks, %v", len(found), err)
			}
			if _, err := Uninstall(env, o); err != nil {
				t.Fatal(err)
			}
			if got := mustRead(t, path); got != doc {
				t.Fatalf("after uninstall:\n%q\nwant byte-identical:\n%q", got, doc)
			}
		})
	}
}
