package web

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/httpx"
	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/util"
)

// page is what every template gets: the caller, the theme, the page's own
// data, and a message for a form.
type page struct {
	Title   string
	Viewer  ctf.Viewer
	Theme   string // light, dark, or auto (no choice yet: the system's preference)
	Path    string // the page's path, for "next" after logging in
	Data    any
	Error   string
	Notice  string
	Status  int
	NoIndex bool
	// Ban: the holder of a banned user's session is told so on every
	// page, which they otherwise see as a visitor.
	Ban string
	// Clock is where the event's clock stands; Unread counts the
	// announcements this browser has not seen (none when allRead).
	Clock   clockView
	Site    siteNav // the logo and the pages the top bar links
	Unread  int
	allRead bool
	// flashTaken: the handler took the flash itself (takeFlash) to show
	// more than its messages.
	flashTaken bool
}

// parsePages parses each page template with the layout.
func parsePages(funcs template.FuncMap) map[string]*template.Template {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic("web: templates: " + err.Error())
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" || base == "partials" || base == "organiser" {
			continue
		}
		pages[base] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html",
			"templates/organiser.html", n))
	}
	return pages
}

func (h *Handler) funcs() template.FuncMap {
	return template.FuncMap{
		"asset":    func(name string) string { return "/static/" + h.assets.byName[name] },
		"duration": formatDuration,
		"markdown": h.md.render,
		"stars": func(avg *float64) string {
			if avg == nil {
				return "unrated"
			}
			return strconv.FormatFloat(*avg, 'f', 1, 64)
		},
		// lower takes any text, a string or a kind (ctf.Difficulty), which
		// a template may not pass where a string is wanted.
		"lower":    func(s any) string { return strings.ToLower(fmt.Sprint(s)) },
		"initials": initials,
		"str": func(s *string) string {
			if s == nil {
				return ""
			}
			return *s
		},
		"utc": utcText,
		"at":  timeElement,
		"atText": func(v any) string {
			if t, ok := timeOf(v); ok {
				return readableTime(t)
			}
			return ""
		},
		"iso":       isoTime,
		"inputTime": inputTime,
		"add":       func(a, b int) int { return a + b },
		"plural":    plural,
		"fileSize":  fileSize,
		"icon":      icon,
		// themeCookie names the theme's cookie, for app.js to set it
		// as the server does.
		"themeCookie": func() string { return h.themeCookie },
		"badgeIcon":   badgeIcon,
		// liveAfter is the live stream's position a page is rendered at, so
		// that live.js resumes from it (data-live-after).
		"liveAfter": h.svc.Stream.LastEvent,
		"hasString": func(list []string, s string) bool {
			for _, x := range list {
				if x == s {
					return true
				}
			}
			return false
		},
	}
}

// initials stand for a person where a picture would: the first letters of
// the first two words of the display name, or of the username.
func initials(name, username *string) string {
	words := []string{}
	if name != nil {
		words = strings.Fields(*name)
	}
	if len(words) == 0 && username != nil {
		words = strings.Fields(*username)
	}
	var b strings.Builder
	for _, w := range words[:min(len(words), 2)] {
		r, _ := utf8.DecodeRuneInString(w)
		b.WriteString(strings.ToUpper(string(r)))
	}
	return b.String()
}

// render writes a page with its status; personalised pages are never
// stored by a cache.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, name string, p page) {
	t := h.pages[name]
	if p.Theme == "" {
		p.Theme = h.themeOf(r)
	}
	if p.Path == "" {
		p.Path = r.URL.RequestURI()
	}
	if !p.flashTaken {
		f := h.takeFlash(w, r, p.Viewer)
		p.Notice, p.Error = cmp.Or(p.Notice, f.Notice), cmp.Or(p.Error, f.Error)
	}
	if p.Viewer.User == nil {
		if p.Ban = h.banNotice(r); p.Ban != "" && p.Error == p.Ban {
			p.Error = "" // a log-in refused for the ban: said once
		}
	}
	p.Clock = h.clock()
	p.Site = h.siteNav()
	if !p.allRead {
		p.Unread = h.svc.Event.AnnouncementsAfter(time.UnixMilli(h.seenAt(r)))
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, p); err != nil {
		h.log.Error("render page", "page", name, "err", err)
		http.Error(w, "internal server error", http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Vary", "Cookie, Accept-Encoding")
	status := p.Status
	if status == 0 {
		status = http.StatusOK
	}
	writeCompressed(w, r, status, buf.Bytes())
}

// writeCompressed writes body, gzipped when the client takes it and it is
// worth it (a board of 200 challenges is 100 KB of HTML, 15 KB gzipped).
func writeCompressed(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	if len(body) >= 1024 && httpx.AcceptsGzip(r) {
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
		zw.Write(body)
		zw.Close()
		body = gz.Bytes()
		w.Header().Set("Content-Encoding", "gzip")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// error renders err as a page with its status.
func (h *Handler) error(w http.ResponseWriter, r *http.Request, v ctf.Viewer, err error) {
	p := h.refused(w, r, err)
	p.Title, p.Viewer = http.StatusText(p.Status), v
	h.render(w, r, "error", p)
}

// formError renders a form again with err's message (and the wait, for a
// throttle) and status.
func (h *Handler) formError(w http.ResponseWriter, r *http.Request, name string, p page, err error) {
	q := h.refused(w, r, err)
	p.Status, p.Error = q.Status, q.Error
	h.render(w, r, name, p)
}

// refused is err as a page shows it: its status, and its message as one
// sentence, with the wait in it when it comes with one (a throttle; every password hash busy),
// which goes out as Retry-After too. An internal error is logged; its
// message says nothing more. Every page that shows an error gets it here,
// so none forgets the wait or the log.
func (h *Handler) refused(w http.ResponseWriter, r *http.Request, err error) page {
	p := page{Status: httpx.Status(err)}
	if p.Status == http.StatusInternalServerError {
		h.log.Error("web request failed", "path", r.URL.Path, "err", err)
	}
	d := httpx.Wait(err)
	if d > 0 {
		httpx.SetRetryAfter(w.Header(), d)
	}
	p.Error = sentence(ctf.ErrorMessage(err), d)
	return p
}

// themeOf is the theme the user chose (the cookie): light or dark, or
// auto before any choice, which follows the system's preference
// (prefers-color-scheme, in app.css).
func (h *Handler) themeOf(r *http.Request) string {
	if c, err := r.Cookie(h.themeCookie); err == nil && (c.Value == "light" || c.Value == "dark") {
		return c.Value
	}
	return "auto"
}

// theme sets the theme the switch's button names (a form: no script
// needed; app.js sets the same cookie itself, without posting the page),
// and goes back where it came from. A post naming none flips the theme
// shown to those who never chose (dark).
func (h *Handler) theme(w http.ResponseWriter, r *http.Request) {
	next := r.PostFormValue("theme")
	if next != "light" && next != "dark" {
		next = "light"
		if h.themeOf(r) == "light" {
			next = "dark"
		}
	}
	http.SetCookie(w, &http.Cookie{Name: h.themeCookie, Value: next, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode,
		Secure: h.opts.SecureCookies})
	redirect(w, r, safeNext(r.FormValue("next")))
}

// markdown renders organisers' and players' Markdown: goldmark without raw
// HTML and with images of other sites as links (offSiteImages), then
// bluemonday's policy for user content as a second fence. The
// HTML of each source is kept, since descriptions are read far more often
// than they change.
type markdown struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy
	mu     sync.Mutex
	cache  map[string]template.HTML
}

func newMarkdown() *markdown {
	p := bluemonday.UGCPolicy()
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	md := goldmark.New(goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(offSiteImages{}, 100))))
	return &markdown{md: md, policy: p, cache: map[string]template.HTML{}}
}

const markdownCacheSize = 4096

func (m *markdown) render(src string) template.HTML {
	m.mu.Lock()
	out, ok := m.cache[src]
	m.mu.Unlock()
	if ok {
		return out
	}
	var buf bytes.Buffer
	if err := m.md.Convert([]byte(src), &buf); err != nil {
		return template.HTML(template.HTMLEscapeString(src))
	}
	out = template.HTML(m.policy.SanitizeBytes(buf.Bytes())) // #nosec: sanitised just above
	m.mu.Lock()
	if len(m.cache) >= markdownCacheSize {
		clear(m.cache)
	}
	m.cache[src] = out
	m.mu.Unlock()
	return out
}

// asRateLimited returns err as a RateLimited domain error, or nil.
func asRateLimited(err error) *ctf.Error {
	var e *ctf.Error
	if errors.As(err, &e) && e.Code == ctf.RateLimited {
		return e
	}
	return nil
}
