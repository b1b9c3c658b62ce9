// Package web is Flagship's web app: server-rendered pages (html/template,
// templates and static files embedded), a little plain JavaScript that no
// page needs, and forms that call the same use cases as every other front
// door. It holds no rule of its own.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/httpx"
	"github.com/flagshipctf/flagship/internal/platform"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configure the web app.
type Options struct {
	Log *slog.Logger
	// SecureCookies: the platform is served over TLS (its public URL is
	// https). Cookies are then Secure and named with the __Host- prefix
	// (ctf.CookieName), and pages ask for https only (HSTS).
	SecureCookies bool
}

// Handler serves the web app.
type Handler struct {
	svc    *platform.Service
	log    *slog.Logger
	opts   Options
	mux    *http.ServeMux
	csrf   *http.CrossOriginProtection
	assets assets
	pages  map[string]*template.Template
	md     *markdown
	// cardTmpl renders a board card; boards keeps the cards per version.
	cardTmpl *template.Template
	boards   boardCache
	graph    [3]graphCache // by live.Who
	// The session cookie, and the other cookies' names (ctf.CookieName:
	// prefixed over https).
	session                 httpx.SessionCookie
	themeCookie, seenCookie string
}

// New returns the web app over svc.
func New(svc *platform.Service, opts Options) *Handler {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{svc: svc, log: opts.Log, opts: opts, mux: http.NewServeMux(), csrf: http.NewCrossOriginProtection(),
		assets: loadAssets(), md: newMarkdown(), session: httpx.Session(opts.SecureCookies),
		themeCookie: ctf.CookieName("theme", opts.SecureCookies), seenCookie: ctf.CookieName("flagship_seen", opts.SecureCookies)}
	h.pages = parsePages(h.funcs())
	h.cardTmpl = h.pages["board"].Lookup("card")
	h.routes()
	return h
}

// routes is the whole web app on one screen.
func (h *Handler) routes() {
	h.mux.HandleFunc("GET /{$}", h.home)
	h.mux.HandleFunc("GET /challenges", h.board)
	h.mux.HandleFunc("GET /rules", h.sitePage(ctf.PageRules))
	h.mux.HandleFunc("GET /faq", h.sitePage(ctf.PageFAQ))
	h.mux.HandleFunc("GET /logo/{file}", h.logo)
	h.mux.HandleFunc("GET /challenges/{slug}", h.challenge)
	h.mux.HandleFunc("POST /challenges/{slug}/submit", h.submit)
	h.mux.HandleFunc("POST /challenges/{slug}/review", h.review)
	h.mux.HandleFunc("POST /challenges/{slug}/writeup", h.writeup)
	h.mux.HandleFunc("GET /challenges/{slug}/hints/{id}/unlock", h.hintConfirmPage)
	h.mux.HandleFunc("POST /challenges/{slug}/hints/{id}/unlock", h.unlockHint)
	h.mux.HandleFunc("POST /challenges/{slug}/instance", h.instanceAction(startInstance, "started"))
	h.mux.HandleFunc("POST /challenges/{slug}/instance/extend", h.instanceAction(extendInstance, "extended"))
	h.mux.HandleFunc("POST /challenges/{slug}/instance/stop", h.instanceAction(stopInstance, "stopped"))
	h.mux.HandleFunc("GET /scoreboard", h.scoreboard)
	h.mux.HandleFunc("GET /users/{id}", h.profile)
	h.mux.HandleFunc("GET /me", h.me)
	h.mux.HandleFunc("GET /settings", h.settings)
	h.mux.HandleFunc("POST /settings/profile", h.settingsForm(h.saveProfile))
	h.mux.HandleFunc("POST /settings/password", h.settingsForm(h.changePassword))
	h.mux.HandleFunc("POST /settings/2fa/begin", h.settingsForm(h.beginTwoFactor))
	h.mux.HandleFunc("POST /settings/2fa/confirm", h.settingsForm(h.confirmTwoFactor))
	h.mux.HandleFunc("POST /settings/2fa/disable", h.settingsForm(h.disableTwoFactor))
	h.mux.HandleFunc("POST /settings/2fa/recovery-codes", h.settingsForm(h.regenerateRecoveryCodes))
	h.mux.HandleFunc("POST /settings/sessions/revoke", h.settingsForm(h.revokeSession))
	h.mux.HandleFunc("POST /settings/sessions/revoke-others", h.settingsForm(h.revokeOtherSessions))
	h.mux.HandleFunc("POST /settings/keys", h.settingsForm(h.createKey))
	h.mux.HandleFunc("POST /settings/keys/revoke", h.settingsForm(h.revokeKey))
	h.mux.HandleFunc("GET /settings/agents", h.agents)
	h.mux.HandleFunc("POST /settings/agents", h.agentsForm(h.createAgent))
	h.mux.HandleFunc("POST /settings/agents/keys", h.agentsForm(h.createAgentKey))
	h.mux.HandleFunc("POST /settings/agents/keys/revoke", h.agentsForm(h.revokeAgentKey))
	h.mux.HandleFunc("GET /settings/agents/{username}/export/{file}", h.agentExport)
	h.mux.HandleFunc("GET /login", h.loginPage)
	h.mux.HandleFunc("POST /login", h.login)
	h.mux.HandleFunc("GET /signup", h.signupPage)
	h.mux.HandleFunc("POST /signup", h.signup)
	h.mux.HandleFunc("POST /logout", h.logout)
	h.mux.HandleFunc("GET /forgot", h.forgotPage)
	h.mux.HandleFunc("POST /forgot", h.forgot)
	h.mux.HandleFunc("GET /reset", h.resetPage)
	h.mux.HandleFunc("POST /reset", h.reset)
	h.mux.HandleFunc("GET /verify", h.verifyPage)
	h.mux.HandleFunc("POST /verify/resend", h.resendVerification)
	h.mux.HandleFunc("POST /theme", h.theme)
	h.mux.HandleFunc("GET /admin", h.adminOverview)
	h.mux.HandleFunc("GET /admin/challenges", h.adminChallenges)
	h.mux.HandleFunc("GET /admin/challenges/new", h.adminNewChallenge)
	h.mux.HandleFunc("GET /admin/challenges/{slug}", h.adminEditChallenge)
	h.mux.HandleFunc("POST /admin/challenges", h.adminSaveChallenge)
	h.mux.HandleFunc("GET /admin/challenges/{slug}/delete", h.adminDeletePage)
	h.mux.HandleFunc("POST /admin/challenges/{slug}/delete", h.adminDeleteChallenge)
	h.mux.HandleFunc("POST /admin/challenges/{slug}/hide", h.adminHideChallenge)
	h.mux.HandleFunc("GET /admin/challenges/{slug}/handout", h.adminHandout)
	h.mux.HandleFunc("GET /admin/writeups", h.adminWriteups)
	h.mux.HandleFunc("POST /admin/writeups", h.adminModerate)
	h.mux.HandleFunc("GET /admin/users", h.adminUsers)
	h.mux.HandleFunc("POST /admin/users", h.adminUserAction)
	h.mux.HandleFunc("POST /admin/users/new", h.adminCreateUser)
	h.mux.HandleFunc("GET /admin/users/{username}/ban", h.adminBanPage)
	h.mux.HandleFunc("POST /admin/users/{username}/ban", h.adminBan)
	h.mux.HandleFunc("GET /admin/users/{username}/recovery", h.adminRecovery)
	h.mux.HandleFunc("POST /admin/users/{username}/recovery", h.adminRecoveryAction)
	h.mux.HandleFunc("GET /admin/audit", h.adminAudit)
	h.mux.HandleFunc("GET /admin/mail", h.adminMail)
	h.mux.HandleFunc("GET /admin/submissions", h.adminSubmissions)
	h.mux.HandleFunc("GET /admin/players/{username}", h.adminPlayer)
	h.mux.HandleFunc("POST /admin/players/{username}/anonymise", h.adminAnonymise)
	h.mux.HandleFunc("GET /admin/instances", h.adminInstances)
	h.mux.HandleFunc("POST /admin/instances/stop", h.adminStopInstance)
	h.mux.HandleFunc("GET /admin/webhooks", h.adminWebhooks)
	h.mux.HandleFunc("GET /admin/webhooks/{id}", h.adminWebhooks)
	h.mux.HandleFunc("POST /admin/webhooks", h.adminWebhookAction)
	h.mux.HandleFunc("POST /admin/webhooks/new", h.adminCreateWebhook)
	h.mux.HandleFunc("GET /admin/event", h.adminEvent)
	h.mux.HandleFunc("POST /admin/event", h.adminSaveEvent)
	h.mux.HandleFunc("POST /admin/event/unfreeze", h.adminUnfreeze)
	h.mux.HandleFunc("GET /admin/announcements", h.adminAnnouncements)
	h.mux.HandleFunc("POST /admin/announcements", h.adminPostAnnouncement)
	h.mux.HandleFunc("GET /admin/pages", h.adminPages)
	h.mux.HandleFunc("POST /admin/pages", h.adminSavePage)
	h.mux.HandleFunc("POST /admin/logo", h.adminSaveLogo)
	h.mux.HandleFunc("POST /admin/logo/remove", h.adminRemoveLogo)
	h.mux.HandleFunc("GET /admin/data", h.adminData)
	h.mux.HandleFunc("GET /admin/data/export", h.adminExport)
	h.mux.HandleFunc("POST /admin/data/import", h.adminImport)
	h.mux.HandleFunc("GET /announcements", h.announcements)
	h.mux.HandleFunc("GET /static/{name}", h.static)
	h.mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { // asked for by browsers regardless of the page's icon
		http.Redirect(w, r, "/static/"+h.assets.byName["favicon.svg"], http.StatusMovedPermanently)
	})
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.error(w, r, h.viewer(w, r), ctf.Errorf(ctf.NotFound, "there is no page here"))
	})
}

// ServeHTTP serves a page with the headers every page carries, refuses
// unsafe cross-origin requests (a cookie rides along on them), and caps
// every body (limitBody).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("X-Frame-Options", "DENY")
	if h.opts.SecureCookies {
		// For this host only: challenges often run on sibling subdomains
		// over plain http, which includeSubDomains would cut off.
		hd.Set("Strict-Transport-Security", "max-age=31536000")
	}
	if err := h.csrf.Check(r); err != nil {
		h.error(w, r, ctf.Viewer{}, ctf.Errorf(ctf.Forbidden, "this form was sent from another site; reload the page and send it again"))
		return
	}
	if !h.limitBody(w, r) {
		return
	}
	h.mux.ServeHTTP(w, r)
}

// contentSecurityPolicy: scripts and styles from this origin only (no
// inline code anywhere), no framing, forms posted here only. Images: this
// origin and data: (the 2FA QR code) only — an image of another site
// would tell that site who reads the page; Markdown shows such images as
// links (offSiteImages) and a profile shows initials, not the avatar.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// assets are the static files under content-hashed names, so they can be
// cached for a year and still change with a release.
type assets struct {
	byName map[string]string // app.css -> app.3f2a9c1b.css
	files  map[string][]byte // hashed name -> bytes
	gz     map[string][]byte // hashed name -> gzipped bytes
	types  map[string]string
}

func loadAssets() assets {
	a := assets{byName: map[string]string{}, files: map[string][]byte{}, gz: map[string][]byte{}, types: map[string]string{}}
	entries, err := fs.ReadDir(staticFS, "static")
	if err != nil {
		panic("web: static files: " + err.Error()) // embedded: cannot fail
	}
	for _, e := range entries {
		data, err := staticFS.ReadFile("static/" + e.Name())
		if err != nil {
			panic("web: static file: " + err.Error())
		}
		sum := sha256.Sum256(data)
		ext := path.Ext(e.Name())
		hashed := strings.TrimSuffix(e.Name(), ext) + "." + hex.EncodeToString(sum[:])[:10] + ext
		a.byName[e.Name()] = hashed
		a.files[hashed] = data
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(data)
		zw.Close()
		a.gz[hashed] = gz.Bytes()
		a.types[hashed] = map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
			".svg": "image/svg+xml"}[ext]
	}
	return a
}

func (h *Handler) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	data, ok := h.assets.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", h.assets.types[name])
	hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	hd.Set("Vary", "Accept-Encoding")
	if httpx.AcceptsGzip(r) && r.Header.Get("Range") == "" {
		hd.Set("Content-Encoding", "gzip")
		data = h.assets.gz[name]
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

// viewer resolves the signed-in user from the session cookie; a stale
// cookie is cleared and reads as anonymous.
func (h *Handler) viewer(w http.ResponseWriter, r *http.Request) ctf.Viewer {
	token, ok := h.session.Token(r)
	if !ok {
		return ctf.Viewer{}
	}
	v, err := h.svc.Accounts.AuthenticateSession(r.Context(), token)
	if err != nil {
		// A banned user's session is kept (it works again after an
		// unban): meanwhile its pages say why they read as a visitor's
		// (render, banNotice).
		if h.svc.Accounts.DropCookie(r.Context(), token) {
			h.session.Clear(w)
		}
		return ctf.Viewer{}
	}
	return v
}

// banNotice is what a page tells the holder of a banned user's session
// (platform.BanNotice), "" for anyone else.
func (h *Handler) banNotice(r *http.Request) string {
	token, ok := h.session.Token(r)
	if !ok {
		return ""
	}
	notice, _ := h.svc.Accounts.SessionBanNotice(r.Context(), token)
	return notice
}

// redirect sends the browser to path after a form (303: GET it).
func redirect(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// safeNext keeps a "next" parameter to paths of this site only (sitePath);
// anything else goes home.
func safeNext(next string) string {
	if !sitePath(next) {
		return "/"
	}
	return next
}

// sitePath reports whether s is a path of this site as every browser reads
// it: one leading slash and no second one after it ("//host" names another
// site), no backslash (a browser takes it for a slash), no control, space
// or invisible character anywhere (a browser strips tabs and newlines, so
// "/\t/host" is "//host"), and nothing that still parses as a scheme or a
// host.
func sitePath(s string) bool {
	if !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '\\' || r == ' ' || !unicode.IsPrint(r) {
			return false
		}
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "" && u.Host == "" && u.User == nil && u.Opaque == ""
}

// waitText says how long to wait, for a person.
func waitText(d time.Duration) string {
	switch s := int(d.Round(time.Second).Seconds()); {
	case s < 60:
		return fmt.Sprintf("%d seconds", max(s, 1))
	case s < 120:
		return "a minute"
	default:
		return fmt.Sprintf("%d minutes", (s+59)/60)
	}
}
