// Package storetest gives tests a fresh, empty database on the backend the
// environment chooses, so that one suite runs on SQLite and on PostgreSQL.
// It is imported only by tests.
//
//	FLAGSHIP_TEST_BACKEND   sqlite (default) or postgres
//	FLAGSHIP_TEST_POSTGRES  a server to create test databases on, e.g.
//	                        postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
//
// On SQLite each database is a file in the test's t.TempDir(). On
// PostgreSQL each test package gets one database, created when first needed
// and dropped by Main when the package's tests end, and each database asked
// for is a schema of its own in it, dropped when the test ends.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/store"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// Environment variables that choose the backend.
const (
	BackendEnv  = "FLAGSHIP_TEST_BACKEND"
	PostgresEnv = "FLAGSHIP_TEST_POSTGRES"
)

// Backend returns the backend the tests run on: "sqlite" or "postgres".
func Backend() string {
	if b := os.Getenv(BackendEnv); b != "" {
		return b
	}
	return "sqlite"
}

// Postgres reports whether the tests run on PostgreSQL.
func Postgres() bool { return Backend() == "postgres" }

// Open returns a fresh, migrated, empty database, closed when the test
// ends.
func Open(t testing.TB) *store.DB {
	t.Helper()
	db := OpenDSN(t, DSN(t))
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate the test database: %v", err)
	}
	return db
}

// OpenDSN opens dsn (from DSN) without migrating it, closed when the test
// ends; call it several times for several processes on one database.
func OpenDSN(t testing.TB, dsn string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open the test database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// SQL opens dsn (from DSN) with database/sql directly, bypassing package
// store, as another process would; closed when the test ends. On SQLite it
// waits up to 10 s for a lock, like store does.
func SQL(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	driver, source := "pgx", dsn
	if p, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		driver, source = "sqlite", "file:"+p+"?_pragma=busy_timeout(10000)"
	} else if u, err := url.Parse(dsn); err == nil {
		q := u.Query()
		q.Del("pool_max_conns") // Flagship's, not a server setting
		u.RawQuery = q.Encode()
		source = u.String()
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// DSN returns the DSN of a fresh, empty (not migrated) database, for
// store.Open: a SQLite file, or a PostgreSQL schema that is dropped when the
// test ends. Without FLAGSHIP_TEST_POSTGRES a PostgreSQL test is skipped.
func DSN(t testing.TB) string {
	t.Helper()
	switch b := Backend(); b {
	case "sqlite":
		return "sqlite:" + filepath.Join(t.TempDir(), "flagship.db")
	case "postgres":
		return pgSchema(t)
	default:
		t.Fatalf("%s=%q: want sqlite or postgres", BackendEnv, b)
		return ""
	}
}

// Main runs a package's tests and then drops the package's PostgreSQL
// database, if one was created. Call it from TestMain:
//
//	func TestMain(m *testing.M) { storetest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if err := dropDatabase(); err != nil {
		fmt.Fprintf(os.Stderr, "storetest: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// The package's PostgreSQL database: created once, on first use.
var pg struct {
	once   sync.Once
	err    error
	server *sql.DB // the server's maintenance database, to create and drop ours
	db     *sql.DB // our database, to create and drop schemas
	dbName string
	dsn    *url.URL // our database, for store.Open
	n      atomic.Int64
}

func pgSchema(t testing.TB) string {
	t.Helper()
	if os.Getenv(PostgresEnv) == "" {
		t.Skipf("PostgreSQL tests need a server: set %s=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable (a role that may create databases)", PostgresEnv)
	}
	pg.once.Do(func() { pg.err = createDatabase(os.Getenv(PostgresEnv)) })
	if pg.err != nil {
		t.Fatalf("storetest: %v", pg.err)
	}
	ctx := context.Background()
	schema := fmt.Sprintf("t%d_%s", pg.n.Add(1), randomHex(4))
	if _, err := pg.db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("storetest: create schema: %v", err)
	}
	t.Cleanup(func() {
		// Connections the test left open would hold locks on the schema's
		// tables: DROP waits for them, within reason.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := pg.db.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("storetest: drop schema %s: %v", schema, err)
		}
	})
	u := *pg.dsn
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func createDatabase(server string) error {
	su, err := url.Parse(server)
	if err != nil || (su.Scheme != "postgres" && su.Scheme != "postgresql") {
		return fmt.Errorf("%s is not a postgres:// URL", PostgresEnv)
	}
	ctx := context.Background()
	sq := su.Query()
	sq.Del("pool_max_conns") // Flagship's, not a server setting
	su.RawQuery = sq.Encode()
	pg.server, err = sql.Open("pgx", su.String())
	if err != nil {
		return err
	}
	pg.server.SetMaxOpenConns(1)
	pkg := filepath.Base(os.Args[0]) // e.g. store.test
	pkg = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(strings.TrimSuffix(pkg, ".test")))
	pg.dbName = fmt.Sprintf("flagship_test_%s_%s", pkg, randomHex(6))
	if _, err := pg.server.ExecContext(ctx, "CREATE DATABASE "+pg.dbName); err != nil {
		pg.server.Close()
		pg.dbName = ""
		return fmt.Errorf("create database (is %s right?): %w", PostgresEnv, err)
	}
	u := *su
	u.Path = "/" + pg.dbName
	q := u.Query()
	if !q.Has("pool_max_conns") {
		// Parallel tests of parallel packages share max_connections (100
		// by default).
		q.Set("pool_max_conns", "8")
	}
	u.RawQuery = q.Encode()
	pg.dsn = &u
	admin := u
	aq := admin.Query()
	aq.Del("pool_max_conns")
	admin.RawQuery = aq.Encode()
	pg.db, err = sql.Open("pgx", admin.String())
	if err != nil {
		return err
	}
	pg.db.SetMaxOpenConns(2)
	return nil
}

func dropDatabase() error {
	if pg.dbName == "" {
		return nil
	}
	if pg.db != nil {
		pg.db.Close()
	}
	defer pg.server.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// FORCE: a test that failed may have left connections open.
	if _, err := pg.server.ExecContext(ctx, "DROP DATABASE IF EXISTS "+pg.dbName+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", pg.dbName, err)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
