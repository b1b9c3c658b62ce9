package platform

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/testtime"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// ucEvent is the event the use-case tests start from: two players, an
// admin, two challenges (b requires a), one solve of a by pam.
const ucEvent = `
users:
  - {username: pam, email: pam@example.com, password: pam-password}
  - {username: pat, email: pat@example.com, password: pat-password}
  - {username: root, email: root@example.com, password: root-password, role: admin}
challenges:
  - {slug: a, title: A, categories: [web], difficulty: Easy, points: 100, flags: ['flag{a}'], createdAt: 2026-01-01T00:00:00Z}
  - {slug: b, title: B, categories: [web], difficulty: Hard, points: 300, flags: ['flag{b}'], requires: [a], createdAt: 2026-01-02T00:00:00Z}
solves:
  - {user: pam, challenge: a, at: 2026-01-05T10:00:00Z}
attempts:
  - {user: pat, challenge: a, at: 2026-01-05T09:00:00Z, flag: 'flag{nope}'}
  - {user: pat, challenge: a, at: 2026-01-05T09:01:00Z, flag: 'flag{nope2}'}
  - {user: root, challenge: a, at: 2026-01-05T09:02:00Z, flag: 'flag{test}'}
`

// clock is a settable time for the use cases.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// ucFixture is a service over a fresh database holding ucEvent.
type ucFixture struct {
	t     *testing.T
	db    *store.DB
	dsn   string
	svc   *Service
	clock *clock
}

func newFixture(t *testing.T, opts ...Options) *ucFixture {
	t.Helper()
	ctx := context.Background()
	dsn := storetest.DSN(t)
	db := storetest.OpenDSN(t, dsn)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.Decode([]byte(ucEvent), filepath.Join(t.TempDir(), "event.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.Load(ctx, db, ds); err != nil {
		t.Fatal(err)
	}
	f := &ucFixture{t: t, db: db, dsn: dsn, clock: &clock{t: time.Now().UTC().Truncate(time.Second)}}
	f.svc = f.replica(opts...)
	return f
}

// replica is another service over the same database, as another process
// would run.
func (f *ucFixture) replica(opts ...Options) *Service {
	f.t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	o.Now = f.clock.Now
	o.FilesDir = f.t.TempDir()
	o.RateLimit = store.RateLimit{Max: 10, Window: time.Minute}
	db := f.db
	if f.svc != nil {
		db = storetest.OpenDSN(f.t, f.dsn)
	}
	svc := New(db, o)
	if err := svc.Load(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	return svc
}

// as returns the viewer of username, as a web session would authenticate
// them.
func (f *ucFixture) as(username string) ctf.Viewer {
	f.t.Helper()
	st := f.svc.live.State()
	id, _ := st.Accounts().UserIDByName(username)
	u, ok := st.Accounts().User(id)
	if !ok {
		f.t.Fatalf("no user %s", username)
	}
	return ctf.Viewer{User: u}
}

// wantCode fails unless err has the code (nil: no error).
func wantCode(t *testing.T, label string, err error, code ctf.Code) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		return
	}
	if err == nil || ctf.ErrorCode(err) != code {
		t.Fatalf("%s: got %v (%s), want %s", label, err, ctf.ErrorCode(err), code)
	}
}

// boardJSON is the leaderboard's rows as JSON, for comparisons (the API's
// bytes are built in package api).
func boardJSON(s *Service) string {
	_, rows := s.Scoreboard.Leaderboard(nil)
	entries := make([]*live.LeaderboardEntry, len(rows))
	for i, r := range rows {
		entries[i] = r.Entry
	}
	b, _ := json.Marshal(map[string]any{"leaderboard": entries})
	return string(b)
}

// listJSON is the challenge list's rows as JSON.
func listJSON(s *Service) string {
	_, rows := s.Play.ChallengeList(nil)
	sums := make([]*live.ChallengeSummary, len(rows))
	for i, r := range rows {
		sums[i] = r.Summary
	}
	b, _ := json.Marshal(map[string]any{"challenges": sums})
	return string(b)
}

// watchedReplica starts another replica that follows the database as
// flagship serve does (polling every quarter second, and on PostgreSQL
// woken by notifications) for the rest of the test, and returns it with
// seen, which waits until ok holds, failing after a second (scaled by
// testtime.Factor).
func (f *ucFixture) watchedReplica() (*Service, func(what string, ok func() bool)) {
	t := f.t
	b := f.replica()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go b.Watch(ctx, 250*time.Millisecond)
	go store.Listen(ctx, f.dsn, b.Wake, slog.New(slog.DiscardHandler))
	return b, func(what string, ok func() bool) {
		t.Helper()
		start, limit := time.Now(), testtime.Scale(time.Second)
		for !ok() {
			if time.Since(start) > limit {
				t.Fatalf("%s: not seen by the other replica within %v", what, limit)
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Logf("%s: seen after %v", what, time.Since(start).Round(time.Millisecond))
	}
}
