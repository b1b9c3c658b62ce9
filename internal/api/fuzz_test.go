package api

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Seeds shared by f.Add and testdata/fuzz/FuzzDecodeFlag.
var decodeFlagSeeds = []string{
	`{"flag":"flag{x}"}`,
	`{"flag": "  flag{padded}\t\n"}`,
	`{"flag": null}`,
	`{"flag": 123}`,
	`{"flag": ["x"]}`,
	`{"flag": {"a":1}}`,
	`{}`,
	`[]`,
	`null`,
	`"flag"`,
	`{"flag": ""}`,
	`{"flag": "   \t\n"}`,
	`{"flag": "\u00a0\u2003"}`,
	`{"flag":"x"} x`,
	`{"flag":"x"}{"flag":"y"}`,
	`{"flag":"x"}]`,
	`{"flag":"x","flag":null}`,
	`{"FLAG":"x"}`,
	`{"flag":"\ud800"}`,
	"{\"flag\":\"\xff\xfe\"}",
	"{\"flag\":\"x\"}\xc3",
	`{"flag": "x"`,
	``,
	" \n\t ",
	`{"flag":"` + strings.Repeat("a", 1024) + `"}`,
	`{"flag":"` + strings.Repeat("a", 1025) + `"}`,
	`{"flag":" ` + strings.Repeat("é", 512) + ` "}`,
}

// FuzzDecodeFlag: DecodeFlag never panics; a success is a flag of valid
// UTF-8 from a body that is one JSON value, which the service's
// ctf.NormalizeFlag then accepts only when it trims to 1..1024 bytes; every
// failure of either is an Invalid *ctf.Error with a message.
func FuzzDecodeFlag(f *testing.F) {
	for _, s := range decodeFlagSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		flag, err := DecodeFlag(data)
		if err == nil {
			var normalized string
			if normalized, err = ctf.NormalizeFlag(flag); err == nil && normalized != strings.TrimSpace(flag) {
				t.Fatalf("NormalizeFlag(%q) = %q, want it trimmed", flag, normalized)
			}
			if err != nil {
				flag = ""
			}
		}
		if err != nil {
			var ce *ctf.Error
			if !errors.As(err, &ce) {
				t.Fatalf("DecodeFlag(%q): error %T %v, want *ctf.Error", data, err, err)
			}
			if ce.Code != ctf.Invalid {
				t.Fatalf("DecodeFlag(%q): code %q, want %q", data, ce.Code, ctf.Invalid)
			}
			if strings.TrimSpace(ce.Message) == "" {
				t.Fatalf("DecodeFlag(%q): empty message", data)
			}
			if flag != "" {
				t.Fatalf("DecodeFlag(%q): flag %q along with error %v", data, flag, err)
			}
			return
		}
		trimmed := strings.TrimSpace(flag)
		if n := len(trimmed); n < 1 || n > ctf.MaxFlagBytes {
			t.Fatalf("DecodeFlag(%q): accepted a flag of %d bytes after trimming", data, n)
		}
		if !utf8.ValidString(flag) {
			t.Fatalf("DecodeFlag(%q): flag %q is not valid UTF-8", data, flag)
		}
		if !utf8.Valid(data) || !json.Valid(data) {
			t.Fatalf("DecodeFlag(%q): accepted a body that is not one valid UTF-8 JSON value", data)
		}
		// The flag is the body's string member.
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(data, &obj); err != nil {
			t.Fatalf("DecodeFlag(%q): accepted a body that is not a JSON object: %v", data, err)
		}
		found := false
		for k, v := range obj {
			var s string
			if strings.EqualFold(k, "flag") && json.Unmarshal(v, &s) == nil && s == flag {
				found = true
			}
		}
		if !found {
			t.Fatalf("DecodeFlag(%q) = %q: not the body's flag member", data, flag)
		}
		if _, err := ctf.NormalizeFlag(flag); err != nil {
			t.Fatalf("DecodeFlag(%q) = %q, but NormalizeFlag refuses it: %v", data, flag, err)
		}
	})
}
