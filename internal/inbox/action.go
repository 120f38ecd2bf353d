package inbox

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/interceptor-dev/interceptor/internal/rawjson"
	"github.com/tidwall/gjson"
)

// The bodies of the page's POSTs, decoded strictly: a member the action
// does not take, a member given twice or one of another type is refused
// with one line naming it, never read past (a typo'd "alow" would
// otherwise decide nothing, and an edited input sent as an object would be
// dropped from an allow). A null member is as good as an absent one.
type (
	// helloAction is the handshake's first step (auth.go).
	helloAction struct {
		ClientNonce string `json:"client_nonce"`
	}
	// sessionAction is its second.
	sessionAction struct {
		ServerNonce string `json:"server_nonce"`
		Proof       string `json:"proof"`
	}
	// decideAction allows or denies a request; UpdatedInput is the complete
	// new arguments as JSON text (allow only).
	decideAction struct {
		ID           *string `json:"id"`
		Allow        *bool   `json:"allow"`
		Message      string  `json:"message"`
		UpdatedInput *string `json:"updated_input"`
		Machine      string  `json:"machine"` // "" this one (Source)
	}
	// answerAction answers a human tool's question.
	answerAction struct {
		ID      *string `json:"id"`
		Answer  string  `json:"answer"`
		Machine string  `json:"machine"`
	}
)

// maxAction bounds an action's body: an allow carries at most a whole new
// input, as large as a hook payload.
const maxAction = 8 << 20

// readAction decodes the body of r, one JSON object, into the action v
// points to: each member must be a field of v (its json name, exactly,
// once) of the field's type. Anything else is errBadRequest.
func readAction(w http.ResponseWriter, r *http.Request, v any) error {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxAction))
	if err != nil {
		return fmt.Errorf("%w: reading the request: %v", errBadRequest, err)
	}
	if !gjson.ValidBytes(b) || !gjson.ParseBytes(b).IsObject() {
		return fmt.Errorf("%w: want a JSON object", errBadRequest)
	}
	fields, names := actionFields(v)
	seen := map[string]bool{}
	rawjson.Fields(string(b), func(key, value string) bool {
		f, ok := fields[key]
		switch {
		case !ok:
			err = fmt.Errorf("%w: unknown member %.40q (this action takes %s)", errBadRequest, key, names)
		case seen[key]:
			err = fmt.Errorf("%w: member %q given twice", errBadRequest, key)
		default:
			seen[key] = true
			if json.Unmarshal([]byte(value), f.Addr().Interface()) != nil {
				err = fmt.Errorf("%w: member %q: want %s", errBadRequest, key, want(f.Type()))
			}
		}
		return err == nil
	})
	return err
}

// actionFields are the fields of the struct v points to by json name, and
// the names as a list for an error.
func actionFields(v any) (map[string]reflect.Value, string) {
	s := reflect.ValueOf(v).Elem()
	fields := map[string]reflect.Value{}
	var names []string
	for i := range s.NumField() {
		name, _, _ := strings.Cut(s.Type().Field(i).Tag.Get("json"), ",")
		fields[name] = s.Field(i)
		names = append(names, name)
	}
	return fields, strings.Join(names, ", ")
}

// want names a field's type for a person.
func want(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	}
	return t.String()
}
