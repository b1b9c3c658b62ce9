// Package store keeps Flagship's data in a SQL database. All SQL lives here.
// The queries are written once, in the dialect-neutral subset that SQLite and
// PostgreSQL share (integer millisecond times, ON CONFLICT upserts), behind a
// small seam for what differs: placeholders, driver setup, error mapping.
package store

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver: no cgo, so the binary stays static
)

//go:embed migrations
var migrations embed.FS

// DB is a handle on the platform database. SQLite allows one writer at a
// time, so writes go through a single connection (no SQLITE_BUSY storms)
// while reads use a pool that WAL lets run beside it.
type DB struct {
	w, r    *sql.DB
	dialect string // "sqlite"
	now     func() time.Time
}

// Open connects to the database named by dsn: "sqlite:PATH" or a bare path.
func Open(ctx context.Context, dsn string) (*DB, error) {
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return nil, fmt.Errorf("open %s: PostgreSQL is not supported by this build yet", redact(dsn))
	}
	p := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite://"), "sqlite:")
	if p == "" {
		return nil, errors.New("open database: empty SQLite path")
	}
	if p == ":memory:" {
		return nil, errors.New("open database: :memory: is one database per connection; use a file")
	}
	pragmas := "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	w, err := sql.Open("sqlite", "file:"+p+"?_txlock=immediate&"+pragmas)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", "file:"+p+"?_pragma=query_only(1)&"+pragmas)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	r.SetConnMaxLifetime(0)
	db := &DB{w: w, r: r, dialect: "sqlite", now: time.Now}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	return db, nil
}

func redact(dsn string) string {
	if i := strings.Index(dsn, "@"); i > 0 {
		if j := strings.Index(dsn, "://"); j >= 0 && j < i {
			return dsn[:j+3] + "…" + dsn[i:]
		}
	}
	return dsn
}

// Close closes the database.
func (db *DB) Close() error {
	return errors.Join(db.r.Close(), db.w.Close())
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	if err := db.r.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	return nil
}

// Migrate applies the embedded migrations that have not run yet, each in its
// own transaction.
func (db *DB) Migrate(ctx context.Context) error {
	if _, err := db.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	dir := path.Join("migrations", db.dialect)
	entries, err := fs.ReadDir(migrations, dir)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sql") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if err := db.migrateOne(ctx, dir, name); err != nil {
			return fmt.Errorf("migrate %s: %w", name, err)
		}
	}
	return nil
}

func (db *DB) migrateOne(ctx context.Context, dir, name string) error {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := migrations.ReadFile(path.Join(dir, name))
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", name, db.now().UnixMilli()); err != nil {
		return err
	}
	return tx.Commit()
}

// Revision returns a counter that every operator change to the event
// (load, user and key commands) increases, so running servers know to
// rebuild their in-memory state.
func (db *DB) Revision(ctx context.Context) (int64, error) {
	var v string
	if err := db.r.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'revision'").Scan(&v); err != nil {
		return 0, fmt.Errorf("read revision: %w", err)
	}
	var n int64
	_, err := fmt.Sscan(v, &n)
	return n, err
}

func bumpRevision(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'revision'")
	if err != nil {
		return fmt.Errorf("bump revision: %w", err)
	}
	return nil
}

// isUniqueViolation reports whether err is a unique-constraint failure.
func isUniqueViolation(err error) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed")
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMs(v int64) time.Time { return time.UnixMilli(v).UTC() }

func fromNullMs(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMs(v.Int64)
	return &t
}

func nullMs(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

var errNotFound = ctf.Errorf(ctf.NotFound, "not found")

func jsonUnmarshalStrings(s string, out *[]string) error {
	*out = []string{}
	if s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), out)
}
