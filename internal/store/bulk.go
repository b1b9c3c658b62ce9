package store

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Bulk is a whole event for BulkLoad: rows as they will be stored, with
// their ids and times set by the caller. It exists for synthetic events
// (benchmarks, load tests), where the dataset loader's per-row upserts and
// checks would take many minutes at millions of rows.
type Bulk struct {
	Users      []ctf.User
	Challenges []ctf.Challenge // Flags (Kind, Content, CaseInsensitive) and Requires (ids) are stored too
	Solves     []ctf.Solve     // Seq is assigned by the database in slice order; insert in time order
	Reviews    []ctf.Review
	Writeups   []ctf.Writeup
	APIKeys    []ctf.APIKey
	// Attempts yields the wrong submissions; an iterator, so millions of
	// them need not be held in memory at once.
	Attempts iter.Seq[Attempt]
}

// Attempt is one recorded wrong submission.
type Attempt struct {
	ID          string
	UserID      string
	ChallengeID string
	Flag        string
	At          time.Time
	Door        ctf.Door // the front door it came through ("" when loaded)
	KeyID       string   // the API key that made it, if one did
	Practice    bool     // made after the end in practice mode: counts nowhere
}

// BulkReport counts the rows BulkLoad wrote, by table.
type BulkReport struct {
	Users         int64 `json:"users"`
	Challenges    int64 `json:"challenges"`
	Flags         int64 `json:"flags"`
	Prerequisites int64 `json:"prerequisites"`
	Solves        int64 `json:"solves"`
	Attempts      int64 `json:"attempts"`
	Reviews       int64 `json:"reviews"`
	Writeups      int64 `json:"writeups"`
	APIKeys       int64 `json:"apiKeys"`
}

// bulkTxRows is roughly how many rows go in one transaction: big enough that
// commits cost nothing, small enough that the WAL is checkpointed as it goes
// rather than growing to the size of the whole database. (A variable so
// the tests can cross transaction boundaries cheaply.)
var bulkTxRows = 250_000

// BulkLoad writes a whole event into an empty, migrated database. It
// refuses a database that already has users, challenges or activity.
// Unique keys and checks are enforced as always and foreign keys at the
// latest at the end, so bad input fails loudly.
//
// On SQLite it writes multi-row prepared INSERTs in a few large
// transactions on the single writer connection, so a failure part-way
// leaves the rows of the transactions already committed: a failed load's
// database is to be thrown away, not repaired. On PostgreSQL it streams
// each table with COPY in one transaction, which a failure rolls back.
func (db *DB) BulkLoad(ctx context.Context, b *Bulk) (BulkReport, error) {
	if db.dialect.postgres() {
		return db.bulkLoadPostgres(ctx, b)
	}
	var rep BulkReport
	conn, err := db.w.raw.Conn(ctx)
	if err != nil {
		return rep, fmt.Errorf("bulk load: %w", err)
	}
	defer conn.Close()
	// A larger page cache for the duration: the solves' and attempts'
	// indexes take inserts at many places, and with SQLite's default 2 MB
	// cache most of them reread pages from the file.
	// (Much larger costs more than it saves: the driver's allocator is slow
	// to hand out and take back hundreds of megabytes of pages.)
	//
	// Foreign keys are off while loading and checked once at the end
	// (PRAGMA foreign_key_check): SQLite checks an immediate foreign key
	// of a multi-row INSERT at the end of the statement, so it keeps a
	// statement journal to undo the statement, and writing that journal
	// cost more than the inserts themselves.
	//
	// No syncs while loading: a load that fails or crashes part-way leaves
	// a database to throw away in any case. The checkpoint at the end, with
	// syncs back on, makes the whole load durable before it is answered.
	//
	// No ANALYZE at the end either: a database filled by `load` or by live
	// play has no statistics, and benchmarks must see the same query plans.
	for _, p := range []string{"PRAGMA cache_size = -65536", "PRAGMA foreign_keys = OFF", "PRAGMA synchronous = OFF"} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return rep, fmt.Errorf("bulk load: %w", err)
		}
	}
	defer func() {
		// Back to the settings Open gave the connection.
		for _, p := range []string{"PRAGMA synchronous = FULL", "PRAGMA wal_checkpoint(FULL)", "PRAGMA foreign_keys = ON", "PRAGMA cache_size = -2000"} {
			conn.ExecContext(context.Background(), p)
		}
	}()

	l := &bulkLoader{ctx: ctx, conn: &sqlConn{raw: conn, d: db.dialect}}
	if err := l.begin(); err != nil {
		return rep, err
	}
	defer func() {
		if l.tx != nil {
			l.tx.Rollback()
		}
	}()
	if err := bulkEmpty(ctx, l.tx); err != nil {
		return rep, err
	}
	for _, t := range bulkTables(b, &rep) {
		if err := l.table(t); err != nil {
			return rep, err
		}
	}
	if err := l.foreignKeyCheck(); err != nil {
		return rep, err
	}
	if err := bumpRevision(ctx, l.tx); err != nil {
		return rep, err
	}
	if err := l.commit(); err != nil {
		return rep, err
	}
	// Fold the WAL back into the database file so the first reader does not
	// start with hundreds of megabytes of log to search.
	if _, err := conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return rep, fmt.Errorf("bulk load: checkpoint: %w", err)
	}
	return rep, nil
}

// bulkEmpty refuses a database that already holds an event.
func bulkEmpty(ctx context.Context, q querier) error {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM challenges)
		+ (SELECT count(*) FROM solves) + (SELECT count(*) FROM attempts)`).Scan(&n); err != nil {
		return fmt.Errorf("bulk load: %w", err)
	}
	if n > 0 {
		return errBulkNotEmpty()
	}
	return nil
}

func errBulkNotEmpty() error {
	return ctf.Errorf(ctf.Conflict, "bulk load needs an empty database; this one already holds an event")
}

// foreignKeyCheck fails the load if any row names a missing parent.
func (l *bulkLoader) foreignKeyCheck() error {
	rows, err := l.tx.QueryContext(l.ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return fmt.Errorf("bulk load: foreign key check: %w", err)
	}
	defer rows.Close()
	if rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return fmt.Errorf("bulk load: foreign key check: %w", err)
		}
		return fmt.Errorf("bulk load: a row of %s (rowid %d) refers to a missing %s", table, rowid.Int64, parent)
	}
	return rows.Err()
}

type bulkLoader struct {
	ctx   context.Context
	conn  *sqlConn
	tx    *sqlTx
	rows  int // rows written in the current transaction
	stmts []*bulkInsert
}

func (l *bulkLoader) begin() error {
	tx, err := l.conn.BeginTx(l.ctx, nil)
	if err != nil {
		return fmt.Errorf("bulk load: begin: %w", err)
	}
	l.tx, l.rows = tx, 0
	return nil
}

func (l *bulkLoader) commit() error {
	for _, s := range l.stmts {
		s.close()
	}
	l.stmts = nil
	err := l.tx.Commit()
	l.tx = nil
	if err != nil {
		return fmt.Errorf("bulk load: commit: %w", err)
	}
	return nil
}

// rotate commits and begins a new transaction once the current one is big
// enough; only called with every insert flushed.
func (l *bulkLoader) rotate() error {
	if l.rows < bulkTxRows {
		return nil
	}
	if err := l.commit(); err != nil {
		return err
	}
	return l.begin()
}

// bulkInsert batches rows of one table into multi-row INSERTs: one
// statement of batch rows, prepared once per transaction, and a one-off for
// the remainder. On SQLite they are INSERT OR ROLLBACK: a duplicate fails
// the whole transaction rather than the statement, so again SQLite needs no
// statement journal. (PostgreSQL has no such clause, and a failed statement
// fails its transaction anyway.)
type bulkInsert struct {
	l      *bulkLoader
	table  string
	cols   string
	ncol   int
	batch  int
	stmt   *sql.Stmt
	args   []any
	count  *int64
	prefix string
}

func (l *bulkLoader) inserter(table, cols string, count *int64) *bulkInsert {
	ncol := strings.Count(cols, ",") + 1
	// SQLite allows 32766 parameters a statement; a few hundred rows take
	// the per-statement overhead out of the picture.
	batch := min(256, 30000/ncol)
	verb := "INSERT OR ROLLBACK INTO "
	if l.tx.d.postgres() {
		verb = "INSERT INTO "
	}
	return &bulkInsert{l: l, table: table, cols: cols, ncol: ncol, batch: batch, count: count,
		prefix: verb + table + " (" + cols + ") VALUES ", args: make([]any, 0, batch*ncol)}
}

func (b *bulkInsert) sql(rows int) string {
	var sb strings.Builder
	sb.Grow(len(b.prefix) + rows*(2*b.ncol+3))
	sb.WriteString(b.prefix)
	one := "(" + strings.Repeat("?,", b.ncol-1) + "?)"
	for i := 0; i < rows; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(one)
	}
	return sb.String()
}

// add queues one row; its values must be ncol long.
func (b *bulkInsert) add(vals ...any) error {
	b.args = append(b.args, vals...)
	if len(b.args) < b.batch*b.ncol {
		return nil
	}
	if b.stmt == nil {
		st, err := b.l.tx.PrepareContext(b.l.ctx, b.sql(b.batch))
		if err != nil {
			return fmt.Errorf("bulk load %s: prepare: %w", b.table, err)
		}
		b.stmt = st
		b.l.stmts = append(b.l.stmts, b)
	}
	if _, err := b.stmt.ExecContext(b.l.ctx, b.args...); err != nil {
		return fmt.Errorf("bulk load %s: %w", b.table, err)
	}
	b.done(b.batch)
	return nil
}

// flush writes the queued rows.
func (b *bulkInsert) flush() error {
	if len(b.args) == 0 {
		return nil
	}
	rows := len(b.args) / b.ncol
	if _, err := b.l.tx.ExecContext(b.l.ctx, b.sql(rows), b.args...); err != nil {
		return fmt.Errorf("bulk load %s: %w", b.table, err)
	}
	b.done(rows)
	return nil
}

func (b *bulkInsert) done(rows int) {
	clear(b.args)
	b.args = b.args[:0]
	*b.count += int64(rows)
	b.l.rows += rows
}

// close drops the prepared statement at the end of its transaction.
func (b *bulkInsert) close() {
	if b.stmt != nil {
		b.stmt.Close()
		b.stmt = nil
	}
}

// flushRotate flushes and, when the transaction is big enough, starts a new
// one (the statement is prepared again in it).
func (b *bulkInsert) flushRotate() error {
	if err := b.flush(); err != nil {
		return err
	}
	return b.l.rotate()
}

// table writes one table's rows, committing as the transaction grows.
func (l *bulkLoader) table(t bulkTable) error {
	ins := l.inserter(t.name, strings.Join(t.cols, ", "), t.count)
	for row, err := range t.rows {
		if err != nil {
			return err
		}
		if err := ins.add(row...); err != nil {
			return err
		}
		if len(ins.args) == 0 && l.rows >= bulkTxRows {
			if err := l.rotate(); err != nil {
				return err
			}
		}
	}
	return ins.flushRotate()
}

// bulkTable is one table's rows as stored, for either database's way of
// writing many rows.
type bulkTable struct {
	name  string
	cols  []string
	count *int64
	rows  iter.Seq2[[]any, error]
}

// bulkTables lists b's tables in an order that satisfies foreign keys,
// counting their rows in rep.
func bulkTables(b *Bulk, rep *BulkReport) []bulkTable {
	return []bulkTable{
		{"users", userWriteColumns, &rep.Users, bulkRows(b.Users, func(u ctf.User) ([]any, error) { return userValues(u), nil })},
		{"challenges", challengeColumns, &rep.Challenges, bulkRows(b.Challenges, func(c ctf.Challenge) ([]any, error) {
			if c.Categories == nil {
				c.Categories = []string{}
			}
			if c.Type == "" {
				c.Type = "standard"
			}
			return challengeValues(c), nil
		})},
		{"flags", flagColumns, &rep.Flags,
			func(yield func([]any, error) bool) {
				for _, c := range b.Challenges {
					for i, f := range c.Flags {
						if err := f.Compile(); err != nil {
							yield(nil, fmt.Errorf("bulk load challenge %q: %w", c.Slug, err))
							return
						}
						if !yield([]any{c.ID, i, f.Kind, f.Content, f.CaseInsensitive}, nil) {
							return
						}
					}
				}
			}},
		{"prerequisites", prerequisiteColumns, &rep.Prerequisites,
			func(yield func([]any, error) bool) {
				for _, c := range b.Challenges {
					for _, r := range c.Requires {
						if !yield([]any{c.ID, r}, nil) {
							return
						}
					}
				}
			}},
		// Seq is assigned in this order.
		{"solves", solveColumns, &rep.Solves, bulkRows(b.Solves, func(s ctf.Solve) ([]any, error) {
			return solveValues(SolveRow{Solve: s}), nil
		})},
		{"reviews", reviewColumns, &rep.Reviews, bulkRows(b.Reviews, func(r ctf.Review) ([]any, error) { return reviewValues(r), nil })},
		{"writeups", writeupWriteColumns, &rep.Writeups, bulkRows(b.Writeups, func(w ctf.Writeup) ([]any, error) {
			if w.Status == "" {
				w.Status = ctf.WriteupPending
			}
			return writeupValues(w), nil
		})},
		{"api_keys", keyWriteColumns, &rep.APIKeys, bulkRows(b.APIKeys, func(k ctf.APIKey) ([]any, error) { return keyValues(k), nil })},
		{"attempts", attemptColumns, &rep.Attempts, func(yield func([]any, error) bool) {
			if b.Attempts == nil {
				return
			}
			for a := range b.Attempts {
				if !yield(attemptValues(a), nil) {
					return
				}
			}
		}},
	}
}

func bulkRows[T any](items []T, row func(T) ([]any, error)) iter.Seq2[[]any, error] {
	return func(yield func([]any, error) bool) {
		for _, it := range items {
			if !yield(row(it)) {
				return
			}
		}
	}
}
