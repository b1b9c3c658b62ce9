package server

import (
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
)

// RequestObserver is told of every answered request (the metrics).
type RequestObserver interface {
	// ObserveRequest is called once per request, after the answer, with a
	// route from a bounded set (see routeLabel).
	ObserveRequest(route, method string, code int, d time.Duration)
}

type recorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(p)
	r.bytes += n
	return n, err
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// recorders are reused: a handler holds its ResponseWriter only until it
// returns, and a small allocation a request costs a server with a large
// heap more collection than it does a small one.
var recorders = sync.Pool{New: func() any { return new(recorder) }}

// logged logs one line per request to access (when not nil) with its
// status and duration, turns a panic into a logged 500 rather than a
// dropped connection, and tells obs (when not nil) of each request.
func logged(log *slog.Logger, access *accessLog, obs RequestObserver, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := recorders.Get().(*recorder)
		rec.ResponseWriter = w
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", p)
				if rec.status == 0 {
					rec.Header().Set("Content-Type", "application/json; charset=utf-8")
					rec.Header().Set("Cache-Control", "no-store")
					rec.WriteHeader(http.StatusInternalServerError)
					rec.Write([]byte(`{"error":"internal server error"}`))
				}
			}
			end := time.Now()
			took := end.Sub(start)
			if access != nil {
				access.log(r, rec, end, took)
			}
			if obs != nil {
				code := rec.status
				if code == 0 {
					code = http.StatusOK // nothing written: net/http answers 200
				}
				obs.ObserveRequest(routeLabel(r.Pattern), r.Method, code, took)
			}
			*rec = recorder{}
			recorders.Put(rec)
		}()
		next.ServeHTTP(rec, r)
	})
}

// routeLabel names a request's route for metrics by the pattern that
// matched it, never by its path (each distinct label is a series kept
// forever, and paths are the client's to choose). A ServeMux writes the
// pattern it matched into the *Request it serves, and the front doors pass
// that same request to their own mux, so after serving r.Pattern is the
// innermost match ("GET /api/public/challenges/{slug}"); were a front door
// to serve a copy, it would stay the outer match ("/api/public/"), still
// one of a fixed set. The method part is dropped: it has its own label.
func routeLabel(pattern string) string {
	if pattern == "" {
		return "unmatched" // no pattern matched: a 404, or a redirect to the canonical path
	}
	if _, path, ok := strings.Cut(pattern, " "); ok {
		return strings.TrimLeft(path, " \t")
	}
	return pattern
}
