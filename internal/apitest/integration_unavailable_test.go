package apitest

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/server"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// itServe serves s's event with a new service over db (s's database, or
// another handle on it) and a file cache in filesDir, as another process
// would.
func itServe(t *testing.T, s *Server, db *store.DB, filesDir string) *Server {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	svc := platform.New(db, platform.Options{PublicURL: s.URL, RateLimit: store.RateLimit{Max: 10, Window: time.Minute},
		Logger: log, FilesDir: filesDir})
	if err := svc.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	hs, front := Serve(t, svc, server.Options{Log: log})
	r := *s
	r.URL, r.Svc, r.HTTP, r.DB, r.FilesDir, r.front = hs.URL, svc, hs, db, filesDir, front
	return &r
}

// itServeDSN serves s's event from a database handle opened with dsn.
func itServeDSN(t *testing.T, s *Server, dsn string) *Server {
	t.Helper()
	return itServe(t, s, storetest.OpenDSN(t, dsn), t.TempDir())
}

// TestIntegrationUnavailableDatabase: a database that takes no more writes
// (full on SQLite, read-only on PostgreSQL) makes a submission 503 with
// Retry-After and an {error}, never 500, and health 503 {ok:false}; the
// reads served from memory still answer.
func TestIntegrationUnavailableDatabase(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	var broken *Server
	if storetest.Postgres() {
		broken = itServeDSN(t, s, s.DSN+"&default_transaction_read_only=on")
	} else {
		var pages int
		if err := storetest.SQL(t, s.DSN).QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
			t.Fatal(err)
		}
		broken = itServeDSN(t, s, s.DSN+"?_pragma=max_page_count("+strconv.Itoa(pages)+")")
	}
	// The key is made where writes work; the broken handle reads it.
	key := Bearer(s.Key("erin"))
	if err := broken.Svc.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	flag := strings.Repeat("x", 1000) // each wrong attempt stores its flag: pages fill fast
	var r Response
	for _, slug := range []string{"warmup", "baby-rsa", "web-login", "lost-packets"} {
		for i := 0; i < 10; i++ {
			r = itSubmit(broken, slug, flag, key)
			if r.Status != 400 {
				break
			}
		}
		if r.Status != 400 {
			break
		}
	}
	itError(t, "submit to a database that takes no writes", r, 503)
	if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	h := broken.Do("GET", "/api/public/health", nil)
	if h.Status != 503 || string(h.Body) != `{"ok":false}` || h.Header.Get("Retry-After") == "" {
		t.Errorf("health: %d %s (Retry-After %q), want 503 {\"ok\":false} with Retry-After", h.Status, h.Body, h.Header.Get("Retry-After"))
	}
	for _, p := range []string{"/api/public/leaderboard", "/api/public/challenges", "/api/public/me"} {
		itStatus(t, p, broken.Do("GET", p, nil, key), 200)
	}
	// The healthy handle on the same database is healthy.
	itStatus(t, "health of a healthy handle", s.Do("GET", "/api/public/health", nil), 200)
}
