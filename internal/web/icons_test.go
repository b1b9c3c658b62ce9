package web

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestNoEmojiInThePages (issue 20, fix 14): the templates and the static
// files hold no emoji or pictograph (a machine without an emoji font shows
// boxes): icons are inline SVG (icon, badgeIcon). Plain text characters
// (·, →, —, …) are text.
func TestNoEmojiInThePages(t *testing.T) {
	for _, dir := range []string{"templates", "static"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				for _, r := range line {
					if pictograph(r) {
						t.Errorf("%s:%d: %q (U+%04X) is an emoji or pictograph: use an icon", path, i+1, r, r)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// pictograph reports whether r is drawn from an emoji or symbol font: the
// emoji and pictograph planes, the dingbats and miscellaneous symbols
// (☀ ☾ ✓ ★ ⚑), the variation selector that asks for emoji, and the
// symbols that most fonts lack.
func pictograph(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF, // emoji, pictographs, transport, symbols
		r >= 0x2600 && r <= 0x27BF, // miscellaneous symbols, dingbats
		r >= 0x2B00 && r <= 0x2BFF, // miscellaneous symbols and arrows (⭐)
		r >= 0x2300 && r <= 0x23FF, // miscellaneous technical (⌛ ⏰)
		r >= 0x25A0 && r <= 0x25FF, // geometric shapes (▶ ◆)
		r == 0xFE0F, r == 0x200D:   // emoji presentation, joiner
		return true
	}
	return unicode.Is(unicode.So, r) && r > 0x2100 && r != 0x2122 // other symbols, ™ aside
}

// TestIconsAreDecorativeSVG: each icon is an SVG hidden from screen
// readers (the text beside it speaks), and every badge has one.
func TestIconsAreDecorativeSVG(t *testing.T) {
	for name := range icons {
		got := string(icon(name))
		if !strings.HasPrefix(got, `<svg class="icon" viewBox="0 0 16 16" aria-hidden="true">`) || !strings.HasSuffix(got, "</svg>") {
			t.Errorf("icon %s: %s", name, got)
		}
	}
	for _, id := range []string{"first-solve", "solves-5", "solves-25", "solves-100", "first-blood", "first-insane", "category-web", "unknown"} {
		if !strings.HasPrefix(string(badgeIcon(id)), "<svg") {
			t.Errorf("badge %s has no icon", id)
		}
	}
}
