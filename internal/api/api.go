// Package api serves Flagship's public REST API under /api/public, exact to
// the published contract, plus challenge file downloads.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/httpx"
	"github.com/flagshipctf/flagship/internal/openapi"
	"github.com/flagshipctf/flagship/internal/platform"
)

// MaxBodyBytes bounds request bodies.
const MaxBodyBytes = 64 << 10

// Handler is the public API.
type Handler struct {
	svc  *platform.Service
	log  *slog.Logger
	mux  *http.ServeMux
	csrf *http.CrossOriginProtection
	// The public lists' bytes, kept per version (see board.go, list.go).
	board *boardCache
	list  listCache
	// exact are the GET routes at a fixed path, by path (see ServeExact).
	exact map[string]exactRoute
	// SecureCookies: the platform is served over TLS; the session cookie
	// is then ctf.SessionCookieName(true), and a cleared one is Secure.
	SecureCookies bool
}

// New returns the API handler for svc.
func New(svc *platform.Service, log *slog.Logger) *Handler {
	h := &Handler{svc: svc, log: log, mux: http.NewServeMux(), csrf: http.NewCrossOriginProtection(), board: newBoardCache(svc),
		exact: map[string]exactRoute{}}
	h.routes()
	return h
}

// SetLeaderboardInterval sets how long at least separates two builds of
// the leaderboard's bytes under a stream of solves (default
// DefaultLeaderboardInterval; 0: build after every move, as benchmarks of
// a build's cost want).
func (h *Handler) SetLeaderboardInterval(d time.Duration) { h.board.setInterval(d) }

// WaitLeaderboard returns once the scheduled build of the leaderboard has
// caught up with every change the service has applied so far, or when ctx
// ends. A read needs no wait (it builds what it finds stale); benchmarks
// that measure a build's cost apart from the reads do.
func (h *Handler) WaitLeaderboard(ctx context.Context) error { return h.board.wait(ctx) }

// routes is the whole public surface on one screen. Each path also has a
// method-less pattern so a wrong method gets a JSON 405 with Allow, which
// names every method the path has.
func (h *Handler) routes() {
	var paths []string
	allows := map[string][]string{}
	route := func(method, path string, fn http.HandlerFunc) {
		h.mux.HandleFunc(method+" "+path, fn)
		if method == http.MethodGet && !strings.Contains(path, "{") {
			h.exact[path] = exactRoute{pattern: method + " " + path, fn: fn}
		}
		if method == http.MethodGet {
			method = "GET, HEAD"
		}
		if allows[path] == nil {
			paths = append(paths, path)
		}
		allows[path] = append(allows[path], method)
	}
	route("GET", "/api/public/health", h.health)
	route("GET", "/api/public/openapi.json", h.openAPI)
	route("GET", "/api/public/challenges", h.listChallenges)
	route("GET", "/api/public/challenges/{slug}", h.getChallenge)
	route("POST", "/api/public/challenges/{slug}/submit", h.submit)
	route("GET", "/api/public/challenges/{slug}/writeups", h.writeups)
	route("GET", "/api/public/challenges/{slug}/hints", h.hints)
	route("POST", "/api/public/challenges/{slug}/hints/{id}/unlock", h.unlockHint)
	route("GET", "/api/public/challenges/{slug}/instance", h.instance)
	route("POST", "/api/public/challenges/{slug}/instance", h.startInstance)
	route("DELETE", "/api/public/challenges/{slug}/instance", h.stopInstance)
	route("POST", "/api/public/challenges/{slug}/instance/extend", h.extendInstance)
	route("GET", "/api/public/leaderboard", h.leaderboard)
	route("GET", "/api/public/me", h.me)
	route("GET", "/api/public/profiles/{userId}", h.profile)
	for _, path := range paths {
		allow := strings.Join(allows[path], ", ")
		h.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			httpx.WriteError(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed here; use "+allow)
		})
	}
	h.mux.HandleFunc("/api/public/", func(w http.ResponseWriter, r *http.Request) {
		httpx.WriteError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
	})
	h.mux.HandleFunc("GET /files/{sha}/{name}", h.file)
	h.mux.HandleFunc("GET /files/{sha}/{name}/{member...}", h.fileMember)
}

// publicCORS lets any site call the public API: it authenticates by API
// key in a header (a cookie-authenticated write is held to the same origin
// by h.csrf), and a page's script may read the validator and the wait.
var publicCORS = httpx.CORS{
	Expose:  "ETag, Retry-After",
	Methods: "GET, HEAD, POST, DELETE, OPTIONS",
	Headers: "Authorization, X-API-Key, Content-Type, If-None-Match",
}

// ServeHTTP adds CORS to /api/public and answers preflights.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/api/public/") || r.URL.Path == "/api/public" {
		if r.Method != http.MethodOptions {
			setPublicCORS(w.Header())
		} else if publicCORS.Handle(w, r) {
			return
		}
	}
	h.mux.ServeHTTP(w, r)
}

// The headers publicCORS.Handle sets on an answer that is not a preflight,
// as values shared by every answer (see headerValues).
var (
	corsOrigin = []string{"*"}
	corsExpose = []string{publicCORS.Expose}
)

func setPublicCORS(hd http.Header) {
	hd["Access-Control-Allow-Origin"], hd["Access-Control-Expose-Headers"] = corsOrigin, corsExpose
}

// exactRoute is a GET route without wildcards.
type exactRoute struct {
	pattern string
	fn      http.HandlerFunc
}

// ServeExact serves r and reports true if it is a GET or HEAD of one of the
// API's routes at a fixed path (the challenge list, the leaderboard, ...),
// exactly as ServeHTTP would, mounted at /api/public/ on a ServeMux: CORS,
// and r.Pattern the route's, as its mux would have written it. The
// anonymous reads are the API's busiest requests and their answers are
// bytes that already exist; finding their route in two muxes, one after
// the other, costs them more than anything but the write. Any other
// request (another method, a path the muxes would clean, redirect or
// unescape first: a RawPath) it leaves alone, for ServeHTTP.
func (h *Handler) ServeExact(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead || r.URL.RawPath != "" {
		return false
	}
	rt, ok := h.exact[r.URL.Path]
	if !ok {
		return false
	}
	r.Pattern = rt.pattern
	setPublicCORS(w.Header())
	rt.fn(w, r)
	return true
}

// unhealthyRetry is how long a client is told to wait on an unhealthy
// platform: the store's wait for an unavailable database.
const unhealthyRetry = 5 * time.Second

func (h *Handler) health(w http.ResponseWriter, r *http.Request) {
	if h.svc.Healthy(r.Context()) {
		writeBody(w, r, anyone, http.StatusOK, []byte(`{"ok":true}`), nil)
		return
	}
	httpx.SetRetryAfter(w.Header(), unhealthyRetry)
	writeBody(w, r, anyone, http.StatusServiceUnavailable, []byte(`{"ok":false}`), nil)
}

func (h *Handler) openAPI(w http.ResponseWriter, r *http.Request) {
	writeShared(w, r, openAPIBody, anyone)
}

var openAPIBody = NewBody(openapi.Document)
