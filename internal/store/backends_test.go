package store_test

// What the database itself must guarantee when several processes (replicas)
// write at once, on the backend storetest chooses: one solve per user and
// challenge, an exact rate limit, solves of a challenge in commit order,
// migrations applied once, unique violations recognised.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/jackc/pgx/v5"
)

const replicas = 3

// raceEvent makes a fresh database with players u00… and challenges c1 and
// c2, and opens it replicas times, as that many processes would.
func raceEvent(t *testing.T, players int) (dsn string, dbs []*store.DB) {
	t.Helper()
	dsn = storetest.DSN(t)
	for range replicas {
		dbs = append(dbs, storetest.OpenDSN(t, dsn))
	}
	ctx := context.Background()
	if err := dbs[0].Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := &store.Bulk{}
	for i := range players {
		b.Users = append(b.Users, ctf.User{ID: fmt.Sprintf("u%02d", i), Username: fmt.Sprintf("user%02d", i), Role: ctf.RolePlayer, CreatedAt: at})
	}
	for _, id := range []string{"c1", "c2"} {
		b.Challenges = append(b.Challenges, ctf.Challenge{ID: id, Slug: id, Title: id, Categories: []string{"misc"}, Difficulty: ctf.Easy,
			Points: 100, Flags: []ctf.Flag{{Kind: "static", Content: "flag{" + id + "}"}}, CreatedAt: at})
	}
	if _, err := dbs[0].BulkLoad(ctx, b); err != nil {
		t.Fatal(err)
	}
	return dsn, dbs
}

// race runs fn(i) for i in [0, n) on n goroutines released at once.
func race(n int, fn func(i int)) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			fn(i)
		}()
	}
	close(start)
	wg.Wait()
}

// TestConcurrentSubmissionsSolveOnce: one player's correct flag sent many
// times at once through several replicas is one solve; the rest conflict.
func TestConcurrentSubmissionsSolveOnce(t *testing.T) {
	_, dbs := raceEvent(t, 1)
	ctx := context.Background()
	const n = 24
	errs := make([]error, n)
	now := time.Now()
	race(n, func(i int) {
		_, errs[i] = dbs[i%replicas].Play().RecordSubmission(ctx, store.Submission{UserID: "u00", ChallengeID: "c1", Flag: "flag{c1}",
			Correct: true, At: now}, store.RateLimit{Max: 10, Window: time.Minute})
	})
	ok, conflicts := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case ctf.ErrorCode(err) == ctf.Conflict:
			conflicts++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 1 || conflicts != n-1 {
		t.Errorf("%d solves and %d conflicts, want 1 and %d", ok, conflicts, n-1)
	}
	snap, err := dbs[0].Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Solves) != 1 {
		t.Errorf("database has %d solves, want 1", len(snap.Solves))
	}
}

// TestConcurrentSubmissionsRateLimit: wrong flags sent at once through
// several replicas are counted exactly: Max recorded, the rest refused.
func TestConcurrentSubmissionsRateLimit(t *testing.T) {
	const players, perPlayer, limit = 3, 16, 5
	_, dbs := raceEvent(t, players)
	ctx := context.Background()
	errs := make([]error, players*perPlayer)
	now := time.Now()
	race(len(errs), func(i int) {
		_, errs[i] = dbs[i%replicas].Play().RecordSubmission(ctx, store.Submission{UserID: fmt.Sprintf("u%02d", i%players), ChallengeID: "c2",
			Flag: fmt.Sprintf("nope-%d", i), At: now}, store.RateLimit{Max: limit, Window: time.Minute})
	})
	recorded, limited := map[int]int{}, map[int]int{}
	for i, err := range errs {
		switch {
		case err == nil:
			recorded[i%players]++
		case ctf.ErrorCode(err) == ctf.RateLimited:
			limited[i%players]++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	for p := range players {
		if recorded[p] != limit || limited[p] != perPlayer-limit {
			t.Errorf("player %d: %d recorded, %d rate limited; want %d and %d", p, recorded[p], limited[p], limit, perPlayer-limit)
		}
	}
	snap, err := dbs[0].Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.WrongAttempts["c2"]; got != players*limit {
		t.Errorf("database has %d wrong attempts, want %d", got, players*limit)
	}
}

// TestConcurrentSolvesInCommitOrder: players racing for a challenge through
// several replicas, with clocks that disagree (times out of order), all
// solve it; ordered by (time, seq), as first blood is decided, the solves
// are in the order they were recorded (seq), and each solve's returned
// time is the stored one.
func TestConcurrentSolvesInCommitOrder(t *testing.T) {
	const players = 30
	_, dbs := raceEvent(t, players)
	ctx := context.Background()
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	recs := make([]store.Recorded, players)
	errs := make([]error, players)
	race(players, func(i int) {
		// Later goroutines tend to carry earlier times.
		at := base.Add(time.Duration((players-i)*7%players) * time.Millisecond)
		recs[i], errs[i] = dbs[i%replicas].Play().RecordSubmission(ctx, store.Submission{UserID: fmt.Sprintf("u%02d", i), ChallengeID: "c1",
			Flag: "flag{c1}", Correct: true, At: at}, store.RateLimit{})
	})
	returned := map[int64]time.Time{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("player %d: %v", i, err)
		}
		returned[recs[i].Seq] = recs[i].Solve.At
	}
	snap, err := dbs[1].Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Solves) != players {
		t.Fatalf("%d solves, want %d", len(snap.Solves), players)
	}
	for i, s := range snap.Solves {
		if !returned[s.Seq].Equal(s.At) {
			t.Errorf("solve seq %d: stored at %s, RecordSubmission returned %s", s.Seq, s.At, returned[s.Seq])
		}
		if i > 0 && s.Seq < snap.Solves[i-1].Seq {
			t.Errorf("in (time, seq) order, seq %d (at %s) comes after seq %d (at %s): first blood would not be the first recorded",
				s.Seq, s.At.Format(time.RFC3339Nano), snap.Solves[i-1].Seq, snap.Solves[i-1].At.Format(time.RFC3339Nano))
		}
	}
}

// TestMigrateConcurrently: replicas starting at once on a fresh database
// all succeed, and the migrations ran once.
func TestMigrateConcurrently(t *testing.T) {
	dsn := storetest.DSN(t)
	const n = 6
	dbs := make([]*store.DB, n)
	for i := range dbs {
		dbs[i] = storetest.OpenDSN(t, dsn)
	}
	ctx := context.Background()
	errs := make([]error, n)
	race(n, func(i int) { errs[i] = dbs[i].Migrate(ctx) })
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
	if err := dbs[0].Migrate(ctx); err != nil {
		t.Errorf("migrating again: %v", err)
	}
	rows, err := dbs[0].QueryString(ctx, "SELECT CAST(count(*) AS TEXT) || ' ' || CAST(count(DISTINCT version) AS TEXT) FROM schema_migrations")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("migrations", storetest.Backend(), "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("migrations: %v %v", files, err)
	}
	if want := fmt.Sprintf("%d %d", len(files), len(files)); rows != want {
		t.Errorf("schema_migrations rows (all, distinct): %s, want %s (each migration once)", rows, want)
	}
	if rev, err := dbs[n-1].Revision(ctx); err != nil || rev != 0 {
		t.Errorf("revision %d, %v; want 0 (the meta row inserted once)", rev, err)
	}
}

func TestIsUniqueViolation(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	now := time.Now()
	if _, err := db.Accounts().CreateUser(ctx, ctf.User{ID: "u1", Username: "alice", Email: "a@example.com", Role: ctf.RolePlayer, CreatedAt: now}, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		query  string
		args   []any
		unique bool
	}{
		{"duplicate primary key", "INSERT INTO meta (key, value) VALUES (?, ?)", []any{"revision", "7"}, true},
		{"duplicate unique column", "INSERT INTO users (id, username, created_at) VALUES (?, ?, ?)", []any{"u2", "alice", 0}, true},
		{"check constraint", "INSERT INTO users (id, username, role, created_at) VALUES (?, ?, ?, ?)", []any{"u3", "bob", "king", 0}, false},
		{"foreign key", "INSERT INTO sessions (id_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)", []any{"h", "ghost", 0, 0}, false},
		{"not null", "INSERT INTO users (id, username) VALUES (?, ?)", []any{"u4", "carol"}, false},
	} {
		err := db.ExecSQL(ctx, c.query, c.args...)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if got := store.IsUniqueViolation(err); got != c.unique {
			t.Errorf("%s: IsUniqueViolation(%v) = %v, want %v", c.name, err, got, c.unique)
		}
	}
	if store.IsUniqueViolation(nil) || store.IsUniqueViolation(errors.New("unique")) {
		t.Error("IsUniqueViolation is true of nil or of an unrelated error")
	}
	// And through the API: a taken username is a Conflict.
	_, err := db.Accounts().CreateUser(ctx, ctf.User{ID: "u5", Username: "alice", Role: ctf.RolePlayer, CreatedAt: now}, nil)
	if ctf.ErrorCode(err) != ctf.Conflict {
		t.Errorf("taken username: %v, want a Conflict", err)
	}
}

// TestOpenSettings: what Open promises of each backend's connections.
func TestOpenSettings(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	if db.Dialect() != storetest.Backend() {
		t.Errorf("Dialect() = %q on backend %q", db.Dialect(), storetest.Backend())
	}
	want := map[string]string{"PRAGMA journal_mode": "wal", "PRAGMA foreign_keys": "1"}
	if storetest.Postgres() {
		want = map[string]string{"SHOW statement_timeout": "5s", "SHOW default_transaction_isolation": "read committed"}
	}
	for q, w := range want {
		if got, err := db.QueryString(ctx, q); err != nil || got != w {
			t.Errorf("%s: %q, %v; want %q", q, got, err, w)
		}
	}
}

// TestSubmissionWakesReplicas: another process learns of a submission. On
// PostgreSQL the submission's transaction notifies the channel replicas
// listen on; on SQLite replicas poll, and see it at once.
func TestSubmissionWakesReplicas(t *testing.T) {
	dsn, dbs := raceEvent(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var listener *pgx.Conn
	if storetest.Postgres() {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Del("pool_max_conns")
		u.RawQuery = q.Encode()
		if listener, err = pgx.Connect(ctx, u.String()); err != nil {
			t.Fatal(err)
		}
		defer listener.Close(context.Background())
		if _, err := listener.Exec(ctx, "LISTEN flagship_changes"); err != nil {
			t.Fatal(err)
		}
	}
	for _, correct := range []bool{false, true} {
		rec, err := dbs[0].Play().RecordSubmission(ctx, store.Submission{UserID: "u00", ChallengeID: "c1", Flag: "flag{c1}", Correct: correct,
			At: time.Now()}, store.RateLimit{})
		if err != nil {
			t.Fatal(err)
		}
		if listener != nil {
			n, err := listener.WaitForNotification(ctx)
			if err != nil {
				t.Fatalf("correct=%v: no notification: %v", correct, err)
			}
			if n.Channel != "flagship_changes" {
				t.Errorf("notified on %q", n.Channel)
			}
		}
		h, err := dbs[1].Heads(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if seq := map[bool]int64{false: h.Attempt, true: h.Solve}[correct]; seq != rec.Seq {
			t.Errorf("correct=%v: another replica's newest sequence number is %d, want %d", correct, seq, rec.Seq)
		}
	}
}

// TestSubmissionsCommitDurably: an answered submission, wrong or right,
// survives a crash and a power cut: on SQLite the writer
// syncs the WAL at each commit (synchronous=FULL, 2; NORMAL may lose the
// last commits in WAL mode), on PostgreSQL the commit waits for the WAL
// flush (synchronous_commit on; wrong attempts used to turn it off).
func TestSubmissionsCommitDurably(t *testing.T) {
	_, dbs := raceEvent(t, 1)
	db := dbs[0]
	ctx := context.Background()
	query, want := "PRAGMA synchronous", "2"
	if storetest.Postgres() {
		query, want = "SHOW synchronous_commit", "on"
	}
	wrong, right, err := db.SubmissionSettings(ctx, query, store.Submission{UserID: "u00", ChallengeID: "c1",
		Flag: "flag{c1}", At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if wrong != want || right != want {
		t.Errorf("%s: wrong flag %q, right flag %q; want %q for both", query, wrong, right, want)
	}
}

// TestCloseTwice: closing a database twice is harmless (the probes close it
// under the server, and the test's cleanup closes it again).
func TestCloseTwice(t *testing.T) {
	db := storetest.OpenDSN(t, storetest.DSN(t))
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db.Close()
}
