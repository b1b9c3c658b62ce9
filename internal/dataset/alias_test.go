package dataset

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestAliasBombRefused: a document whose YAML aliases repeat a large node
// many times is refused, naming the file, before anything is decoded
// (a 519 KB file once made a 52.8 MB database). The bombs are
// made here, not committed.
func TestAliasBombRefused(t *testing.T) {
	// One description under the length limit, aliased by 99 more
	// challenges: 6 MB of descriptions from a file of 60 KB.
	descriptions := func() string {
		var b strings.Builder
		b.WriteString("challenges:\n")
		b.WriteString(chal("c0", "description: &d "+strings.Repeat("x", 60000)))
		for i := 1; i < 100; i++ {
			b.WriteString(chal(fmt.Sprintf("c%d", i), "description: *d"))
		}
		return b.String()
	}()
	// The anchor in another top-level key than its aliases: the document
	// cannot be decoded a run of entries at a time and is parsed whole.
	acrossKeys := func() string {
		var b strings.Builder
		b.WriteString("announcements:\n  - {title: Big, body: &b " + strings.Repeat("y", 15000) + "}\n")
		b.WriteString("challenges:\n")
		for i := range 100 {
			b.WriteString(chal(fmt.Sprintf("c%d", i), "description: *b"))
		}
		return b.String()
	}()
	// Billion laughs: ten levels of ten aliases of the level below.
	laughs := func() string {
		var b strings.Builder
		b.WriteString("challenges:\n  - " + strings.Join(strings.Split(strings.TrimPrefix(chal("x"), "  - "), "\n    "), "\n    "))
		b.WriteString("    tags: &l0 [" + strings.TrimSuffix(strings.Repeat("lol, ", 10), ", ") + "]\n")
		for i := 1; i < 10; i++ {
			b.WriteString(fmt.Sprintf("  - tags: &l%d [%s]\n", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", ")))
		}
		return b.String()
	}()
	// A node that holds an alias of itself.
	cycle := "challenges: &c\n  - *c\n"
	for name, doc := range map[string]string{"descriptions": descriptions, "across keys": acrossKeys, "laughs": laughs, "cycle": cycle} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, "bomb.yaml", doc)
			for how, read := range map[string]func() error{
				"ReadPaths": func() error { _, err := ReadPaths([]string{p}); return err },
				"Decode":    func() error { _, err := Decode([]byte(doc), p); return err },
			} {
				err := read()
				var e *Error
				if !errors.As(err, &e) || e.File != p || !strings.Contains(e.Msg, "alias") {
					msg := fmt.Sprint(err)
					if len(msg) > 300 {
						msg = msg[:300] + "…"
					}
					t.Errorf("%s of a %d-byte alias bomb: %s; want an error naming the file and its aliases", how, len(doc), msg)
				}
			}
		})
	}
}

// TestAliasesWithinLimitsLoad: a hand-written file that shares a few values
// through aliases loads, each alias reading as its anchor's value.
func TestAliasesWithinLimitsLoad(t *testing.T) {
	doc := "challenges:\n" +
		chal("a", "categories: &web [web, misc]", "description: &d Find the flag in the page.", "flags: &f ['flag{a}', 'flag{b}']") +
		chal("b", "categories: *web", "description: *d", "flags: *f") +
		chal("c", "categories: *web", "description: *d")
	p := writeFile(t, t.TempDir(), "event.yaml", doc)
	ds, err := ReadPaths([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ds.Challenges {
		if c.Description != "Find the flag in the page." || strings.Join(c.Categories, ",") != "web,misc" {
			t.Errorf("%s: description %q, categories %v", c.Slug, c.Description, c.Categories)
		}
	}
	if got := len(ds.Challenges[1].Flags); got != 2 {
		t.Errorf("b has %d flags through the alias, want 2", got)
	}
	if _, err := Decode([]byte(doc), filepath.Join(t.TempDir(), "event.yaml")); err != nil {
		t.Errorf("Decode: %v", err)
	}
}
