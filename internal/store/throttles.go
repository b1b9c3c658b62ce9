package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// The throttles of failed logins and of sign-ups per client address.

// LoginFailures says how many failed logins an account and an address have
// had since a time, and when the latest of each was.
type LoginFailures struct {
	Account, Address         int
	AccountLast, AddressLast time.Time
}

// Throttle bounds the tries at a secret (a password, a second factor):
// at most MaxAccount failures of Account and MaxAddress of Address since
// Since. An empty Account or Address is not counted.
type Throttle struct {
	Account, Address       string
	MaxAccount, MaxAddress int
	Since                  time.Time
}

// ReserveLoginAttempt records a try as a failure at at before its secret
// is checked, unless the account or the address is at its limit already:
// then it records nothing and returns 0 and the failures that refused it.
// The count and the insert are one transaction, serialised per account
// and per address (PostgreSQL: advisory locks, so across replicas;
// SQLite: the single writer), so of many parallel tries only the limit's
// worth pass. A try that succeeds, or is never checked, is taken back with
// ForgiveLoginAttempt or ClearLoginFailures.
func (a Accounts) ReserveLoginAttempt(ctx context.Context, th Throttle, at time.Time) (int64, LoginFailures, error) {
	var id int64
	var f LoginFailures
	err := a.db.writeTx(ctx, func(tx *sqlTx) error {
		var keys []string
		if th.Account != "" {
			keys = append(keys, "login account "+th.Account)
		}
		if th.Address != "" {
			keys = append(keys, "login address "+th.Address)
		}
		if err := lockNames(ctx, tx, keys); err != nil {
			return err
		}
		var accLast, addrLast sql.NullInt64
		since := ms(th.Since)
		err := tx.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM login_failures WHERE account = ? AND at > ?),
			(SELECT max(at) FROM login_failures WHERE account = ? AND at > ?),
			(SELECT count(*) FROM login_failures WHERE address = ? AND at > ?),
			(SELECT max(at) FROM login_failures WHERE address = ? AND at > ?)`,
			th.Account, since, th.Account, since, th.Address, since, th.Address, since).Scan(&f.Account, &accLast, &f.Address, &addrLast)
		if err != nil {
			return err
		}
		if accLast.Valid {
			f.AccountLast = fromMs(accLast.Int64)
		}
		if addrLast.Valid {
			f.AddressLast = fromMs(addrLast.Int64)
		}
		if (th.Account != "" && f.Account >= th.MaxAccount) || (th.Address != "" && f.Address >= th.MaxAddress) {
			return nil
		}
		return tx.QueryRowContext(ctx, "INSERT INTO login_failures (account, address, at) VALUES (?, ?, ?) RETURNING seq",
			th.Account, th.Address, ms(at)).Scan(&id)
	})
	if err != nil {
		return 0, f, fmt.Errorf("reserve a login attempt: %w", err)
	}
	return id, f, nil
}

// ForgiveLoginAttempt takes back a try ReserveLoginAttempt recorded.
func (a Accounts) ForgiveLoginAttempt(ctx context.Context, id int64) error {
	if _, err := a.db.w.ExecContext(ctx, "DELETE FROM login_failures WHERE seq = ?", id); err != nil {
		return fmt.Errorf("forgive a login attempt: %w", err)
	}
	return nil
}

// ReserveSignup records a sign-up from address at at, before the account
// is made, unless max were recorded since: then it records nothing and
// returns 0 and the time of the oldest of them (the limit lifts a window
// after it). Serialised per address like ReserveLoginAttempt; the
// address's rows older than since are deleted on the way. Only its own:
// on PostgreSQL, deleting every old row locked rows that sign-ups from
// other addresses were deleting too, so those waited for one another.
// PruneSignups sweeps the old rows of addresses that do not come back.
func (a Accounts) ReserveSignup(ctx context.Context, address string, max int, since, at time.Time) (int64, time.Time, error) {
	var id int64
	var oldest time.Time
	err := a.db.writeTx(ctx, func(tx *sqlTx) error {
		if err := lockNames(ctx, tx, []string{"signup address " + address}); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM signups WHERE address = ? AND at <= ?", address, ms(since)); err != nil {
			return err
		}
		var n int
		var first sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT count(*), min(at) FROM signups WHERE address = ? AND at > ?", address, ms(since)).
			Scan(&n, &first); err != nil {
			return err
		}
		if n >= max {
			oldest = fromMs(first.Int64)
			return nil
		}
		return tx.QueryRowContext(ctx, "INSERT INTO signups (address, at) VALUES (?, ?) RETURNING seq", address, ms(at)).Scan(&id)
	})
	if err != nil {
		return 0, oldest, fmt.Errorf("reserve a sign-up: %w", err)
	}
	return id, oldest, nil
}

// ForgiveSignup takes back a sign-up ReserveSignup recorded: no account
// was made.
func (a Accounts) ForgiveSignup(ctx context.Context, id int64) error {
	if _, err := a.db.w.ExecContext(ctx, "DELETE FROM signups WHERE seq = ?", id); err != nil {
		return fmt.Errorf("forgive a sign-up: %w", err)
	}
	return nil
}

// PruneSignups deletes the sign-ups recorded before before (older than
// the limit's window: they count no more), of every address. One
// statement outside any reservation, run now and then (the service's
// watcher), so no sign-up waits for it for long.
func (a Accounts) PruneSignups(ctx context.Context, before time.Time) error {
	if _, err := a.db.w.ExecContext(ctx, "DELETE FROM signups WHERE at < ?", ms(before)); err != nil {
		return fmt.Errorf("prune old sign-ups: %w", err)
	}
	return nil
}

// lockNames serialises, on PostgreSQL, the transactions that count and
// record tries under the same names, until tx ends: each name is a
// transaction advisory lock in the single-bigint key space, taken in the
// order of their keys so that two transactions never wait for each other
// in a cycle. SQLite's single writer serialises them already.
func lockNames(ctx context.Context, tx *sqlTx, names []string) error {
	if !tx.d.postgres() || len(names) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT hashtextextended(n, 0) AS k
		FROM unnest(CAST(? AS text[])) AS t(n) ORDER BY 1) s`, names)
	return err
}

// ClearLoginFailures forgets an account's failures (after a success) and
// every failure older than before.
func (a Accounts) ClearLoginFailures(ctx context.Context, account string, before time.Time) error {
	_, err := a.db.w.ExecContext(ctx, "DELETE FROM login_failures WHERE account = ? OR at < ?", account, ms(before))
	if err != nil {
		return fmt.Errorf("clear failed logins: %w", err)
	}
	return nil
}
