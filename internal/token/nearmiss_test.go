package token

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestNearMissNeverRewritesAnotherId: ids minted in sequence differ from
// their neighbours in a character or two. A call that names a neighbour of
// the held id (delete_item on another item) must reach the server as the
// model wrote it, not as the held id. The long signed token the repair was
// built for is still repaired, and a handles file can declare a shorter
// handle repairable (or a long one not).
func TestNearMissNeverRewritesAnotherId(t *testing.T) {
	spec := func(repair Repair) []Spec {
		s := FlagSpec("item_id", "item_id", 0, nil, nil, nil, nil)
		s.Repair = repair
		return []Spec{s}
	}
	for _, c := range []struct{ name, held, named string }{
		{"ObjectId", "65a1f0c2e4b0a1b2c3d4e5f6", "65a1f0c2e4b0a1b2c3d4e5f7"},
		{"ULID", "01HQ3V5KXG7Z9Y8W6T4R2P0M1N", "01HQ3V5KXG7Z9Y8W6T4R2P0M1P"},
		{"UUIDv1", "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "6ba7b811-9dad-11d1-80b4-00c04fd430c8"},
	} {
		h := Holding{"item_id": {Values: Held{c.held}, Default: c.held}}
		args := `{"item_id":"` + c.named + `"}`
		f, err := Fill(args, "delete_item", spec(RepairLongOnly), h, nil)
		if err != nil || f.Changed || gjson.Get(f.Args, "item_id").Str != c.named {
			t.Errorf("%s: delete_item naming the neighbour %s of the held %s went out as %s (%v, %v)", c.name, c.named, c.held, f.Args, err, f.Trace)
		}
		if f, _ := Fill(args, "delete_item", spec(RepairNever), h, nil); f.Changed {
			t.Errorf("%s: repaired with repair off: %s", c.name, f.Args)
		}
		// Declared repairable: the handles file says a near miss is a typo.
		if f, _ := Fill(args, "delete_item", spec(RepairDeclared), h, nil); gjson.Get(f.Args, "item_id").Str != c.held {
			t.Errorf("%s: declared repairable, the near miss went out as %s", c.name, f.Args)
		}
	}

	// The reference server's token: base64url(JSON payload) "." hex(HMAC),
	// 479 characters, with two hex characters inserted by the model.
	payload := base64.RawURLEncoding.EncodeToString([]byte(`{"sid":"s_1f2e3d4c5b6a7988","seq":7,"ts":1763800000,"wf":"release-review","act":"next_step","scope":["workflow:read","workflow:write","workflow:advance"],"nonce":"00112233445566778899aabbccddeeff","aud":"mcp://workflow-server/release-review","inst":"i-0a1b2c3d4e5f","pad":"` + strings.Repeat("x", 35) + `"}`))
	tok := payload + "." + hex.EncodeToString(make([]byte, 32))
	if len(tok) != 479 {
		t.Fatalf("the token is %d characters, want 479", len(tok))
	}
	typo := tok[:len(tok)-32] + "9f" + tok[len(tok)-32:]
	h := Holding{"session_token": {Values: Held{tok}, Default: tok}}
	specs := []Spec{FlagSpec("session_token", "session_token", 0, nil, nil, nil, nil)}
	f, err := Fill(`{"session_token":"`+typo+`"}`, "next_step", specs, h, nil)
	if err != nil || gjson.Get(f.Args, "session_token").Str != tok {
		t.Fatalf("the 479-character token with 2 inserted characters was not repaired: %v %v", err, f.Trace)
	}
	specs[0].Repair = RepairNever
	if f, _ := Fill(`{"session_token":"`+typo+`"}`, "next_step", specs, h, nil); f.Changed {
		t.Fatal("repaired with repair off")
	}
}

// A handles file's repair: true, false or absent; anything else names the
// field.
func TestParseRepair(t *testing.T) {
	for doc, want := range map[string]Repair{
		`{"handles":[{"name":"id","from":{"meta":"id"}}]}`:                RepairLongOnly,
		`{"handles":[{"name":"id","from":{"meta":"id"},"repair":true}]}`:  RepairDeclared,
		`{"handles":[{"name":"id","from":{"meta":"id"},"repair":false}]}`: RepairNever,
	} {
		specs, err := ParseHandles([]byte(doc), "h.json")
		if err != nil || specs[0].Repair != want {
			t.Errorf("%s: %v %v, want %v", doc, specs, err, want)
		}
	}
	_, err := ParseHandles([]byte(`{"handles":[{"name":"id","from":{"meta":"id"},"repair":"yes"}]}`), "h.json")
	if err == nil || !strings.Contains(err.Error(), `handles[0] ("id").repair: want true or false`) {
		t.Errorf("repair \"yes\": %v", err)
	}
}
