package platform

import (
	"context"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// The event's pages (landing, rules, FAQ) and its logo: admins write them,
// everyone reads them, every replica applies them from the change log.

// Page returns one of the event's pages; its text is "" when it has none.
func (s *Event) Page(name string) ctf.Page { return s.live.State().Page(name) }

// Logo returns the event's logo, if it has one.
func (s *Event) Logo() (ctf.Logo, bool) { return s.live.State().Logo() }

// SetPage replaces the Markdown text of one of the event's pages (admins
// and the operator). Line ends are kept as \n, and a text of blanks only
// is empty: the page is then not shown.
func (s *Event) SetPage(ctx context.Context, v ctf.Viewer, name, text string) (ctf.Page, error) {
	if !v.IsAdmin() {
		return ctf.Page{}, ctf.ErrNotAdmin
	}
	text = ctf.CleanPageText(text)
	if err := ctf.ValidatePage(name, text); err != nil {
		return ctf.Page{}, err
	}
	p := ctf.Page{Name: name, Text: text, UpdatedAt: ctf.Millis(s.now())}
	defer s.live.Write()()
	seqs, err := s.db.PutPage(ctx, p, s.audit(v, "page.update", name, map[string]any{"bytes": len(text)}))
	s.noteWrite(err)
	if err != nil {
		return ctf.Page{}, err
	}
	s.live.Apply(seqs, func(tx *live.Tx) { tx.PutPage(p) })
	return p, nil
}

// SetLogo replaces the event's logo with an image (admins and the
// operator): PNG, JPEG, GIF or WebP by its content, at most
// ctf.MaxLogoBytes (ctf.NewLogo).
func (s *Event) SetLogo(ctx context.Context, v ctf.Viewer, data []byte) (ctf.Logo, error) {
	if !v.IsAdmin() {
		return ctf.Logo{}, ctf.ErrNotAdmin
	}
	l, err := ctf.NewLogo(data, s.now())
	if err != nil {
		return ctf.Logo{}, err
	}
	detail := map[string]any{"type": l.Type, "bytes": len(l.Data), "sha256": l.SHA256}
	return l, s.putLogo(ctx, v, &l, detail)
}

// RemoveLogo removes the event's logo (admins and the operator).
func (s *Event) RemoveLogo(ctx context.Context, v ctf.Viewer) error {
	if !v.IsAdmin() {
		return ctf.ErrNotAdmin
	}
	if _, ok := s.Logo(); !ok {
		return ctf.Errorf(ctf.Conflict, "the event has no logo to remove")
	}
	return s.putLogo(ctx, v, nil, map[string]any{"removed": true})
}

func (s *Event) putLogo(ctx context.Context, v ctf.Viewer, l *ctf.Logo, detail map[string]any) error {
	defer s.live.Write()()
	seqs, err := s.db.PutLogo(ctx, l, s.audit(v, "event.logo", "event", detail))
	s.noteWrite(err)
	if err != nil {
		return err
	}
	s.live.Apply(seqs, func(tx *live.Tx) { tx.SetLogo(l) })
	return nil
}
