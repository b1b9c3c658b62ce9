package server

import (
	"log/slog"
	"net/http"
	"time"
)

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

// Logged logs one line per request with its status and duration, and turns
// a panic into a logged 500 rather than a dropped connection.
func Logged(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
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
			log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", rec.status), slog.Int("bytes", rec.bytes),
				slog.Duration("duration", time.Since(start)), slog.String("remote", r.RemoteAddr))
		}()
		next.ServeHTTP(rec, r)
	})
}
