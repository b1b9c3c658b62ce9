package dataset

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// streamCases are documents the run cutter must get right or hand over to
// the whole-document parse: quoted strings and flow collections over
// several lines (with a line that looks like an entry inside), aliases to
// another run's anchors, comments, CRLF, directives, several documents,
// keys given twice, a root that is not a mapping, tabs and broken YAML.
var streamCases = map[string]string{
	"plain":                 "users:\n  - username: alice\n  - username: bob\nsolves:\n  - {user: alice, challenge: a, at: 2026-01-01T00:00:00Z}\n",
	"unindented":            "users:\n- username: alice\n- username: bob\n  name: Bob\n",
	"quoted over lines":     "users:\n  - username: alice\n    name: \"first\n  - username: mallory\n    last\"\n  - username: bob\n",
	"single quoted":         "users:\n  - username: alice\n    name: 'a\n  - b'\n",
	"flow over lines":       "users: [\n  {username: alice},\n  {username: bob}\n]\n",
	"flow entry over lines": "users:\n  - {username: alice,\n     name: A}\n  - [x,\n  - y]\n",
	"alias across runs":     "users:\n  - &a {username: alice}\n" + strings.Repeat("  - {username: x}\n", 600) + "  - *a\n",
	"merge key":             "users:\n  - &base {username: alice, email: a@example.com}\n  - {<<: *base, username: bob}\n",
	"comments":              "# top\nusers: # the users\n# between\n  - username: alice # her\n\n  # indented\n  - username: bob\n",
	"crlf":                  "users:\r\n  - username: alice\r\n  - username: bob\r\n",
	"directive":             "%YAML 1.2\n---\nusers:\n  - username: alice\n",
	"two documents":         "users:\n  - username: alice\n---\nusers:\n  - username: bob\n",
	"key twice":             "users:\n  - username: alice\nusers:\n  - username: bob\n",
	"root list":             "- username: alice\n",
	"root scalar":           "hello\n",
	"empty":                 "",
	"only comments":         "# nothing\n\n",
	"null list":             "users:\nsolves: ~\nattempts: []\n",
	"scalar list":           "users: alice\n",
	"mapping list":          "users:\n  username: alice\n",
	"unknown key":           "user:\n  - username: alice\nsolvs: []\n",
	"event":                 "event:\n  name: CTF\n  start: 2026-01-01T00:00:00Z\nusers:\n  - username: a\n",
	"block scalars":         "writeups:\n  - user: a\n    challenge: b\n    content: |\n      - not an entry\n    title: >-\n      folded\n  - user: c\n",
	"tab":                   "users:\n\t- username: alice\n",
	"less indented":         "users:\n    - username: alice\n  - username: bob\n",
	"broken":                "users:\n  - username: [alice\n",
	"bad entry":             "solves:\n  - {user: [a], challenge: b, at: yesterday}\n  - 42\n",
	"quoted key":            "\"users\":\n  - username: alice\n",
	"big":                   "attempts:\n" + strings.Repeat("  - {user: bob, challenge: c, at: 2026-01-01T00:00:00.5Z, flag: x}\n", 2000),
	"timestamps":            "solves:\n  - {user: a, challenge: b, at: 2026-01-01 10:00:00}\n  - {user: a, challenge: c, at: 2026-01-01t10:00:00.5+02:00}\n  - {user: a, challenge: d, at: 2026-01-01}\n",
}

// jsonCases are JSON documents, read token by token.
var jsonCases = map[string]string{
	"plain":       `{"users": [{"username": "alice"}, {"username": "bob", "apiKeys": [{"id": "k"}]}], "event": {"name": "x"}}`,
	"empty":       ``,
	"root list":   `[{"username": "alice"}]`,
	"root string": `"x"`,
	"key twice":   `{"users": [], "users": []}`,
	"truncated":   `{"users": [{"username": "alice"}`,
	"trailing":    `{"users": []} {}`,
	"not a list":  `{"users": {"username": "alice"}, "solves": "x", "attempts": null}`,
	"unknown key": `{"user": [1, 2]}`,
	"bad entry":   `{"solves": [{"user": 1, "at": "yesterday", "practice": "no"}, 42]}`,
	"numbers":     `{"reviews": [{"user": "a", "challenge": "b", "stars": 5.5, "difficulty": 1e3}]}`,
	"broken":      `{"users": [}`,
}

// TestStreamSameAsWhole: decoding a document run by run gives what
// decoding it as one tree gives, errors included.
func TestStreamSameAsWhole(t *testing.T) {
	for name, doc := range streamCases {
		t.Run(name, func(t *testing.T) { sameDecoding(t, doc, "event.yaml", "<stdin>") })
	}
	for name, doc := range jsonCases {
		t.Run("json "+name, func(t *testing.T) { sameDecoding(t, doc, "event.json", "<stdin>") })
	}
}

func sameDecoding(t *testing.T, doc string, files ...string) {
	t.Helper()
	for _, file := range files {
		want, wantErrs := decodeDataset([]byte(doc), file, false)
		got, gotErrs := decodeStream(bytesOpener([]byte(doc)), file, false)
		if fmt.Sprint(errors.Join(gotErrs...)) != fmt.Sprint(errors.Join(wantErrs...)) {
			t.Errorf("%s: errors\n%v\nwant\n%v", file, errors.Join(gotErrs...), errors.Join(wantErrs...))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded\n%+v\nwant\n%+v", file, got, want)
		}
	}
}

// FuzzStreamSameAsWhole checks the same on any document.
func FuzzStreamSameAsWhole(f *testing.F) {
	for _, doc := range streamCases {
		f.Add(doc)
	}
	for _, doc := range jsonCases {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) { sameDecoding(t, doc, "event.yaml", "event.json", "<stdin>") })
}
