package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// LoadTx is the load's one write transaction (InLoad): the reads by
// natural key and the writes that turning a dataset into rows needs, on
// the store's own types, by area (Accounts, Play, Content, Hooks). Their
// methods return the driver's error of a write as it is, so that the
// caller can tell a unique violation (IsUniqueViolation) and name the
// entry at fault.
type LoadTx struct{ *loadState }

// LoadAccounts is the load's part over users, their two-factor state and
// recovery codes, and API keys.
type LoadAccounts struct{ *loadState }

// LoadPlay is the load's part over solves and wrong attempts.
type LoadPlay struct{ *loadState }

// LoadContent is the load's part over challenges (their flags,
// prerequisites and files), writeups, reviews, the event's settings and
// announcements.
type LoadContent struct{ *loadState }

// LoadHooks is the load's part over webhooks.
type LoadHooks struct{ *loadState }

// Accounts returns the load's part over accounts.
func (t *LoadTx) Accounts() LoadAccounts { return LoadAccounts{t.loadState} }

// Play returns the load's part over solves and attempts.
func (t *LoadTx) Play() LoadPlay { return LoadPlay{t.loadState} }

// Content returns the load's part over content.
func (t *LoadTx) Content() LoadContent { return LoadContent{t.loadState} }

// Hooks returns the load's part over webhooks.
func (t *LoadTx) Hooks() LoadHooks { return LoadHooks{t.loadState} }

// loadState is the load's transaction as its parts share it. They embed
// it for its fields and helpers, all unexported: an embedded LoadTx would
// give each part every other part's methods too.
type loadState struct {
	ctx   context.Context
	tx    *sqlTx
	now   time.Time
	bulk  *bulkLoader // for the multi-row INSERTs of new rows
	stmts map[string]*sql.Stmt
}

// InLoad runs fn as the load's one transaction: on any error nothing is
// written. It serialises loads with each other, and on success bumps the
// revision, so every replica rebuilds its state from the database.
func (db *DB) InLoad(ctx context.Context, fn func(*LoadTx) error) error {
	return db.loadTx(ctx, func(tx *sqlTx) error {
		if err := lockLoads(ctx, tx); err != nil {
			return fmt.Errorf("load: %w", err)
		}
		t := &LoadTx{&loadState{ctx: ctx, tx: tx, now: ctf.Millis(db.now()), bulk: &bulkLoader{ctx: ctx, tx: tx}}}
		defer t.closeStmts()
		if err := fn(t); err != nil {
			return err
		}
		return bumpRevision(ctx, tx)
	})
}

// loadTx runs fn in the load's one write transaction. On SQLite it takes
// the writer connection for itself and sets it up for a transaction of
// many rows: foreign keys are checked once before the commit (PRAGMA
// foreign_key_check) instead of by every statement, since SQLite checks an
// immediate foreign key of a multi-row INSERT at the end of the statement
// and keeps a statement journal to undo it, which costs more than the
// inserts; and a larger page cache, since with the default 2 MB such a
// transaction spills its pages to the log and reads them back for every
// index insert. Durability is untouched: the commit syncs as any other.
func (db *DB) loadTx(ctx context.Context, fn func(*sqlTx) error) error {
	if db.dialect.postgres() {
		return db.writeTx(ctx, fn)
	}
	raw, err := db.w.raw.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", unavailable(err))
	}
	defer raw.Close()
	conn := &sqlConn{raw: raw, d: db.dialect}
	var cache int64
	if err := raw.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
		return fmt.Errorf("begin: %w", unavailable(err))
	}
	defer func() {
		// Back to the settings Open gave the connection, or never reuse it.
		for _, p := range []string{"PRAGMA foreign_keys = ON", fmt.Sprintf("PRAGMA cache_size = %d", cache)} {
			if _, err := raw.ExecContext(context.Background(), p); err != nil {
				discardConn(raw)
				return
			}
		}
	}()
	for _, p := range []string{"PRAGMA foreign_keys = OFF", "PRAGMA cache_size = -32768"} {
		if _, err := raw.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("begin: %w", unavailable(err))
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := (&bulkLoader{ctx: ctx, tx: tx}).foreignKeyCheck(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// IsUniqueViolation reports whether err is a unique key's violation, on
// either engine.
func IsUniqueViolation(err error) bool { return isUniqueViolation(err) }

// Now is the load's time, to the millisecond: what an entry without a
// time is stamped with.
func (t *LoadTx) Now() time.Time { return t.now }

// stmt returns query prepared in the load's transaction, once: the per-row
// lookups run hundreds of thousands of times.
func (t *loadState) stmt(query string) (*sql.Stmt, error) {
	if st, ok := t.stmts[query]; ok {
		return st, nil
	}
	st, err := t.tx.PrepareContext(t.ctx, query)
	if err != nil {
		return nil, unavailable(err)
	}
	if t.stmts == nil {
		t.stmts = map[string]*sql.Stmt{}
	}
	t.stmts[query] = st
	return st, nil
}

func (t *loadState) closeStmts() {
	for _, st := range t.stmts {
		st.Close()
	}
	for _, b := range t.bulk.stmts {
		b.close()
	}
}

// exists runs a prepared count query and reports whether it counted any.
func (t *loadState) exists(query string, args ...any) (bool, error) {
	st, err := t.stmt(query)
	if err != nil {
		return false, err
	}
	var n int
	if err := st.QueryRowContext(t.ctx, args...).Scan(&n); err != nil {
		return false, unavailable(err)
	}
	return n > 0, nil
}

// lookupID is the id of the what (a user, a challenge) that query finds
// by its natural key, "" when there is none.
func (t *loadState) lookupID(what, query, key string) (string, error) {
	var id string
	err := t.tx.QueryRowContext(t.ctx, query, key).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look up %s %q: %w", what, key, err)
	}
	return id, nil
}

// Empty reports whether table holds no row yet: then no entry of a dataset
// can match a stored one, and the load need not look.
func (t *LoadTx) Empty(table string) (bool, error) {
	var n int
	err := t.tx.QueryRowContext(t.ctx, "SELECT count(*) FROM (SELECT 1 FROM "+table+" LIMIT 1) t").Scan(&n)
	if err != nil {
		return false, fmt.Errorf("load %s: %w", table, err)
	}
	return n == 0, nil
}

// StreamHead is the number of the newest row of the live stream.
func (t *LoadTx) StreamHead() (int64, error) { return streamHead(t.ctx, t.tx) }

// Rows batches new rows of one table into multi-row INSERTs, for tables
// the load found empty or rows it has checked are new. Flush writes the
// rows still queued.
type Rows[T any] struct {
	ins    *bulkInsert
	values func(T) []any
	n      int64
}

func newRows[T any](t *loadState, table string, cols []string, values func(T) []any) *Rows[T] {
	r := &Rows[T]{values: values}
	r.ins = t.bulk.inserter(table, strings.Join(cols, ", "), &r.n)
	return r
}

// Add queues one row.
func (r *Rows[T]) Add(v T) error { return r.ins.add(r.values(v)...) }

// Flush writes the queued rows.
func (r *Rows[T]) Flush() error { return r.ins.flush() }
