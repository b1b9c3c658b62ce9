package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/demo"
	"github.com/flagshipctf/flagship/internal/metrics"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/server"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// BenchmarkAnonymousRead: the demo event's anonymous challenge list and
// leaderboard through the whole handler chain `serve` runs (client address,
// access log at info into a BatchWriter on a file, metrics, both routers,
// CORS, the API's handler), against "ceiling": a handler that answers the
// same bytes with the same headers from memory, as cmd/baseline does. Both
// are given a fresh header map per request, as net/http gives a handler; what net/http itself costs around them (parsing, the connection
// deadlines, the write) is not here. The difference between the two is the
// work flagship adds to a request; on a busy machine it is a steadier
// figure than wrk's ratio.
func BenchmarkAnonymousRead(b *testing.B) {
	h := demoServe(b)
	for _, path := range []string{"/api/public/challenges", "/api/public/leaderboard"} {
		// What the chain answers is what the ceiling answers.
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		body := rec.Body.Bytes()
		var header [][2]string
		for k, v := range rec.Header() {
			header = append(header, [2]string{k, v[0]})
		}
		// cmd/baseline's handler.
		ceiling := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			hd := w.Header()
			for _, kv := range header {
				hd.Set(kv[0], kv[1])
			}
			w.Write(body)
		})
		name := path[len("/api/public/"):]
		b.Run(name+"/ceiling", func(b *testing.B) { benchRead(b, ceiling, path, len(body)) })
		b.Run(name+"/serve", func(b *testing.B) { benchRead(b, h, path, len(body)) })
	}
}

// benchRead serves GET path on h, one request per op, as a keep-alive
// connection from 127.0.0.1 does.
func benchRead(b *testing.B, h http.Handler, path string, size int) {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.RemoteAddr = "127.0.0.1:40000"
	w := &sink{}
	b.ReportAllocs()
	for b.Loop() {
		w.header, w.n = make(http.Header), 0
		h.ServeHTTP(w, r)
	}
	if w.n != size {
		b.Fatalf("GET %s wrote %d bytes, want %d", path, w.n, size)
	}
}

// sink is a ResponseWriter that keeps nothing but the count of bytes.
type sink struct {
	header http.Header
	n      int
}

func (s *sink) Header() http.Header { return s.header }
func (s *sink) WriteHeader(int)     {}
func (s *sink) Write(p []byte) (int, error) {
	s.n += len(p)
	return len(p), nil
}

// demoServe is `flagship serve --demo --metrics-addr …` as a handler, its
// log at info to a file, the request lines in batches.
func demoServe(b *testing.B) http.Handler {
	ctx := context.Background()
	db := storetest.Open(b)
	f, err := os.Create(filepath.Join(b.TempDir(), "serve.log"))
	if err != nil {
		b.Fatal(err)
	}
	out := server.NewBatchWriter(f)
	b.Cleanup(func() { out.Close(); f.Close() })
	log := slog.New(slog.NewTextHandler(out.Now(), nil))
	m := metrics.New(db)
	svc := platform.New(db, platform.Options{PublicURL: "http://127.0.0.1:8080", Logger: log, Observer: m})
	ds, err := dataset.Decode(demo.Dataset, "demo.yaml")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := transfer.Load(ctx, db, ds); err != nil {
		b.Fatal(err)
	}
	if err := svc.Load(ctx); err != nil {
		b.Fatal(err)
	}
	srv := server.New(svc, server.Options{Log: log, Requests: m, AccessLog: server.AccessLog{Out: out}})
	if err := srv.API().WaitLeaderboard(ctx); err != nil {
		b.Fatal(err)
	}
	return srv.Handler()
}
