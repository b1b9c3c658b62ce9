package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // database/sql driver over pgx: pure Go
)

// defaultPoolMaxConns is the pool size without pool_max_conns in the DSN.
const defaultPoolMaxConns = 16

// defaultStatementTimeout applies without statement_timeout in the DSN.
const defaultStatementTimeout = "5s"

// migrateLockKey is the session advisory lock Migrate holds on PostgreSQL:
// "flagship" in ASCII, a fixed key in the single-bigint key space.
const migrateLockKey int64 = 0x666c6167_73686970

// loadLockKey serialises operator loads on PostgreSQL, as SQLite's single
// writer does: "flagload".
const loadLockKey int64 = 0x666c6167_6c6f6164

func isPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// postgresConfig reads Flagship's own options out of a PostgreSQL URL and
// returns what is left for pgx, with the statement timeout defaulted.
func postgresConfig(dsn string) (connString string, maxConns int, err error) {
	u, err := url.Parse(dsn)
	if err != nil {
		// url's message quotes the whole DSN, password included.
		return "", 0, errors.New("not a valid postgres:// URL")
	}
	q := u.Query()
	maxConns = defaultPoolMaxConns
	if q.Has("pool_max_conns") {
		maxConns, err = strconv.Atoi(q.Get("pool_max_conns"))
		if err != nil || maxConns < 1 {
			return "", 0, fmt.Errorf("pool_max_conns=%q: want a whole number of at least 1", q.Get("pool_max_conns"))
		}
		q.Del("pool_max_conns")
	}
	if !q.Has("statement_timeout") {
		q.Set("statement_timeout", defaultStatementTimeout)
	}
	u.RawQuery = q.Encode()
	return u.String(), maxConns, nil
}

func openPostgres(ctx context.Context, dsn string) (*DB, error) {
	name := redact(dsn)
	connString, maxConns, err := postgresConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	raw := stdlib.OpenDB(*cfg)
	raw.SetMaxOpenConns(maxConns)
	raw.SetMaxIdleConns(maxConns)
	raw.SetConnMaxIdleTime(5 * time.Minute)
	raw.SetConnMaxLifetime(time.Hour)
	d := &dialect{name: postgresName}
	p := &sqlDB{raw: raw, d: d}
	db := &DB{w: p, r: p, dialect: d, now: time.Now}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	return db, nil
}

// lockMigrations takes the migration lock on conn, waiting as long as
// another process migrates, and returns its release.
func lockMigrations(ctx context.Context, conn *sql.Conn) (unlock func(), err error) {
	// The wait is as long as another replica's migration, and a migration
	// may rewrite big tables: no statement timeout on this connection.
	if _, err := conn.ExecContext(ctx, "SET statement_timeout = 0"); err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", migrateLockKey); err != nil {
		discardConn(conn)
		return nil, err
	}
	return func() {
		ctx := context.Background()
		_, err1 := conn.ExecContext(ctx, "SELECT pg_advisory_unlock($1)", migrateLockKey)
		_, err2 := conn.ExecContext(ctx, "RESET statement_timeout")
		if err1 != nil || err2 != nil {
			// Never hand a connection that may still hold the lock back to
			// the pool: closing it ends the session and the lock.
			discardConn(conn)
		}
	}, nil
}

// discardConn makes database/sql close conn instead of reusing it.
func discardConn(conn *sql.Conn) {
	conn.Raw(func(any) error { return driver.ErrBadConn })
}

// lockSubmissions takes, on PostgreSQL, the transaction's locks on each
// user's submissions to each challenge of a batch, then on recording the
// solves of each challenge and of each user the batch may solve: the solve
// checks, the rate-limit counts and the inserts that follow are then exact
// across processes, and each challenge's and each user's solves are
// ordered by (solved_at, seq) as they commit. Every transaction takes its
// locks in one order (user and challenge pairs, then the challenges' and
// users' solve keys, each set sorted by key; the stream's counter last), so
// two batches never wait for each other in a cycle.
// SQLite's single writer has serialised the transaction already.
func lockSubmissions(ctx context.Context, tx *sqlTx, subs []Submission) error {
	if !tx.d.postgres() {
		return nil
	}
	users := make([]string, len(subs))
	chals := make([]string, len(subs))
	var solving []string
	for i, s := range subs {
		users[i], chals[i] = s.UserID, s.ChallengeID
		if s.Correct {
			solving = append(solving, "solves of "+s.ChallengeID, "solves by "+s.UserID)
		}
	}
	// The two-int key space: apart from the single-bigint keys below. The
	// subquery's ORDER BY fixes the order in which the locks are taken.
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(k1, k2) FROM (SELECT DISTINCT hashtext(u) AS k1, hashtext(c) AS k2
		FROM unnest(CAST(? AS text[]), CAST(? AS text[])) AS t(u, c) ORDER BY 1, 2) s`, users, chals); err != nil {
		return err
	}
	if len(solving) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT hashtextextended(n, 0) AS k
		FROM unnest(CAST(? AS text[])) AS t(n) ORDER BY 1) s`, solving)
	return err
}

// lockLoads serialises, on PostgreSQL, the operator's loads with each
// other for the rest of tx, as SQLite's single writer does. The statement
// timeout is lifted for tx: waiting for another load, or loading a big
// file, may take longer, and an operator's command is not a request.
func lockLoads(ctx context.Context, tx *sqlTx) error {
	if !tx.d.postgres() {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "SET LOCAL statement_timeout = 0"); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?)", loadLockKey)
	return err
}
