package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// TestSignupsOfOneAddressLeaveOthersAlone: a sign-up touches the rows of
// its own address only, so sign-ups from different addresses never wait
// for one another (on PostgreSQL a sign-up that deleted every old row
// locked the rows another address's sign-up was deleting); the old rows of
// other addresses go in PruneSignups, the periodic sweep.
func TestSignupsOfOneAddressLeaveOthersAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := storetest.DSN(t)
	db := storetest.OpenDSN(t, dsn)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	raw := storetest.SQL(t, dsn)
	count := func(address string) int {
		t.Helper()
		var n int
		if err := raw.QueryRowContext(ctx, "SELECT count(*) FROM signups WHERE address = '"+address+"'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 2 {
		if id, _, err := db.Accounts().ReserveSignup(ctx, "10.0.0.1", 10, t0.Add(-time.Hour), t0.Add(time.Duration(i)*time.Second)); err != nil || id == 0 {
			t.Fatalf("an old sign-up from 10.0.0.1: %d %v", id, err)
		}
	}
	later := t0.Add(2 * time.Hour)

	// 10.0.0.1 signs up again meanwhile and holds its old rows (locked,
	// as its own reservation deleting them would): a sign-up from another
	// address does not wait for it. (SQLite has one writer: there every
	// sign-up waits for any other write, whatever it deletes.)
	var holder *sql.Tx
	var holderPID int
	if storetest.Postgres() {
		var err error
		if holder, err = raw.BeginTx(ctx, nil); err != nil {
			t.Fatal(err)
		}
		defer holder.Rollback()
		if _, err := holder.ExecContext(ctx, "DELETE FROM signups WHERE address = '10.0.0.1'"); err != nil {
			t.Fatal(err)
		}
		if err := holder.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&holderPID); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		id, _, err := db.Accounts().ReserveSignup(ctx, "10.0.0.2", 10, later.Add(-time.Hour), later)
		if err == nil && id == 0 {
			err = errors.New("refused")
		}
		done <- err
	}()
	var reserveErr error
	for finished := false; !finished; {
		select {
		case reserveErr = <-done:
			finished = true
		case <-time.After(10 * time.Millisecond):
			if holder == nil {
				continue
			}
			// Not done yet: does it wait for the holder?
			var n int
			if err := raw.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM pg_stat_activity WHERE %d = ANY(pg_blocking_pids(pid))", holderPID)).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				t.Error("a sign-up from 10.0.0.2 waited for the rows of 10.0.0.1")
				holder.Rollback()
				reserveErr, finished = <-done, true
			}
		}
	}
	if reserveErr != nil {
		t.Fatalf("a sign-up from 10.0.0.2: %v", reserveErr)
	}
	if holder != nil {
		holder.Rollback()
	}

	if n := count("10.0.0.1"); n != 2 {
		t.Errorf("a sign-up from 10.0.0.2 left %d rows of 10.0.0.1, want its 2 (another address's rows are the sweep's)", n)
	}
	if err := db.Accounts().PruneSignups(ctx, later.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if a, b := count("10.0.0.1"), count("10.0.0.2"); a != 0 || b != 1 {
		t.Errorf("after the sweep: %d rows of 10.0.0.1 (want 0, they are old), %d of 10.0.0.2 (want 1)", a, b)
	}
	// Its own old rows a sign-up deletes on the way.
	if id, _, err := db.Accounts().ReserveSignup(ctx, "10.0.0.2", 10, later.Add(2*time.Hour), later.Add(3*time.Hour)); err != nil || id == 0 {
		t.Fatalf("a sign-up from 10.0.0.2 an hour on: %d %v", id, err)
	}
	if n := count("10.0.0.2"); n != 1 {
		t.Errorf("%d rows of 10.0.0.2, want the new one only", n)
	}
}
