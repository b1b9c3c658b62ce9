package server

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/clientaddr"
)

// BenchmarkAccessLogLine: what one request's log line costs the request,
// written to a file (as `serve 2>file` or a journal's pipe takes it).
// "unbatched" is the line as it was first written: Logger.LogAttrs, one
// write a line under the handler's lock; "record" the slog record built
// from the middleware's clock onto a BatchWriter, as it was next; "batched"
// is serve's today: the line put together by hand onto a BatchWriter (the
// writes to the file are its goroutine's, counted here too as the file's
// share per line).
func BenchmarkAccessLogLine(b *testing.B) {
	// The client's address resolved, as the outermost middleware leaves it.
	var r *http.Request
	clientaddr.Resolver{}.Middleware(http.HandlerFunc(func(_ http.ResponseWriter, req *http.Request) { r = req })).
		ServeHTTP(nil, httptest.NewRequest(http.MethodGet, "/api/public/challenges", nil))
	rec := &recorder{status: http.StatusOK, bytes: 8449}
	open := func(b *testing.B) *os.File {
		f, err := os.Create(filepath.Join(b.TempDir(), "access.log"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		return f
	}
	b.Run("unbatched", func(b *testing.B) {
		log := slog.New(slog.NewTextHandler(open(b), nil))
		b.ReportAllocs()
		for b.Loop() {
			log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", rec.status), slog.Int("bytes", rec.bytes),
				slog.Duration("duration", 150*time.Microsecond), slog.String("remote", clientaddr.From(r)))
		}
	})
	b.Run("record", func(b *testing.B) {
		out := NewBatchWriter(open(b))
		h := slog.NewTextHandler(out, nil)
		b.ReportAllocs()
		for b.Loop() {
			logRequest(h, r, rec, time.Now(), 150*time.Microsecond)
		}
		out.Close()
	})
	b.Run("batched", func(b *testing.B) {
		out := NewBatchWriter(open(b))
		l := newAccessLog(AccessLog{Out: out}, false)
		b.ReportAllocs()
		for b.Loop() {
			l.log(r, rec, time.Now(), 150*time.Microsecond)
		}
		out.Close()
	})
	b.Run("off", func(b *testing.B) {
		h := slog.NewTextHandler(open(b), &slog.HandlerOptions{Level: slog.LevelWarn})
		b.ReportAllocs()
		for b.Loop() {
			logRequest(h, r, rec, time.Now(), 150*time.Microsecond)
		}
	})
}
