package platform

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// pngBytes is the start of a PNG file and some bytes: enough for the
// content check, which reads the signature.
var pngBytes = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1}, 100)...)

// TestPagesAndLogo: only admins write the pages and the logo; a page's
// text is at most 64 KiB and a page is one of three; a logo is a PNG,
// JPEG, GIF or WebP by its content (SVG and text refused), at most 256
// KiB; every write is audited, and the other replica applies it from the
// change log without rebuilding, as a fresh replica reads it.
func TestPagesAndLogo(t *testing.T) {
	t.Parallel()
	ctx, f := context.Background(), newFixture(t)
	a, root, pam := f.svc, f.as("root"), f.as("pam")
	b, seen := f.watchedReplica()
	rebuilds := b.live.Rebuilds()

	_, err := a.Event.SetPage(ctx, pam, ctf.PageRules, "mine")
	wantCode(t, "a player writes a page", err, ctf.Forbidden)
	_, err = a.Event.SetLogo(ctx, pam, pngBytes)
	wantCode(t, "a player sets the logo", err, ctf.Forbidden)
	wantCode(t, "a player removes the logo", a.Event.RemoveLogo(ctx, pam), ctf.Forbidden)
	_, err = a.Event.SetPage(ctx, root, "about", "x")
	wantCode(t, "an unknown page", err, ctf.Invalid)
	_, err = a.Event.SetPage(ctx, root, ctf.PageFAQ, strings.Repeat("é", ctf.MaxPageBytes/2+1))
	wantCode(t, "a page over 64 KiB", err, ctf.Invalid)
	if !strings.Contains(err.Error(), "64 KiB") {
		t.Errorf("the refusal does not say the bound: %v", err)
	}
	_, err = a.Event.SetPage(ctx, root, ctf.PageFAQ, "\xff")
	wantCode(t, "not UTF-8", err, ctf.Invalid)
	p, err := a.Event.SetPage(ctx, root, ctf.PageFAQ, strings.Repeat("a", ctf.MaxPageBytes))
	wantCode(t, "a page of exactly 64 KiB", err, "")
	if len(p.Text) != ctf.MaxPageBytes {
		t.Fatalf("the page holds %d bytes", len(p.Text))
	}

	for name, data := range map[string][]byte{
		"svg":   []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`),
		"text":  []byte("hello"),
		"empty": nil,
		"big":   append(append([]byte{}, pngBytes...), make([]byte, ctf.MaxLogoBytes)...),
	} {
		_, err := a.Event.SetLogo(ctx, root, data)
		wantCode(t, "logo "+name, err, ctf.Invalid)
	}
	wantCode(t, "remove no logo", a.Event.RemoveLogo(ctx, root), ctf.Conflict)
	for _, x := range []struct { // the PNG last: it stays
		typ  string
		data []byte
	}{{"image/jpeg", []byte("\xff\xd8\xff\xe0rest")}, {"image/gif", []byte("GIF89a..")}, {"image/webp", []byte("RIFF\x10\x00\x00\x00WEBPVP8 ")},
		{"image/png", pngBytes}} {
		l, err := a.Event.SetLogo(ctx, root, x.data)
		wantCode(t, "logo "+x.typ, err, "")
		if l.Type != x.typ {
			t.Errorf("%s sniffed as %s", x.typ, l.Type)
		}
	}

	_, err = a.Event.SetPage(ctx, root, ctf.PageRules, "Be **nice**.\r\n")
	wantCode(t, "rules", err, "")
	seen("rules", func() bool { return b.Event.Page(ctf.PageRules).Text == "Be **nice**.\n" })
	seen("faq", func() bool { return len(b.Event.Page(ctf.PageFAQ).Text) == ctf.MaxPageBytes })
	seen("logo", func() bool {
		l, ok := b.Event.Logo()
		return ok && bytes.Equal(l.Data, pngBytes) && l.Type == "image/png"
	})
	_, err = a.Event.SetPage(ctx, root, ctf.PageFAQ, "  \n ")
	wantCode(t, "empty the faq", err, "")
	if a.Event.Page(ctf.PageFAQ).Text != "" {
		t.Fatal("a text of blanks is kept")
	}
	seen("faq emptied", func() bool { return b.Event.Page(ctf.PageFAQ).Text == "" })
	wantCode(t, "remove the logo", a.Event.RemoveLogo(ctx, root), "")
	seen("logo removed", func() bool { _, ok := b.Event.Logo(); return !ok })
	if got := b.live.Rebuilds(); got != rebuilds {
		t.Errorf("the other replica rebuilt its state %d times", got-rebuilds)
	}
	_, err = a.Event.SetLogo(ctx, root, pngBytes)
	wantCode(t, "logo again", err, "")
	fresh := f.replica()
	if fresh.Event.Page(ctf.PageRules).Text != "Be **nice**.\n" || fresh.Event.Page(ctf.PageLanding).Text != "" {
		t.Errorf("a fresh replica reads the pages as %+v", fresh.Event.Page(ctf.PageRules))
	}
	if l, ok := fresh.Event.Logo(); !ok || !bytes.Equal(l.Data, pngBytes) {
		t.Error("a fresh replica has no logo")
	}

	log, err := a.Admin.AuditLog(ctx, root, 0, 100)
	wantCode(t, "audit log", err, "")
	counts := map[string]int{}
	for _, e := range log {
		counts[e.Action+" "+e.Target]++
		if e.Action == "event.logo" && e.Actor != "root" {
			t.Errorf("the logo's entry names %q", e.Actor)
		}
	}
	if counts["page.update rules"] != 1 || counts["page.update faq"] != 2 || counts["event.logo event"] != 6 {
		t.Errorf("audit entries: %v", counts)
	}
}
