package hooks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestClientNamesSpelledHereOnly: outside this package, no Go string
// (tests, the e2e suite and testdata aside) spells a client's name, its
// display name or its executable; a help text or a message reads them
// from the client's description, so a client added or renamed here is
// named right everywhere.
func TestClientNamesSpelledHereOnly(t *testing.T) {
	var words []string
	for _, c := range Clients {
		words = append(words, regexp.QuoteMeta(c.Name), regexp.QuoteMeta(c.Display))
		if c.Headless != nil {
			words = append(words, regexp.QuoteMeta(c.Headless.Argv(ChatArgs{})[0]))
		}
	}
	spelled := regexp.MustCompile(`\b(` + strings.Join(words, "|") + `)\b`)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			switch {
			case rel == root, rel == "":
			case strings.HasPrefix(d.Name(), "."), d.Name() == "testdata", rel == "e2e", rel == "internal/hooks":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if m := spelled.FindString(lit.Value); m != "" {
					t.Errorf("%s:%d spells %q: read it from the client's description (internal/hooks)", rel, fset.Position(lit.Pos()).Line, m)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d files checked under %s", checked, root)
	}
}
