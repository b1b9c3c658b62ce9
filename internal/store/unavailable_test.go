package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// TestUnavailableDatabaseErrors: errors that mean the database cannot serve
// now are Unavailable domain errors (503 with Retry-After at the API), with
// the driver's error kept for the logs; a mistake in a query is not.
func TestUnavailableDatabaseErrors(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.DSN(t)
	db := storetest.OpenDSN(t, dsn)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	unavailable := func(label string, err error) {
		t.Helper()
		var e *ctf.Error
		if !errors.As(err, &e) || e.Code != ctf.Unavailable || e.RetryAfter <= 0 || e.Cause == nil {
			t.Fatalf("%s: %v (%T), want Unavailable with a wait and a cause", label, err, err)
		}
		if strings.Contains(ctf.ErrorMessage(err), e.Cause.Error()) {
			t.Errorf("%s: the client's message shows the driver's error", label)
		}
	}
	if err := db.ExecSQL(ctx, "SELECT nonsense FROM nowhere"); err == nil || ctf.ErrorCode(err) == ctf.Unavailable {
		t.Fatalf("a bad query: %v, want an error that is not Unavailable", err)
	}

	if !storetest.Postgres() {
		// Full: no page may be added past the current count.
		var pages string
		raw := storetest.SQL(t, dsn)
		if err := raw.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
			t.Fatal(err)
		}
		full := storetest.OpenDSN(t, dsn+"?_pragma=max_page_count("+pages+")")
		var err error
		for i := 0; i < 100 && err == nil; i++ {
			err = full.ExecSQL(ctx, "INSERT INTO meta (key, value) VALUES (?, ?)", "k"+strings.Repeat("x", i), strings.Repeat("v", 4000))
		}
		unavailable("database full", err)
		if !strings.Contains(err.Error(), "full") {
			t.Errorf("the logged error %q does not say full", err)
		}
		if err := full.Probe(ctx, false); err != nil {
			t.Errorf("reads of a full database: %v", err)
		}

		// Locked past the busy timeout by another process's write.
		tx, err := raw.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.Exec("INSERT INTO meta (key, value) VALUES ('lock', 'held')"); err != nil {
			t.Fatal(err)
		}
		busy := storetest.OpenDSN(t, dsn+"?_pragma=busy_timeout(100)")
		start := time.Now()
		unavailable("locked", busy.Probe(ctx, true))
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("waited %v, the busy timeout is 100 ms", d)
		}
		return
	}
	// PostgreSQL that takes no writes (a standby, or writes turned off).
	ro := storetest.OpenDSN(t, dsn+"&default_transaction_read_only=on")
	if err := ro.Probe(ctx, false); err != nil {
		t.Fatalf("reads of a read-only database: %v", err)
	}
	unavailable("read-only", ro.Probe(ctx, true))
	// Unreachable.
	if _, err := store.Open(ctx, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"); err == nil {
		t.Fatal("opened a database on a closed port")
	} else if ctf.ErrorCode(err) != ctf.Unavailable {
		t.Errorf("closed port: %v, want Unavailable", err)
	}
}
