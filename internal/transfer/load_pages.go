package transfer

import (
	"bytes"
	"fmt"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// loadPages replaces the text of each page the dataset gives (a page it
// leaves out is left alone), and the logo when it gives one.
func (l *loader) loadPages() error {
	stored, err := l.tx.Content().Pages()
	if err != nil {
		return err
	}
	old := map[string]ctf.Page{}
	for _, p := range stored {
		old[p.Name] = p
	}
	for _, p := range l.ds.Pages {
		text := ctf.CleanPageText(p.Text)
		was, exists := old[p.Name]
		if exists && was.Text == text {
			l.rep.count("pages", false, false)
			continue
		}
		if err := l.tx.Content().PutPage(ctf.Page{Name: p.Name, Text: text, UpdatedAt: l.now}); err != nil {
			return fmt.Errorf("load the page %s: %w", p.Name, err)
		}
		l.rep.count("pages", !exists, exists)
	}
	if l.ds.Logo == nil {
		return nil
	}
	logo, err := ctf.NewLogo(l.ds.Logo.Data, l.now)
	if err != nil {
		return l.fail("logo", 0, "contentBase64", "%s", ctf.ErrorMessage(err))
	}
	was, err := l.tx.Content().Logo()
	if err != nil {
		return err
	}
	if was != nil && bytes.Equal(was.Data, logo.Data) {
		l.rep.count("logo", false, false)
		return nil
	}
	if err := l.tx.Content().PutLogo(logo); err != nil {
		return err
	}
	l.rep.count("logo", was == nil, was != nil)
	return nil
}
