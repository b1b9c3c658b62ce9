// Package server owns Flagship's HTTP server: the routes of every front door
// (the public API and file downloads, the web app, /mcp, the live stream,
// the CTFtime feed, the probes), the middleware around them and the
// timeouts. The front doors themselves live in their own packages and hold
// no server wiring.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/flagshipctf/flagship/internal/api"
	"github.com/flagshipctf/flagship/internal/clientaddr"
	"github.com/flagshipctf/flagship/internal/ctftime"
	"github.com/flagshipctf/flagship/internal/events"
	"github.com/flagshipctf/flagship/internal/mcp"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/web"
)

// Options configure a Server.
type Options struct {
	Log *slog.Logger
	// SecureCookies marks session cookies Secure: the platform is served
	// over TLS (its public URL is https).
	SecureCookies bool
	// AccessLog, when its Out is set, takes the line per request (serve
	// writes it in batches); else Log does.
	AccessLog AccessLog
	// AccessLogOff turns the line per request off (serve --access-log=false).
	AccessLogOff bool
	// Requests, when set, is told of every answered request (metrics).
	Requests RequestObserver
	// CTFtimeOff turns the CTFtime feed off: /api/ctftime answers 404.
	CTFtimeOff bool
	// Clients finds each request's client address (the reverse proxies it
	// trusts); the zero value takes the peer's address.
	Clients clientaddr.Resolver
	// MaxStreams caps the live streams (/api/events) open at once
	// (serve --max-streams); 0: events.DefaultMaxStreams.
	MaxStreams int
}

// Server serves every front door of one platform.Service.
type Server struct {
	svc *platform.Service
	log *slog.Logger
	// access takes the line per request; nil: none.
	access *accessLog
	reqs   RequestObserver
	// clients resolves the client address before any other middleware,
	// so the log and every front door see the same one.
	clients clientaddr.Resolver
	mux     *http.ServeMux
	http    *http.Server
	api     *api.Handler
}

// New returns the server of svc with every route mounted.
func New(svc *platform.Service, opts Options) *Server {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{svc: svc, log: log, reqs: opts.Requests, clients: opts.Clients, mux: http.NewServeMux()}
	switch {
	case opts.AccessLogOff:
	case opts.AccessLog.Out != nil:
		s.access = newAccessLog(opts.AccessLog, opts.Clients.Trusts())
	default:
		s.access = &accessLog{h: log.Handler()}
	}
	s.routes(opts)
	s.http = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		// Responses are small and built in memory; a file download sets
		// its own deadline from the file's size.
		WriteTimeout:   60 * time.Second,
		IdleTimeout:    120 * time.Second,
		MaxHeaderBytes: 64 << 10,
	}
	return s
}

// routes is every front door on one screen.
func (s *Server) routes(opts Options) {
	apiHandler := api.New(s.svc, s.log)
	apiHandler.SecureCookies = opts.SecureCookies
	s.api = apiHandler
	s.mux.Handle("/api/public/", apiHandler)
	s.mux.Handle("/api/public", apiHandler)
	s.mux.Handle("/files/", apiHandler)
	s.mux.Handle("/mcp", mcp.New(s.svc, s.log))
	s.mux.HandleFunc("/livez", probe(s.livez))
	s.mux.HandleFunc("/readyz", probe(s.readyz))
	if opts.CTFtimeOff {
		s.mux.Handle("/api/ctftime", ctftime.Off())
	} else {
		s.mux.Handle("/api/ctftime", ctftime.New(s.svc, s.log))
	}
	stream := events.New(s.svc, s.log)
	stream.MaxStreams = opts.MaxStreams
	s.mux.Handle("/api/events", stream)
	s.mux.Handle("/", web.New(s.svc, web.Options{Log: s.log, SecureCookies: opts.SecureCookies}))
}

// API is the public API's handler, for tests and benchmarks that wait for
// its leaderboard or tune how often it is built.
func (s *Server) API() *api.Handler { return s.api }

// Handler is the whole HTTP surface with its middleware: what Serve serves,
// and what tests and benchmarks mount on their own listeners.
func (s *Server) Handler() http.Handler {
	// Outermost, so that the log and the mux serve one request value (the
	// log reads the pattern the mux wrote into it).
	return s.clients.Middleware(logged(s.log, s.access, s.reqs, http.HandlerFunc(s.route)))
}

// route serves r by its route: the API's reads at a fixed path straight
// from the API (mounted at /api/public/, it is where the mux would send
// them), everything else through the mux.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if !s.api.ServeExact(w, r) {
		s.mux.ServeHTTP(w, r)
	}
}

// Serve serves on ln until ctx ends, then stops accepting connections and
// lets in-flight requests finish (at most shutdownGrace).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	// The read, write and idle timeouts are kept by a sweep (deadline.go).
	sw := newSweeper(sweepEvery)
	defer sw.stop()
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(sweptListener{ln, sw}) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down: finishing in-flight requests")
	shutCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := s.http.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// shutdownGrace bounds how long a stopping server waits for requests.
const shutdownGrace = 15 * time.Second
