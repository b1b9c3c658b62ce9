package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The dialect seam. Every query of this package is written once, with ?
// placeholders, in the SQL that SQLite and PostgreSQL share; sqlDB and
// sqlTx wrap *sql.DB and *sql.Tx with the same method names and rewrite
// the placeholders to $1..$n on PostgreSQL. What else differs is asked of
// the dialect by name (greatest, wholeRead, savepoint) or switched on postgres() where
// a feature exists on one side only (PRAGMAs, advisory locks, COPY).

const (
	sqliteName   = "sqlite"
	postgresName = "postgres"
)

type dialect struct {
	name string
	// rebound caches rewritten queries; bounded, since a few callers build
	// queries with a variable number of placeholders.
	rebound sync.Map
	cached  atomic.Int32
}

const maxRebound = 4096

func (d *dialect) postgres() bool { return d.name == postgresName }

// rebind returns q with its placeholders in the dialect's form.
func (d *dialect) rebind(q string) string {
	if !d.postgres() || strings.IndexByte(q, '?') < 0 {
		return q
	}
	if v, ok := d.rebound.Load(q); ok {
		return v.(string)
	}
	r := dollarPlaceholders(q)
	if d.cached.Load() < maxRebound {
		if _, loaded := d.rebound.LoadOrStore(q, r); !loaded {
			d.cached.Add(1)
		}
	}
	return r
}

// dollarPlaceholders rewrites each ? outside single-quoted string literals
// to $1, $2, … in order. (No query of this package has a ? in a literal,
// but a literal is where one could legitimately appear.)
func dollarPlaceholders(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	n, quoted := 0, false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			quoted = !quoted // '' inside a literal toggles twice
		case c == '?' && !quoted:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// greatest is the larger of two SQL expressions: GREATEST in PostgreSQL,
// the two-argument max() in SQLite. Neither may be NULL (SQLite's max
// would be NULL).
func (d *dialect) greatest(a, b string) string {
	if d.postgres() {
		return "GREATEST(" + a + ", " + b + ")"
	}
	return "max(" + a + ", " + b + ")"
}

// wholeRead begins the transaction of a consistent read of the whole event
// (snapshot, dump): SQLite's read transaction already sees one snapshot;
// PostgreSQL's default READ COMMITTED would take a new one per statement,
// so it is REPEATABLE READ there, without the statement timeout, since
// streaming millions of rows to a slow consumer may take longer.
func (p *sqlDB) wholeRead(ctx context.Context) (*sqlTx, error) {
	if !p.d.postgres() {
		return p.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	}
	tx, err := p.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, "SET LOCAL statement_timeout = 0"); err != nil {
		tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// sqlDB is a *sql.DB that speaks the dialect.
type sqlDB struct {
	raw *sql.DB
	d   *dialect
	// stmts holds the statements prepared once for the hottest writes, by
	// query. SQLite's driver parses a query at every use otherwise (pgx
	// keeps its own cache of prepared statements per connection).
	stmts sync.Map
}

// prepared returns query prepared on p, once. Not inside a transaction of
// p's: SQLite's writer has one connection, which the transaction holds.
func (p *sqlDB) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := p.stmts.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := p.raw.PrepareContext(ctx, p.d.rebind(query))
	if err != nil {
		return nil, unavailable(err)
	}
	if prev, loaded := p.stmts.LoadOrStore(query, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// The wrappers also turn the errors that mean "the database cannot serve
// now" into Unavailable domain errors (unavailable.go), at the one place
// every query passes.

func (p *sqlDB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	r, err := p.raw.ExecContext(ctx, p.d.rebind(query), args...)
	return r, unavailable(err)
}

func (p *sqlDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	r, err := p.raw.QueryContext(ctx, p.d.rebind(query), args...)
	return r, unavailable(err)
}

func (p *sqlDB) QueryRowContext(ctx context.Context, query string, args ...any) *row {
	return &row{p.raw.QueryRowContext(ctx, p.d.rebind(query), args...)}
}

func (p *sqlDB) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sqlTx, error) {
	tx, err := p.raw.BeginTx(ctx, opts)
	if err != nil {
		return nil, unavailable(err)
	}
	return &sqlTx{raw: tx, d: p.d}, nil
}

// row is a *sql.Row whose Scan reports an unavailable database as such.
type row struct{ raw *sql.Row }

func (r *row) Scan(dest ...any) error { return unavailable(r.raw.Scan(dest...)) }

// sqlConn is a *sql.Conn that speaks the dialect.
type sqlConn struct {
	raw *sql.Conn
	d   *dialect
}

func (c *sqlConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	r, err := c.raw.ExecContext(ctx, c.d.rebind(query), args...)
	return r, unavailable(err)
}

func (c *sqlConn) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sqlTx, error) {
	tx, err := c.raw.BeginTx(ctx, opts)
	if err != nil {
		return nil, unavailable(err)
	}
	return &sqlTx{raw: tx, d: c.d}, nil
}

// sqlTx is a *sql.Tx that speaks the dialect.
type sqlTx struct {
	raw *sql.Tx
	d   *dialect
}

func (t *sqlTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	r, err := t.raw.ExecContext(ctx, t.d.rebind(query), args...)
	return r, unavailable(err)
}

func (t *sqlTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	r, err := t.raw.QueryContext(ctx, t.d.rebind(query), args...)
	return r, unavailable(err)
}

func (t *sqlTx) QueryRowContext(ctx context.Context, query string, args ...any) *row {
	return &row{t.raw.QueryRowContext(ctx, t.d.rebind(query), args...)}
}

func (t *sqlTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return t.raw.PrepareContext(ctx, t.d.rebind(query))
}

// QueryRowStmt is QueryRowContext through a prepared statement (nil:
// the query as text).
func (t *sqlTx) QueryRowStmt(ctx context.Context, st *sql.Stmt, query string, args ...any) *row {
	if st == nil {
		return t.QueryRowContext(ctx, query, args...)
	}
	return &row{t.raw.StmtContext(ctx, st).QueryRowContext(ctx, args...)}
}

func (t *sqlTx) Commit() error   { return unavailable(t.raw.Commit()) }
func (t *sqlTx) Rollback() error { return t.raw.Rollback() }

// savepoint runs fn so that, on PostgreSQL, a statement of fn that fails
// does not abort the whole transaction (SQLite undoes just the statement):
// callers that turn a failure into a message with a further query need it.
func (t *sqlTx) savepoint(ctx context.Context, fn func() error) error {
	if !t.d.postgres() {
		return fn()
	}
	if _, err := t.raw.ExecContext(ctx, "SAVEPOINT flagship_stmt"); err != nil {
		return err
	}
	if err := fn(); err != nil {
		if _, rerr := t.raw.ExecContext(ctx, "ROLLBACK TO SAVEPOINT flagship_stmt"); rerr != nil {
			return rerr
		}
		return err
	}
	_, err := t.raw.ExecContext(ctx, "RELEASE SAVEPOINT flagship_stmt")
	return err
}
