package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

func writeFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func ts(s string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	t = t.UTC()
	return &t
}

func intp(i int) *int { return &i }

func boolp(b bool) *bool { return &b }

const productExample = `users:
  - username: alice            # unique; 3–32 of [A-Za-z0-9_.-]
    name: Alice                # optional
    email: alice@example.com   # unique, case-insensitive
    password: s3cret           # optional plaintext, hashed on load
    role: player               # player | admin
    banned: false
    createdAt: 2026-01-01T00:00:00Z
  - username: bob
    role: admin
challenges:
  - slug: baby-rsa             # unique; default derived from title
    title: Baby RSA
    description: Markdown text
    categories: [crypto]
    difficulty: Easy           # Easy | Medium | Hard | Insane
    points: 100
    type: standard             # free string
    flags:
      - flag{exact}
      - {type: static, content: 'FLAG{Any}', data: case_insensitive}
      - {type: regex, content: 'flag\{[0-9a-f]{8}\}'}
    requires: [Warm Up]        # prerequisite slugs (or titles)
    author: alice              # creator's username, optional
    file: {name: handout.zip, path: files/handout.zip}   # path relative to the dataset file
    hasInstance: false
    dockerPort: null
    hidden: false
    createdAt: 2026-01-01T00:00:00Z
  - title: Warm Up
    categories: misc
    difficulty: easy
    points: 0
    flags: ['flag{warm}']
    dockerPort: 1337
    hasInstance: true
    createdAt: 2026-01-02
solves:   [{user: alice, challenge: baby-rsa, at: 2026-01-05T10:00:00Z, flag: 'flag{exact}'}]
attempts: [{user: bob, challenge: baby-rsa, at: 2026-01-05T10:01:00Z, flag: 'nope'}]   # wrong ones
writeups: [{user: alice, challenge: baby-rsa, title: T, content: C, status: approved, images: [],
            createdAt: 2026-01-05T12:00:00Z, updatedAt: 2026-01-05T12:00:00Z}]
reviews:  [{user: alice, challenge: baby-rsa, stars: 5, difficulty: 3, createdAt: 2026-01-05T12:05:00Z}]
`

func TestDecodeProductExample(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "files/handout.zip", "PK")
	name := writeFile(t, dir, "event.yaml", productExample)
	got, err := ReadPaths([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	src := func(i int) Source { return Source{File: name, Index: i} }
	want := &Dataset{
		Users: []User{
			{Username: "alice", Name: "Alice", Email: "alice@example.com", Password: "s3cret", Role: ctf.RolePlayer,
				CreatedAt: ts("2026-01-01T00:00:00Z"), Source: src(0)},
			{Username: "bob", Role: ctf.RoleAdmin, Source: src(1)},
		},
		Challenges: []Challenge{
			{Slug: "baby-rsa", Title: "Baby RSA", Description: "Markdown text", Categories: []string{"crypto"},
				Difficulty: ctf.Easy, Points: 100, Type: "standard",
				Flags: []Flag{
					{Type: "static", Content: "flag{exact}"},
					{Type: "static", Content: "FLAG{Any}", Data: "case_insensitive"},
					{Type: "regex", Content: `flag\{[0-9a-f]{8}\}`},
				},
				Requires: []string{"warm-up"}, Author: "alice",
				File:      &File{Name: "handout.zip", Path: filepath.Join(dir, "files", "handout.zip"), Root: dir},
				CreatedAt: ts("2026-01-01T00:00:00Z"), Source: src(0)},
			{Slug: "warm-up", Title: "Warm Up", Categories: []string{"misc"}, Difficulty: ctf.Easy, Type: "standard",
				Flags: []Flag{{Type: "static", Content: "flag{warm}"}}, HasInstance: true, DockerPort: intp(1337),
				CreatedAt: ts("2026-01-02T00:00:00Z"), Source: src(1)},
		},
		Solves:   []Solve{{User: "alice", Challenge: "baby-rsa", At: ts("2026-01-05T10:00:00Z"), Flag: "flag{exact}", Source: src(0)}},
		Attempts: []Attempt{{User: "bob", Challenge: "baby-rsa", At: ts("2026-01-05T10:01:00Z"), Flag: "nope", Source: src(0)}},
		Writeups: []Writeup{{User: "alice", Challenge: "baby-rsa", Title: "T", Content: "C", Status: ctf.WriteupApproved,
			CreatedAt: ts("2026-01-05T12:00:00Z"), UpdatedAt: ts("2026-01-05T12:00:00Z"), Source: src(0)}},
		Reviews: []Review{{User: "alice", Challenge: "baby-rsa", Stars: 5, Difficulty: 3,
			CreatedAt: ts("2026-01-05T12:05:00Z"), Source: src(0)}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if file, entry := got.Where("challenges", 1); file != name || entry != `challenges[1] (slug "warm-up")` {
		t.Errorf("Where = %q, %q", file, entry)
	}
}

func TestDecodeCtfcli(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "web/dist/handout.tar.gz", "gz")
	writeFile(t, dir, "web/dist/notes.txt", "n")
	tests := []struct {
		name, yml string
		want      Challenge
	}{
		{"standard", `name: Baby Web
author: Jane
category: web
description: Find it
value: 200
type: standard
version: "0.1"
image: ./docker
host: null
connection_info: nc example.com 1337
healthcheck: writeup/exploit.py
attempts: 5
flags:
  - flag{one}
  - {type: static, content: 'FLAG{Two}', data: case_insensitive}
  - {type: regex, content: 'flag\{\d+\}', data: case_sensitive}
topics: [xss]
tags: [web, {value: hard}]
files:
  - dist/handout.tar.gz
  - dist/notes.txt
hints:
  - {content: hint, cost: 10}
requirements:
  prerequisites: [Warmup, 7]
  anonymize: true
state: hidden
`, Challenge{Slug: "baby-web", Title: "Baby Web", Author: "Jane", Categories: []string{"web"},
			Description: "Find it", Points: 200, Type: "standard", ConnectionInfo: "nc example.com 1337",
			Flags: []Flag{{"static", "flag{one}", ""}, {"static", "FLAG{Two}", "case_insensitive"}, {"regex", `flag\{\d+\}`, ""}},
			Tags:  []string{"web", "hard"}, Difficulty: ctf.Hard, Requires: []string{"Warmup", "7"}, Hidden: true,
			Hints: []Hint{{ID: 1, Content: "hint", Cost: 10}},
			// Every file is kept: several are one zip, named from dist/.
			File: &File{Name: "baby-web.zip", Root: filepath.Join(dir, "web"), Pack: []string{"dist/handout.tar.gz", "dist/notes.txt"}, PackDir: "dist"}}},
		{"dynamic", `name: "Dyn: 2"
category: pwn
type: dynamic
extra: {initial: 500, decay: 10, minimum: 100}
flags: ['flag{d}']
requirements: [Baby Web]
state: visible
`, Challenge{Slug: "dyn-2", Title: "Dyn: 2", Categories: []string{"pwn"}, Points: 500, Type: "dynamic",
			Scoring: &Scoring{Type: ctf.DynamicScoring, Initial: 500, Minimum: 100, Decay: 10},
			Flags:   []Flag{{"static", "flag{d}", ""}}, Difficulty: DefaultDifficulty, Requires: []string{"Baby Web"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := filepath.Join(dir, "web", "challenge.yml")
			got, err := DecodeCtfcli([]byte(tt.yml), name)
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Source = Source{File: name, Index: -1}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestReadPathsDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "web/one/challenge.yml", "name: One\ncategory: web\nvalue: 10\nflags: [f1]\nrequirements: [Two]\n")
	writeFile(t, dir, "crypto/deep/two/challenge.yaml", "name: Two\ncategory: crypto\nvalue: 20\nflags: [f2]\n")
	writeFile(t, dir, ".git/challenge.yml", "this: is not read")
	writeFile(t, dir, "notes.yaml", "not: read either")
	event := writeFile(t, t.TempDir(), "event.json", `{"challenges": [{"title": "Three", "categories": ["misc"],
		"points": 30, "flags": ["f3"], "requires": ["One", "Two", "gone"],
		"description": "a\/b \u00e9", "hints": [{"content": "a free hint"}]}],
		"solves": [{"user": "alice", "challenge": "one", "at": "2026-01-05T10:00:00.123Z"}]}`)

	got, err := ReadPaths([]string{dir, event, filepath.Join(dir, "web/one/challenge.yml")})
	if err != nil {
		t.Fatal(err)
	}
	var slugs [][]string
	for _, c := range got.Challenges {
		slugs = append(slugs, append([]string{c.Slug}, c.Requires...))
	}
	want := [][]string{{"two"}, {"one", "two"}, {"three", "one", "two", "gone"}}
	if !reflect.DeepEqual(slugs, want) {
		t.Errorf("slugs and requires = %v, want %v", slugs, want)
	}
	if file, entry := got.Where("challenges", 0); file != filepath.Join(dir, "crypto/deep/two/challenge.yaml") || entry != "challenge" {
		t.Errorf("Where(challenges, 0) = %q, %q", file, entry)
	}
	if e := got.Errorf("solves", 0, "challenge", "unknown challenge %q", "one"); e.Error() != event+`: solves[0]: challenge: unknown challenge "one"` {
		t.Errorf("Errorf = %q", e)
	}
	if d := got.Challenges[2].Description; d != "a/b é" {
		t.Errorf("description = %q", d)
	}
	if at := got.Solves[0].At; at == nil || !at.Equal(*ts("2026-01-05T10:00:00.123Z")) {
		t.Errorf("solve at = %v", at)
	}

	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = ReadPaths([]string{empty})
	var e *Error
	if !errors.As(err, &e) || e.File != empty {
		t.Errorf("empty directory: err = %v", err)
	}
}
