package web

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/httpx"
)

// The event's pages (the landing page visitors see at /, the rules, the
// FAQ) and its logo in the top bar, and the admin page that edits them
// (/admin/pages). The rules of what they may hold are the platform's.

// pageTitles name the pages as the top bar and the admin page do.
var pageTitles = map[string]string{ctf.PageLanding: "Landing page", ctf.PageRules: "Rules", ctf.PageFAQ: "FAQ"}

// pageNouns name the pages in a sentence ("Save the rules").
var pageNouns = map[string]string{ctf.PageLanding: "landing page", ctf.PageRules: "rules", ctf.PageFAQ: "FAQ"}

// siteNav is what the top bar shows of the pages and the logo.
type siteNav struct {
	Logo       string // the logo's address, "" for none
	Rules, FAQ bool   // the page has a text
}

func (h *Handler) siteNav() siteNav {
	n := siteNav{Rules: h.svc.Event.Page(ctf.PageRules).Text != "", FAQ: h.svc.Event.Page(ctf.PageFAQ).Text != ""}
	if l, ok := h.svc.Event.Logo(); ok {
		n.Logo = logoPath(l)
	}
	return n
}

// logoPath is the logo's address: named by its content, so it is cached
// for a year and a new logo is a new address.
func logoPath(l ctf.Logo) string { return "/logo/" + l.SHA256[:16] + l.Ext() }

// logo serves the event's logo at its current address only, with the type
// its content was checked to be.
func (h *Handler) logo(w http.ResponseWriter, r *http.Request) {
	l, ok := h.svc.Event.Logo()
	if !ok || r.URL.Path != logoPath(l) {
		h.error(w, r, h.viewer(w, r), ctf.Errorf(ctf.NotFound, "there is no page here"))
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", l.Type)
	hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	http.ServeContent(w, r, "", l.UpdatedAt, bytes.NewReader(l.Data))
}

// sitePageData is a page as shown: its title and text. OwnHeading: the
// text has a heading of the first level, so the page adds none.
type sitePageData struct {
	Name, Heading, Text string
	OwnHeading          bool
}

// home is the landing page for visitors when it has a text, else the
// board; signed-in users always get the board (also at /challenges).
func (h *Handler) home(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	if p := h.svc.Event.Page(ctf.PageLanding); v.User == nil && p.Text != "" {
		own := strings.Contains(string(h.md.render(p.Text)), "<h1")
		h.render(w, r, "page", page{Title: "Welcome", Viewer: v, Data: sitePageData{Name: p.Name, Text: p.Text, OwnHeading: own}})
		return
	}
	h.boardFor(w, r, v)
}

// sitePage serves the rules or the FAQ: 404 while it has no text.
func (h *Handler) sitePage(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := h.viewer(w, r)
		p := h.svc.Event.Page(name)
		if p.Text == "" {
			h.error(w, r, v, ctf.Errorf(ctf.NotFound, "there is no page here"))
			return
		}
		h.render(w, r, "page", page{Title: pageTitles[name], Viewer: v, Data: sitePageData{Name: name, Heading: pageTitles[name], Text: p.Text}})
	}
}

// adminPage is one page in the admin's form: its text as saved, or as
// typed with the refusal beside it.
type adminPage struct {
	ctf.Page
	Title, Noun, Path string
	Error, Field      string
}

type adminPagesData struct {
	Pages            []adminPage
	Logo             string // the logo's address, "" for none
	LogoType         string
	LogoKiB          int
	MaxPageKiB       int
	MaxLogoKiB       int
	LogoError        string
	LogoAccept       string
	EventName        string
	LogoInputInvalid bool
}

func (h *Handler) adminPages(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	h.pagesPage(w, r, v, page{}, nil)
}

// pagesPage renders the admin page, with typed (when not nil) in place of
// its page's saved text.
func (h *Handler) pagesPage(w http.ResponseWriter, r *http.Request, v ctf.Viewer, p page, typed *adminPage) {
	d := adminPagesData{MaxPageKiB: ctf.MaxPageBytes >> 10, MaxLogoKiB: ctf.MaxLogoBytes >> 10,
		LogoAccept: "image/png,image/jpeg,image/gif,image/webp", EventName: h.svc.Event.Current().Name}
	for _, name := range ctf.PageNames {
		ap := adminPage{Page: h.svc.Event.Page(name), Title: pageTitles[name], Noun: pageNouns[name], Path: "/" + name}
		if name == ctf.PageLanding {
			ap.Path = "/"
		}
		if typed != nil && typed.Name == name {
			ap.Text, ap.Error, ap.Field = typed.Text, typed.Error, typed.Field
		}
		d.Pages = append(d.Pages, ap)
	}
	if typed != nil && pageTitles[typed.Name] == "" {
		p.Error = typed.Error // no form of the page's to show it beside
	}
	if l, ok := h.svc.Event.Logo(); ok {
		d.Logo, d.LogoType, d.LogoKiB = logoPath(l), strings.TrimPrefix(l.Type, "image/"), (len(l.Data)+1023)>>10
	}
	p.Title, p.Viewer, p.Data = "Pages · Admin", v, d
	h.render(w, r, "admin-pages", p)
}

// adminSavePage saves a page's text. A refusal stays in place with its
// status, so nothing typed is lost (a page's text is too long for a
// flash).
func (h *Handler) adminSavePage(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	name := r.PostFormValue("page")
	saved, err := h.svc.Event.SetPage(r.Context(), v, name, r.PostFormValue("text"))
	if err == nil {
		notice := "Page saved: " + pageTitles[name] + "."
		if saved.Text == "" {
			notice = "Page saved: " + pageTitles[name] + " is empty, so it is not shown."
		}
		h.redirectWith(w, r, v, "/admin/pages#page-"+name, flash{Notice: notice})
		return
	}
	typed := &adminPage{Page: ctf.Page{Name: name, Text: r.PostFormValue("text")}}
	typed.Error, typed.Field = h.refusedInWords(w, r, err).Error, fieldOf(err)
	h.pagesPage(w, r, v, page{Status: httpx.Status(err)}, typed)
}

// adminSaveLogo takes an uploaded image as the logo.
func (h *Handler) adminSaveLogo(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	// The body is capped for this route (bodyLimits), and held in memory.
	if err := r.ParseMultipartForm(bodyLimits[r.Pattern].bytes); err != nil {
		if isTooLarge(err) {
			h.tooLarge(w, r, bodyLimits[r.Pattern])
			return
		}
		h.redirectWith(w, r, v, "/admin/pages#logo", flash{Error: "Choose an image file to upload as the logo."})
		return
	}
	file, _, err := r.FormFile("logo")
	if errors.Is(err, http.ErrMissingFile) {
		h.redirectWith(w, r, v, "/admin/pages#logo", flash{Error: "Choose an image file to upload as the logo."})
		return
	}
	var data []byte
	if err == nil {
		data, err = io.ReadAll(file)
		file.Close()
	}
	if err == nil {
		_, err = h.svc.Event.SetLogo(r.Context(), v, data)
	}
	if err != nil {
		h.redirectWith(w, r, v, "/admin/pages#logo", flash{Error: h.refusedInWords(w, r, err).Error})
		return
	}
	h.redirectWith(w, r, v, "/admin/pages#logo", flash{Notice: "Logo saved: it shows beside the event's name in the top bar."})
}

func (h *Handler) adminRemoveLogo(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	if err := h.svc.Event.RemoveLogo(r.Context(), v); err != nil {
		h.redirectWith(w, r, v, "/admin/pages#logo", flash{Error: h.refusedInWords(w, r, err).Error})
		return
	}
	h.redirectWith(w, r, v, "/admin/pages#logo", flash{Notice: "Logo removed."})
}
