package transfer_test

// ctfcli challenge directories load, and a bad challenge.yml in one fails
// naming its file.

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// TestLoadCtfcliDirectory: a directory searched for challenge.yml and
// challenge.yaml files (skipping dot-directories) loads, resolving files and
// prerequisites, and reloading it changes nothing.
func TestLoadCtfcliDirectory(t *testing.T) {
	db := baseDB(t)
	root := t.TempDir()
	writeFile(t, root, "pwn/bof/challenge.yml", `
name: Buffer Overflow 101
author: Jane Doe
category: pwn
description: Smash the stack.
value: 300
type: standard
version: "0.1"
image: ./docker
flags:
  - flag{bof}
  - {type: static, content: 'FLAG{BOF}', data: case_insensitive}
tags: [hard, stack]
files:
  - dist/vuln
requirements:
  - warmup
  - Web Login
connection_info: nc bof.example.com 1337
state: visible
`)
	writeFile(t, root, "pwn/bof/dist/vuln", "\x7fELF fake binary")
	writeFile(t, root, "web/login/challenge.yaml", `
name: Web Login
author: alice
category: web
description: Log in.
type: dynamic
extra: {initial: 500, decay: 10, minimum: 100}
flags:
  - {type: regex, content: 'flag\{admin-[0-9]+\}'}
state: hidden
`)
	writeFile(t, root, ".git/challenge.yml", "this: is not a challenge: [")
	writeFile(t, root, "notes/README.md", "ignored")

	rep := mustLoad(t, db, root)
	if rep.Created["challenges"] != 2 || total(rep.Updated) != 0 {
		t.Errorf("report created %v updated %v, want 2 challenges created", rep.Created, rep.Updated)
	}
	d := dump(t, db)
	bySlug := map[string]dataset.Challenge{}
	for _, c := range d.Challenges {
		bySlug[c.Slug] = c
	}
	bof, ok := bySlug["buffer-overflow-101"]
	if !ok {
		t.Fatalf("no challenge buffer-overflow-101 in %v", bySlug)
	}
	if bof.Title != "Buffer Overflow 101" || bof.Points != 300 || !reflect.DeepEqual(bof.Categories, []string{"pwn"}) ||
		bof.Difficulty != ctf.Hard || len(bof.Flags) != 2 || bof.Flags[1].Data != "case_insensitive" ||
		!reflect.DeepEqual(bof.Requires, []string{"warmup", "web-login"}) || bof.ConnectionInfo != "nc bof.example.com 1337" ||
		bof.Hidden || bof.Author != "" {
		t.Errorf("buffer-overflow-101 loaded as %+v", bof)
	}
	if bof.File == nil || bof.File.Name != "vuln" || bof.File.ContentBase64 == "" {
		t.Errorf("buffer-overflow-101 file %+v, want vuln stored in the database", bof.File)
	}
	login, ok := bySlug["web-login"]
	if !ok {
		t.Fatalf("no challenge web-login")
	}
	if login.Points != 500 || !login.Hidden || login.Author != "alice" || login.Type != "dynamic" || login.Flags[0].Type != "regex" {
		t.Errorf("web-login loaded as %+v", login)
	}
	// ctfcli's dynamic challenge (type dynamic, extra) is a dynamic
	// scoring, with CTFd's default function.
	if s := login.Scoring; s == nil || *s != (dataset.Scoring{Type: ctf.DynamicScoring, Initial: 500, Minimum: 100, Decay: 10, Function: ctf.Logarithmic}) {
		t.Errorf("web-login scoring %+v", s)
	}

	before := dump(t, db)
	again := mustLoad(t, db, root)
	if total(again.Created) != 0 || total(again.Updated) != 0 || again.Unchanged["challenges"] != 2 {
		t.Errorf("reload: created %v updated %v unchanged %v, want 2 challenges unchanged", again.Created, again.Updated, again.Unchanged)
	}
	sameDump(t, before, dump(t, db))
}

// TestLoadCtfcliErrors: a bad challenge.yml in a directory names the file
// and the entry "challenge", and nothing of the directory is loaded.
func TestLoadCtfcliErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yml, field string
		inValidator      bool
	}{
		{"unknown requirement", "name: Needy\ncategory: misc\nvalue: 10\nflags: ['flag{n}']\nrequirements: [no-such-challenge]\n", "requires", false},
		{"no value", "name: Free\ncategory: misc\nflags: ['flag{f}']\n", "value", true},
		{"no flags", "name: Flagless\ncategory: misc\nvalue: 10\n", "flags", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := baseDB(t)
			before := dump(t, db)
			root := t.TempDir()
			writeFile(t, root, "a-good/challenge.yml", "name: Good One\ncategory: misc\nvalue: 10\nflags: ['flag{good}']\n")
			bad := writeFile(t, root, "b-bad/challenge.yml", tc.yml)
			ds, err := dataset.ReadPaths([]string{root})
			if tc.inValidator != (err != nil) {
				t.Fatalf("ReadPaths: %v (want a validation error: %v)", err, tc.inValidator)
			}
			if err == nil {
				_, err = transfer.Load(context.Background(), db, ds)
			}
			var de *dataset.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v, want a *dataset.Error", err, err)
			}
			if de.File != bad || de.Entry != "challenge" || !strings.HasPrefix(de.Field, tc.field) {
				t.Errorf("error names %q / %q / %q, want %q / challenge / %s", de.File, de.Entry, de.Field, bad, tc.field)
			}
			sameDump(t, before, dump(t, db))
		})
	}
}

// TestLoadCtfcliRequirementTitleInDatabase: ctfcli's requirements name
// challenges by name (title); docs/product.md#challenges: requires
// names prerequisite slugs or titles. A challenge.yml loaded on its own whose requirement is the title
// of a challenge already in the database must resolve it, as it would if
// both were loaded together.
func TestLoadCtfcliRequirementTitleInDatabase(t *testing.T) {
	db := baseDB(t)
	root := t.TempDir()
	writeFile(t, root, "crypto/rsa2/challenge.yml", `
name: RSA Two
category: crypto
value: 200
flags: ['flag{rsa2}']
requirements: [Baby RSA]
`)
	rep, err := loadPaths(t, db, root)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if rep.Created["challenges"] != 1 {
		t.Errorf("created %v, want one challenge", rep.Created)
	}
	for _, c := range dump(t, db).Challenges {
		if c.Slug == "rsa-two" && !reflect.DeepEqual(c.Requires, []string{"baby-rsa"}) {
			t.Errorf("rsa-two requires %v, want [baby-rsa]", c.Requires)
		}
	}
}
