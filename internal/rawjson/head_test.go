package rawjson

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// headOf feeds doc to a Head in pieces of n bytes.
func headOf(doc string, n int) Head {
	var h Head
	for i := 0; i < len(doc); i += n {
		h.Write([]byte(doc[i:min(len(doc), i+n)]))
	}
	return h
}

func TestHead(t *testing.T) {
	deep := `{"jsonrpc":"2.0","params":{"a":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `},"id":"x\"1","method":"tools/call"}`
	for _, tc := range []struct {
		doc, id, method string
		hasMethod, obj  bool
		depth           int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, `1`, "tools/call", true, true, 2},
		{` { "id" : -2.50e3 , "result" : {"id":9} } `, `-2.50e3`, "", false, true, 2},
		{`{"params":{"id":5,"method":"inner"},"method":"a\/b","id":"s"}`, `"s"`, "a/b", true, true, 2},
		{`{"id":{"x":1},"method":["m"]}`, ``, "", false, true, 2},
		{`{"id":1,"id":2,"method":"m","method":"n"}`, `1`, "m", true, true, 1},
		{`{"id":{"a":1},"id":2}`, ``, "", false, true, 2}, // the first id counts, as in gjson
		{`{"\u0069d":7,"met\u0068od":"m"}`, `7`, "m", true, true, 1},
		{`{"id":null,"method":"notifications/x"}`, ``, "notifications/x", true, true, 1},
		{`[{"id":1,"method":"m"}]`, ``, "", false, false, 2},
		{`"id"`, ``, "", false, false, 0},
		{deep, `"x\"1"`, "tools/call", true, true, 100_002},
		{`{"id":` + strings.Repeat("1", 2000) + `,"method":"m"}`, ``, "m", true, true, 1},
		{`{"id":"unterminated`, ``, "", false, true, 1},
	} {
		for _, n := range []int{1, 3, 1 << 20} {
			h := headOf(tc.doc, n)
			if h.ID != tc.id || h.Method != tc.method || h.HasMethod != tc.hasMethod || h.Object != tc.obj || h.Depth != tc.depth || h.Size != int64(len(tc.doc)) {
				t.Errorf("Head(%.80s) in pieces of %d = id %q method %q/%t object %t depth %d size %d; want %q %q/%t %t %d", tc.doc, n, h.ID, h.Method, h.HasMethod, h.Object, h.Depth, h.Size, tc.id, tc.method, tc.hasMethod, tc.obj, tc.depth)
			}
		}
	}
}

// FuzzHead checks Head against gjson on valid JSON, and that the pieces a
// message comes in do not matter.
func FuzzHead(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, 3)
	f.Add(`{"id":"a\\\"b","result":{"method":"x"}}`, 1)
	f.Add(`{"\u0069d":1e5,"method":"\u00e9"}`, 2)
	f.Add(`[[{"id":1}]]`, 4)
	f.Fuzz(func(t *testing.T, doc string, n int) {
		if n <= 0 {
			n = 1 + (-n)%7
		}
		whole, pieces := headOf(doc, len(doc)+1), headOf(doc, n)
		if whole.ID != pieces.ID || whole.Method != pieces.Method || whole.HasMethod != pieces.HasMethod || whole.Object != pieces.Object || whole.Depth != pieces.Depth {
			t.Fatalf("pieces of %d change the result: %+v vs %+v", n, pieces, whole)
		}
		if (whole.Depth > 3) != DepthExceeds([]byte(doc), 3) {
			t.Fatalf("depth %d disagrees with DepthExceeds", whole.Depth)
		}
		if !gjson.Valid(doc) {
			return
		}
		v := gjson.Parse(doc)
		if whole.Object != v.IsObject() {
			t.Fatalf("Object %t, gjson says %s", whole.Object, v.Type)
		}
		if !v.IsObject() {
			return
		}
		wantID := ""
		if id := v.Get("id"); (id.Type == gjson.String || id.Type == gjson.Number) && len(id.Raw) <= maxHeadValue {
			wantID = id.Raw
		}
		m := v.Get("method")
		if whole.ID != wantID || whole.HasMethod != (m.Type == gjson.String && len(m.Raw) <= maxHeadValue) || whole.HasMethod && whole.Method != m.Str {
			t.Fatalf("Head(%q) = id %q method %q/%t; gjson: id %q method %s", doc, whole.ID, whole.Method, whole.HasMethod, wantID, m.Raw)
		}
	})
}
