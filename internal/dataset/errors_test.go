package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chal is a valid challenge entry; extra lines replace or add keys.
func chal(slug string, lines ...string) string {
	keys := []string{"slug: " + slug, "title: T " + slug, "categories: [misc]", "difficulty: Easy",
		"points: 100", "flags: ['flag{x}']"}
	for _, l := range lines {
		k := strings.SplitN(l, ":", 2)[0]
		replaced := false
		for i, old := range keys {
			if strings.SplitN(old, ":", 2)[0] == k {
				keys[i], replaced = l, true
			}
		}
		if !replaced {
			keys = append(keys, l)
		}
	}
	var out []string
	for _, l := range keys {
		if !strings.HasSuffix(l, ": DELETE") {
			out = append(out, l)
		}
	}
	return "  - " + strings.Join(out, "\n    ") + "\n"
}

// hashWith is a well-formed argon2id hash (16-byte salt, 32-byte key)
// with the parameters params.
func hashWith(params string) string {
	return "$argon2id$v=19$" + params + "$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"
}

type fixture struct{ name, content string }

// errorCase is a dataset that fails to read, and the file, entry and field
// its first error names.
type errorCase struct {
	name  string
	files []fixture
	file  string // the file the error names (relative to the temp dir)
	entry string
	field string
}

func TestErrors(t *testing.T) {
	users := "users:\n  - {username: bob, email: bob@example.com}\n"
	long := strings.Repeat("a", 1025)
	runErrorCases(t, []errorCase{
		{"unknown key", []fixture{{"event.yaml", "challenges:\n" + chal("x", "pionts: 5")}},
			"event.yaml", `challenges[0] (slug "x")`, "pionts"},
		{"unknown top-level key", []fixture{{"event.yaml", "challenge:\n" + chal("x")}}, "event.yaml", "", "challenge"},
		{"bad difficulty", []fixture{{"event.yaml", "challenges:\n" + chal("x", "difficulty: Extreme")}},
			"event.yaml", `challenges[0] (slug "x")`, "difficulty"},
		{"negative points", []fixture{{"event.yaml", "challenges:\n" + chal("a") + chal("baby-rsa", "points: -1")}},
			"event.yaml", `challenges[1] (slug "baby-rsa")`, "points"},
		{"points string", []fixture{{"event.yaml", "challenges:\n" + chal("x", `points: "100"`)}},
			"event.yaml", `challenges[0] (slug "x")`, "points"},
		{"points float", []fixture{{"event.yaml", "challenges:\n" + chal("x", `points: 1.5`)}},
			"event.yaml", `challenges[0] (slug "x")`, "points"},
		{"points string json", []fixture{{"event.json", `{"challenges": [{"title": "J", "categories": ["m"], "points": "100", "flags": ["f"]}]}`}},
			"event.json", `challenges[0] (slug "j")`, "points"},
		{"points missing", []fixture{{"event.yaml", "challenges:\n" + chal("x", "points: DELETE")}},
			"event.yaml", `challenges[0] (slug "x")`, "points"},
		{"duplicate username", []fixture{{"event.yaml", "users:\n  - {username: bob}\n  - {username: bob}\n"}},
			"event.yaml", `users[1] (username "bob")`, "username"},
		{"duplicate username across files", []fixture{{"a.yaml", users}, {"b.yaml", users}},
			"b.yaml", `users[0] (username "bob")`, "username"},
		{"duplicate email case-insensitive", []fixture{{"event.yaml", users + "  - {username: bob2, email: BOB@example.com}\n"}},
			"event.yaml", `users[1] (username "bob2")`, "email"},
		{"duplicate slug", []fixture{{"event.yaml", "challenges:\n" + chal("x") + chal("x")}},
			"event.yaml", `challenges[1] (slug "x")`, "slug"},
		{"duplicate slug dataset and ctfcli", []fixture{{"event.yaml", "challenges:\n" + chal("x", "title: X")},
			{"c/challenge.yml", "name: X\ncategory: web\nvalue: 1\nflags: [f]\n"}},
			"c/challenge.yml", "challenge", "slug"},
		{"bad username chars", []fixture{{"event.yaml", "users:\n  - {username: 'bo b'}\n"}},
			"event.yaml", `users[0] (username "bo b")`, "username"},
		{"username too short", []fixture{{"event.yaml", "users:\n  - {username: bo}\n"}},
			"event.yaml", `users[0] (username "bo")`, "username"},
		{"bad role", []fixture{{"event.yaml", "users:\n  - {username: bob, role: root}\n"}},
			"event.yaml", `users[0] (username "bob")`, "role"},
		{"bad email", []fixture{{"event.yaml", "users:\n  - {username: bob, email: not-an-email}\n"}},
			"event.yaml", `users[0] (username "bob")`, "email"},
		{"api key without hash", []fixture{{"event.yaml", "users:\n  - username: bob\n    apiKeys: [{id: k, name: n, keyPrefix: p}]\n"}},
			"event.yaml", `users[0] (username "bob")`, "apiKeys[0].keyHash"},
		{"banned string", []fixture{{"event.yaml", "users:\n  - {username: bob, banned: 'yes'}\n"}},
			"event.yaml", `users[0] (username "bob")`, "banned"},
		{"review stars 0", []fixture{{"event.yaml", "reviews:\n  - {user: a, challenge: x, stars: 0, difficulty: 3}\n"}},
			"event.yaml", "reviews[0]", "stars"},
		{"review stars 6", []fixture{{"event.yaml", "reviews:\n  - {user: a, challenge: x, stars: 6, difficulty: 3}\n"}},
			"event.yaml", "reviews[0]", "stars"},
		{"review difficulty 11", []fixture{{"event.yaml", "reviews:\n  - {user: a, challenge: x, stars: 5, difficulty: 11}\n"}},
			"event.yaml", "reviews[0]", "difficulty"},
		{"bad writeup status", []fixture{{"event.yaml", "writeups:\n  - {user: a, challenge: x, title: t, content: c, status: published}\n"}},
			"event.yaml", "writeups[0]", "status"},
		{"writeup without content", []fixture{{"event.yaml", "writeups:\n  - {user: a, challenge: x, title: t}\n"}},
			"event.yaml", "writeups[0]", "content"},
		{"missing flags", []fixture{{"event.yaml", "challenges:\n" + chal("x", "flags: DELETE")}},
			"event.yaml", `challenges[0] (slug "x")`, "flags"},
		{"bad flag type", []fixture{{"event.yaml", "challenges:\n" + chal("x", "flags: [{type: glob, content: 'f*'}]")}},
			"event.yaml", `challenges[0] (slug "x")`, "flags[0].type"},
		{"bad regex", []fixture{{"event.yaml", "challenges:\n" + chal("x", `flags: ['ok', {type: regex, content: 'flag\{[a-'}]`)}},
			"event.yaml", `challenges[0] (slug "x")`, "flags[1].content"},
		{"flag too long", []fixture{{"event.yaml", "challenges:\n" + chal("x", "flags: ["+long+"]")}},
			"event.yaml", `challenges[0] (slug "x")`, "flags[0].content"},
		{"solve flag too long", []fixture{{"event.yaml", "solves:\n  - {user: a, challenge: x, flag: " + long + "}\n"}},
			"event.yaml", "solves[0]", "flag"},
		{"missing file path", []fixture{{"event.yaml", "challenges:\n" + chal("x", "file: {name: h.zip, path: files/missing.zip}")}},
			"event.yaml", `challenges[0] (slug "x")`, "file.path"},
		{"file path is a directory", []fixture{{"sub/x.txt", "x"}, {"event.yaml", "challenges:\n" + chal("x", "file: {path: sub}")}},
			"event.yaml", `challenges[0] (slug "x")`, "file.path"},
		{"regex escaping its anchors", []fixture{{"event.yaml", "challenges:\n" + chal("x", `flags: [{type: regex, content: 'flag\{a\})|(?:.*'}]`)}},
			"event.yaml", `challenges[0] (slug "x")`, "flags[0].content"},
		{"file path leaves the dataset's directory", []fixture{{"outside/secret.txt", "s"}, {"ev/event.yaml", "challenges:\n" + chal("x", "file: {path: ../outside/secret.txt}")}},
			"ev/event.yaml", `challenges[0] (slug "x")`, "file.path"},
		{"ctfcli files leave the challenge's directory", []fixture{{"outside/secret.txt", "s"}, {"c/challenge.yml", "name: C\ncategory: web\nvalue: 1\nflags: [f]\nfiles: [../outside/secret.txt]\n"}},
			"c/challenge.yml", "challenge", "files[0]"},
		{"file path through a symlinked directory", []fixture{{"ev/sub/x.txt", "x"}, {"ev/link", "link:sub"}, {"ev/event.yaml", "challenges:\n" + chal("x", "file: {path: link/x.txt}")}},
			"ev/event.yaml", `challenges[0] (slug "x")`, "file.path"},
		{"file path is a symlink inside the directory", []fixture{{"ev/x.txt", "x"}, {"ev/y.txt", "link:x.txt"}, {"ev/event.yaml", "challenges:\n" + chal("x", "file: {path: y.txt}")}},
			"ev/event.yaml", `challenges[0] (slug "x")`, "file.path"},
		{"ctfcli file is a symlink inside the directory", []fixture{{"c/dist/a.zip", "a"}, {"c/dist/b.zip", "link:a.zip"}, {"c/challenge.yml", "name: C\ncategory: web\nvalue: 1\nflags: [f]\nfiles: [dist/b.zip]\n"}},
			"c/challenge.yml", "challenge", "files[0]"},
		{"ctfcli missing file", []fixture{{"c/challenge.yml", "name: C\ncategory: web\nvalue: 1\nflags: [f]\nfiles: [dist/nope.zip]\n"}},
			"c/challenge.yml", "challenge", "files[0]"},
		{"ctfcli value string", []fixture{{"c/challenge.yml", "name: C\ncategory: web\nvalue: '1'\nflags: [f]\n"}},
			"c/challenge.yml", "challenge", "value"},
		{"ctfcli bad state", []fixture{{"c/challenge.yml", "name: C\ncategory: web\nvalue: 1\nflags: [f]\nstate: draft\n"}},
			"c/challenge.yml", "challenge", "state"},
		{"name and title", []fixture{{"event.yaml", "challenges:\n" + chal("x", "name: Y")}},
			"event.yaml", `challenges[0] (slug "x")`, "name"},
		{"duplicate solve", []fixture{{"event.yaml", "solves:\n  - {user: a, challenge: x}\n  - {user: b, challenge: x}\n  - {user: a, challenge: x}\n"}},
			"event.yaml", "solves[2]", "challenge"},
		{"solve without user", []fixture{{"event.yaml", "solves:\n  - {challenge: x}\n"}}, "event.yaml", "solves[0]", "user"},
		{"description of 65,537 characters", []fixture{{"event.yaml", "challenges:\n" + chal("x", "description: "+strings.Repeat("é", 65537))}},
			"event.yaml", `challenges[0] (slug "x")`, "description"},
		{"dockerPort 70000", []fixture{{"event.yaml", "challenges:\n" + chal("x", "dockerPort: 70000")}},
			"event.yaml", `challenges[0] (slug "x")`, "dockerPort"},
		{"bad slug", []fixture{{"event.yaml", "challenges:\n" + chal("Bad_Slug")}},
			"event.yaml", `challenges[0] (slug "Bad_Slug")`, "slug"},
		{"no categories", []fixture{{"event.yaml", "challenges:\n" + chal("x", "categories: []")}},
			"event.yaml", `challenges[0] (slug "x")`, "categories"},
		{"requires itself", []fixture{{"event.yaml", "challenges:\n" + chal("x", "requires: [T x]")}},
			"event.yaml", `challenges[0] (slug "x")`, "requires[0]"},
		{"circular requires", []fixture{{"event.yaml", "challenges:\n" + chal("x", "requires: [y]") + chal("y", "requires: [x]")}},
			"event.yaml", `challenges[1] (slug "y")`, "requires"},
		{"bad timestamp", []fixture{{"event.yaml", "users:\n  - {username: bob, createdAt: yesterday}\n"}},
			"event.yaml", `users[0] (username "bob")`, "createdAt"},
		{"sha256 mismatch", []fixture{{"event.yaml", "challenges:\n" + chal("x", "file: {name: a.bin, contentBase64: AAE=, sha256: "+strings.Repeat("0", 64)+"}")}},
			"event.yaml", `challenges[0] (slug "x")`, "file.sha256"},
		{"list expected", []fixture{{"event.yaml", "challenges:\n" + chal("x") + "users: {username: bob}\n"}}, "event.yaml", "", "users"},
		{"password hash with t=0", []fixture{{"event.yaml", "users:\n  - {username: bob, passwordHash: '" + hashWith("m=19456,t=0,p=1") + "'}\n"}},
			"event.yaml", `users[0] (username "bob")`, "passwordHash"},
		{"password hash of a terabyte", []fixture{{"event.yaml", users + "  - {username: eve, passwordHash: '" + hashWith("m=1073741824,t=2,p=1") + "'}\n"}},
			"event.yaml", `users[1] (username "eve")`, "passwordHash"},
		{"password hash argon2i", []fixture{{"event.yaml", "users:\n  - {username: bob, passwordHash: '" +
			strings.Replace(hashWith("m=19456,t=2,p=1"), "argon2id", "argon2i", 1) + "'}\n"}},
			"event.yaml", `users[0] (username "bob")`, "passwordHash"},
		{"password hash not a hash", []fixture{{"event.json", `{"users": [{"username": "bob", "passwordHash": "hunter2"}]}`}},
			"event.json", `users[0] (username "bob")`, "passwordHash"},
		{"two-factor secret not base32", []fixture{{"event.yaml", "users:\n  - {username: bob, twoFactor: {secret: 'not base32!'}}\n"}},
			"event.yaml", `users[0] (username "bob")`, "twoFactor.secret"},
		{"two-factor secret of 40 bits", []fixture{{"event.yaml", "users:\n  - {username: bob, twoFactor: {secret: JBSWY3DP}}\n"}},
			"event.yaml", `users[0] (username "bob")`, "twoFactor.secret"},
		{"recovery code not a hash", []fixture{{"event.yaml", "users:\n  - {username: bob, twoFactor: {secret: " + strings.Repeat("JBSWY3DP", 4) + ", recoveryCodes: [k7wq2-fz9mh]}}\n"}},
			"event.yaml", `users[0] (username "bob")`, "twoFactor.recoveryCodes[0]"},
		{"webhook url not http", []fixture{{"event.yaml", "webhooks:\n  - {name: W, kind: json, url: 'ftp://example.com/x'}\n"}},
			"event.yaml", `webhooks[0] (name "W")`, "url"},
		{"webhook bad kind", []fixture{{"event.yaml", "webhooks:\n  - {name: W, kind: teams, url: 'https://example.com/x'}\n"}},
			"event.yaml", `webhooks[0] (name "W")`, "kind"},
		{"webhook unknown event", []fixture{{"event.yaml", "webhooks:\n  - {name: W, kind: slack, url: 'https://example.com/x', events: [solve]}\n"}},
			"event.yaml", `webhooks[0] (name "W")`, "events"},
		{"webhook secret on discord", []fixture{{"event.yaml", "webhooks:\n  - {name: W, kind: discord, url: 'https://example.com/x', secret: 0123456789abcdef}\n"}},
			"event.yaml", `webhooks[0] (name "W")`, "secret"},
		{"duplicate webhook id", []fixture{{"event.yaml", "webhooks:\n  - {id: h, name: W, kind: slack, url: 'https://example.com/x'}\n  - {id: h, name: V, kind: slack, url: 'https://example.com/y'}\n"}},
			"event.yaml", `webhooks[1] (name "V")`, "id"},
		{"yaml syntax", []fixture{{"event.yaml", "users: [\n"}}, "event.yaml", "", ""},
	})
}

func runErrorCases(t *testing.T, tests []errorCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for _, f := range tt.files {
				if target, ok := strings.CutPrefix(f.content, "link:"); ok {
					if err := os.Symlink(filepath.FromSlash(target), filepath.Join(dir, filepath.FromSlash(f.name))); err != nil {
						t.Fatal(err)
					}
					continue
				}
				p := writeFile(t, dir, f.name, f.content)
				if !strings.HasSuffix(f.name, ".txt") && !strings.HasSuffix(f.name, ".zip") {
					paths = append(paths, p)
				}
			}
			_, err := ReadPaths(paths)
			if err == nil {
				t.Fatal("no error")
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("not an *Error: %T %v", err, err)
			}
			want := filepath.Join(dir, filepath.FromSlash(tt.file))
			if e.File != want || e.Entry != tt.entry || e.Field != tt.field || e.Msg == "" {
				t.Errorf("got  File=%q Entry=%q Field=%q Msg=%q\nwant File=%q Entry=%q Field=%q\nall: %v",
					e.File, e.Entry, e.Field, e.Msg, want, tt.entry, tt.field, err)
			}
			t.Log(err)
		})
	}
}

// TestFilePathsStayInTheirDirectory: a challenge file named by an absolute
// path or a symlink that resolves outside the directory of the file naming
// it is refused with a message naming file, entry and field, and ReadFile
// refuses it even when the link appears after the dataset was read.
func TestFilePathsStayInTheirDirectory(t *testing.T) {
	dir := t.TempDir()
	secret := writeFile(t, dir, "outside/secret.txt", "organiser's secret")
	inside := writeFile(t, dir, "ev/files/ok.txt", "handout")
	if err := os.Symlink(secret, filepath.Join(dir, "ev", "files", "link.txt")); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"absolute": secret, "symlink": "files/link.txt"} {
		t.Run(name, func(t *testing.T) {
			ev := writeFile(t, dir, "ev/"+name+".yaml", "challenges:\n"+chal("x", "file: {path: '"+path+"'}"))
			_, err := ReadPaths([]string{ev})
			var e *Error
			if !errors.As(err, &e) || e.File != ev || e.Entry != `challenges[0] (slug "x")` || e.Field != "file.path" ||
				!strings.Contains(e.Msg, "outside") && !strings.Contains(e.Msg, "symlink") {
				t.Fatalf("got %v, want an error on file.path saying it is outside or a symlink", err)
			}
		})
	}
	ds, err := ReadPaths([]string{writeFile(t, dir, "ev/ok.yaml", "challenges:\n"+chal("x", "file: {path: files/ok.txt}"))})
	if err != nil {
		t.Fatal(err)
	}
	f := ds.Challenges[0].File
	if data, err := ReadFile(f); err != nil || string(data) != "handout" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	// Swapped for a link after the check: ReadFile still refuses.
	if err := os.Remove(inside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, inside); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(f); err == nil {
		t.Fatalf("ReadFile read %q through a symlink out of the directory", data)
	}
	// Nor through one that stays inside.
	writeFile(t, dir, "ev/files/other.txt", "not the handout")
	if err := os.Remove(inside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other.txt", inside); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(f); err == nil {
		t.Fatalf("ReadFile read %q through a symlink", data)
	}
}
