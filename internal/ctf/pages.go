package ctf

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The event's pages and its logo: Markdown texts an admin writes (the
// landing page visitors see at /, the rules, the FAQ) and an image shown
// beside the event's name in every page's top bar.

// Page names.
const (
	PageLanding = "landing"
	PageRules   = "rules"
	PageFAQ     = "faq"
)

// PageNames are the event's pages, in the order the admin page lists them.
var PageNames = []string{PageLanding, PageRules, PageFAQ}

// Limits of pages and the logo.
const (
	MaxPageBytes = 64 << 10
	MaxLogoBytes = 256 << 10
)

// Page is one of the event's pages: its Markdown text ("" when it has
// none, and then it is not shown).
type Page struct {
	Name      string
	Text      string
	UpdatedAt time.Time
}

// Logo is the event's logo: an image of one of LogoTypes, addressed by
// the SHA-256 of its bytes.
type Logo struct {
	Type      string // a MIME type of LogoTypes
	Data      []byte
	SHA256    string // hex
	UpdatedAt time.Time
}

// Ext is the file extension its address ends with.
func (l Logo) Ext() string { return logoExts[l.Type] }

var logoExts = map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}

// CleanPageText is a page's text as stored: line ends as \n, and a text
// of blanks only is empty (the page is then not shown).
func CleanPageText(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if strings.TrimSpace(text) == "" {
		return ""
	}
	return text
}

// ValidatePage checks a page's name and text, as an admin sends them or a
// dataset holds them.
func ValidatePage(name, text string) error {
	switch {
	case !slices.Contains(PageNames, name):
		return FieldErrorf("page", "must be one of %s (not %q)", strings.Join(PageNames, ", "), name)
	case len(text) > MaxPageBytes:
		return FieldErrorf("text", "must be at most %d KiB (it is %d bytes)", MaxPageBytes>>10, len(text))
	case !utf8.ValidString(text):
		return FieldErrorf("text", "must be valid UTF-8")
	}
	return nil
}

// NewLogo checks an image for the logo by its content, never by its name
// or declared type, and returns it: a PNG, JPEG, GIF or WebP image of at
// most MaxLogoBytes. SVG is refused, since an SVG file can carry script.
func NewLogo(data []byte, at time.Time) (Logo, error) {
	if len(data) == 0 {
		return Logo{}, FieldErrorf("logo", "is empty: choose an image file")
	}
	if len(data) > MaxLogoBytes {
		return Logo{}, FieldErrorf("logo", "must be at most %d KiB (it is %s)", MaxLogoBytes>>10, kib(len(data)))
	}
	typ := sniffImage(data)
	if typ == "" {
		return Logo{}, FieldErrorf("logo", "must be a PNG, JPEG, GIF or WebP image (SVG is refused: it can carry script)")
	}
	sum := sha256.Sum256(data)
	return Logo{Type: typ, Data: data, SHA256: hex.EncodeToString(sum[:]), UpdatedAt: Millis(at)}, nil
}

func kib(n int) string { return fmt.Sprintf("%d KiB", (n+1023)>>10) }

// sniffImage names the image type data starts as, by its magic bytes: ""
// for anything else.
func sniffImage(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 12 && bytes.Equal(data[:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP")):
		return "image/webp"
	}
	return ""
}
