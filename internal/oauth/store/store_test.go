package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestListAndState(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s := &Store{StateDir: dir}
	if recs, err := s.List(); recs != nil || err != nil {
		t.Fatalf("no state dir: %v %v", recs, err)
	}
	now := time.Now()
	for _, r := range []*Record{
		{Server: "https://b.example/mcp", AccessToken: "a", Expiry: now.Add(time.Hour)},
		{Server: "https://a.example/mcp", AccessToken: "a", RefreshToken: "r", Expiry: now.Add(-time.Hour)},
		{Server: "https://c.example/mcp", AccessToken: "a", Expiry: now.Add(-time.Hour)},
	} {
		if err := s.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(s.Path("https://c.example/mcp"), 0o640)
	recs, err := s.List()
	if err == nil || !strings.Contains(err.Error(), "open to group or others") {
		t.Fatalf("err %v; want the open file named", err)
	}
	if len(recs) != 2 || recs[0].Server != "https://a.example/mcp" {
		t.Fatalf("listed %d records", len(recs))
	}
	for _, c := range []struct {
		r    Record
		want string
		ok   bool
	}{
		{*recs[0], "refreshes it", true},
		{*recs[1], "expires in", true},
		{Record{Server: "s", AccessToken: "a", Expiry: now.Add(-time.Hour)}, "auth login --url s", false},
		{Record{Server: "s"}, "not authorized", false},
		{Record{Server: "s", AccessToken: "a"}, "no expiry", true},
	} {
		if got, ok := c.r.State(now); !strings.Contains(got, c.want) || ok != c.ok {
			t.Errorf("%+v: %q %v, want %q %v", c.r, got, ok, c.want, c.ok)
		}
	}
	if gone, err := s.Delete("https://a.example/mcp"); !gone || err != nil {
		t.Fatalf("delete: %v %v", gone, err)
	}
	if r, err := s.Load("https://a.example/mcp"); r != nil || err != nil {
		t.Fatalf("after delete: %v %v", r, err)
	}
}
