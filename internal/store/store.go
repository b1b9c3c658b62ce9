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
	"maps"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/jackc/pgx/v5/pgconn"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver: no cgo, so the binary stays static
)

//go:embed migrations
var migrations embed.FS

// DB is a handle on the platform database. SQLite allows one writer at a
// time, so there writes go through a single connection (no SQLITE_BUSY
// storms) while reads use a pool that WAL lets run beside it. PostgreSQL
// has one pool for both (w and r are the same), and the database itself
// keeps concurrent writers of several processes correct (locks, keys).
type DB struct {
	w, r    *sqlDB
	dialect *dialect
	now     func() time.Time
	ckpt    *checkpointer // SQLite: copies the WAL back in the background
}

// Open connects to the database named by dsn.
//
// SQLite: "sqlite:PATH", "sqlite://PATH" or a bare path, optionally followed
// by "?" and parameters for the driver (modernc.org/sqlite), applied after
// Flagship's own, e.g. "sqlite:event.db?_pragma=busy_timeout(2000)" to wait
// 2 s instead of 10 for another process's write lock. The file is opened in
// WAL mode with foreign keys on; writes go through one connection, reads
// through a pool of 8.
//
// PostgreSQL: a URL "postgres://user:password@host:port/dbname?param=value&…"
// (or "postgresql://…"), in the form and with the parameters that libpq and
// pgx understand (sslmode, connect_timeout, search_path, …: parameters
// that are not connection settings are sent to the server as run-time
// parameters). Flagship adds or sets:
//   - pool_max_conns=N: the most connections this process opens (default 16;
//     Flagship's own, removed before connecting). Keep the sum over all
//     replicas, plus one per replica for notifications, below the server's
//     max_connections.
//   - statement_timeout: the server cancels any statement running longer
//     (PostgreSQL syntax: "5s", "500ms", "0" for none). Default 5s, so a
//     stuck query fails a request instead of holding a connection. Whole-
//     event work lifts it for its own statements: migrations, load, bulk
//     load, dump and the snapshot a server builds its state from.
func Open(ctx context.Context, dsn string) (*DB, error) {
	if isPostgresDSN(dsn) {
		return openPostgres(ctx, dsn)
	}
	p, extra, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite://"), "sqlite:"), "?")
	if p == "" {
		return nil, errors.New("open database: empty SQLite path")
	}
	if p == ":memory:" {
		return nil, errors.New("open database: :memory: is one database per connection; use a file")
	}
	// The writer syncs the WAL at every commit (FULL): an answered write
	// survives a power cut, which NORMAL does not promise in WAL mode. It
	// leaves checkpoints to the checkpointer (checkpoint.go).
	writer, reader, err := sqliteParams(extra, map[string]string{"synchronous": "FULL", "wal_autocheckpoint": "0"},
		map[string]string{"synchronous": "NORMAL", "query_only": "1"})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	w, err := sql.Open("sqlite", "file:"+p+"?_txlock=immediate&"+writer)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	r, err := sql.Open("sqlite", "file:"+p+"?"+reader)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	r.SetConnMaxLifetime(0)
	d := &dialect{name: sqliteName}
	db := &DB{w: &sqlDB{raw: w, d: d}, r: &sqlDB{raw: r, d: d}, dialect: d, now: time.Now}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	// The checkpointer's connection is the writer's but for the
	// autocheckpoint: PRAGMAs only, query_only would refuse to checkpoint.
	ckpt, _, err := sqliteParams(extra, map[string]string{"synchronous": "FULL"}, nil)
	if err == nil {
		db.ckpt, err = startCheckpointer("file:" + p + "?" + ckpt)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: checkpointer: %w", p, err)
	}
	return db, nil
}

// sqlitePragmas are the PRAGMAs of every connection: wait 10 s for another
// process's write lock, WAL, foreign keys.
var sqlitePragmas = map[string]string{"busy_timeout": "10000", "journal_mode": "WAL", "foreign_keys": "1"}

// sqliteParams returns the driver parameters of the writer and of the
// readers: the PRAGMAs above and each side's own, overridden by name by the
// _pragma parameters of extra (the DSN's query), whose other parameters
// pass to the driver as they are. (The driver runs duplicate PRAGMAs in no
// set order, so an override must replace, not follow.)
func sqliteParams(extra string, writer, reader map[string]string) (string, string, error) {
	q, err := url.ParseQuery(extra)
	if err != nil {
		return "", "", fmt.Errorf("the parameters after ?: %w", err)
	}
	own := map[string]string{}
	for _, p := range q["_pragma"] {
		name, value, ok := strings.Cut(p, "(")
		if !ok || !strings.HasSuffix(value, ")") {
			return "", "", fmt.Errorf("_pragma=%s: want name(value)", p)
		}
		own[strings.ToLower(strings.TrimSpace(name))] = strings.TrimSuffix(value, ")")
	}
	q.Del("_pragma")
	build := func(side map[string]string) string {
		all := maps.Clone(sqlitePragmas)
		maps.Copy(all, side)
		maps.Copy(all, own)
		names := slices.Sorted(maps.Keys(all))
		parts := make([]string, 0, len(names)+1)
		for _, n := range names {
			parts = append(parts, "_pragma="+n+"("+all[n]+")")
		}
		if rest := q.Encode(); rest != "" {
			parts = append(parts, rest)
		}
		return strings.Join(parts, "&")
	}
	return build(writer), build(reader), nil
}

// Dialect names the database behind db: "sqlite" or "postgres".
func (db *DB) Dialect() string { return db.dialect.name }

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
	var ckpt error
	if db.ckpt != nil {
		ckpt = db.ckpt.close()
	}
	if db.r == db.w {
		return errors.Join(ckpt, db.w.raw.Close())
	}
	return errors.Join(ckpt, db.r.raw.Close(), db.w.raw.Close())
}

// Probe checks that the database serves: a read of a table (not just a
// round trip) and, with write, a write that commits.
func (db *DB) Probe(ctx context.Context, write bool) error {
	var v string
	if err := db.r.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'revision'").Scan(&v); err != nil {
		return fmt.Errorf("probe read: %w", err)
	}
	if !write {
		return nil
	}
	_, err := db.w.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('health', ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, fmt.Sprint(db.now().UnixMilli()))
	if err != nil {
		return fmt.Errorf("probe write: %w", err)
	}
	return nil
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
// own transaction. On PostgreSQL it holds an advisory lock meanwhile, so
// that of several replicas starting at once one migrates and the others
// wait and then find nothing to do.
func (db *DB) Migrate(ctx context.Context) error { return db.migrate(ctx, "") }

// migrate applies the migrations up to and including last ("": all).
func (db *DB) migrate(ctx context.Context, last string) error {
	conn, err := db.w.raw.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	c := &sqlConn{raw: conn, d: db.dialect}
	if db.dialect.postgres() {
		unlock, err := lockMigrations(ctx, conn)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		defer unlock()
	}
	// BIGINT: milliseconds overflow PostgreSQL's 32-bit INTEGER (SQLite
	// reads both as INTEGER).
	if _, err := c.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	dir := path.Join("migrations", db.dialect.name)
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
		if last != "" && name > last {
			break
		}
		if err := db.migrateOne(ctx, c, dir, name); err != nil {
			return fmt.Errorf("migrate %s: %w", name, err)
		}
	}
	return nil
}

// migrationChecks run before the migration they are named after, in its
// transaction: where rows of an older release would break the migration's
// new constraint, the operator is told which rows and how to fix them
// instead of reading the database's own error.
var migrationChecks = map[string]func(context.Context, *sqlTx) error{
	"0008_accounts.sql": checkUsernameCase,
}

func (db *DB) migrateOne(ctx context.Context, c *sqlConn, dir, name string) error {
	tx, err := c.BeginTx(ctx, nil)
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
	if check := migrationChecks[name]; check != nil {
		if err := check(ctx, tx); err != nil {
			return err
		}
	}
	body, err := migrations.ReadFile(path.Join(dir, name))
	if err != nil {
		return err
	}
	// As written: a migration is several statements and no parameters.
	if _, err := tx.raw.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", name, db.now().UnixMilli()); err != nil {
		return err
	}
	return tx.Commit()
}

const bumpRevisionSQL = "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'revision'"

func bumpRevision(ctx context.Context, tx *sqlTx) error {
	_, err := tx.ExecContext(ctx, bumpRevisionSQL)
	if err != nil {
		return fmt.Errorf("bump revision: %w", err)
	}
	return notifyChange(ctx, tx)
}

// notifyChange wakes the other replicas on PostgreSQL once tx commits
// (Listen); SQLite's replicas poll.
func notifyChange(ctx context.Context, tx *sqlTx) error {
	if !tx.d.postgres() {
		return nil
	}
	// The channel is NotifyChannel.
	if _, err := tx.ExecContext(ctx, "SELECT pg_notify('flagship_changes', '')"); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	return nil
}

// isUniqueViolation reports whether err is a unique-constraint failure:
// SQLSTATE 23505 from PostgreSQL, SQLite's "UNIQUE constraint failed".
func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505" // unique_violation
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
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

func jsonUnmarshalStrings[S ~string](s string, out *[]S) error {
	*out = []S{}
	if s == "" {
		return nil
	}
	return json.Unmarshal([]byte(s), out)
}

func (db *DB) writeTx(ctx context.Context, fn func(*sqlTx) error) error {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Empty reports whether the database holds no users and no challenges.
func (db *DB) Empty(ctx context.Context) (bool, error) {
	var n int
	err := db.r.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM challenges)").Scan(&n)
	if err != nil {
		return false, fmt.Errorf("count rows: %w", err)
	}
	return n == 0, nil
}
