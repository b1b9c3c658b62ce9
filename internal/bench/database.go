package bench

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// DBEnv names the environment variable that moves the benchmarks to
// PostgreSQL: a server URL on which the benchmark process may create a
// database, e.g.
//
//	FLAGSHIP_BENCH_DB='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
//
// Unset (or "sqlite"), the event goes into a SQLite file in a temporary
// directory, as before.
const DBEnv = "FLAGSHIP_BENCH_DB"

// Database is a fresh, empty database for one benchmark process.
type Database struct {
	Backend string // "sqlite" or "postgres"
	DSN     string // for store.Open (and `flagship --db`)
	Name    string // the PostgreSQL database's name; the SQLite file's path

	server string // PostgreSQL: the server URL it was created on
}

// NamePrefix starts the name of every database NewDatabase creates on
// PostgreSQL; the creating process's id follows, so that a later run can
// tell a leftover (its process gone, e.g. killed by go test's -timeout) from
// a database in use.
const NamePrefix = "flagship_bench_p"

var benchName = regexp.MustCompile(`^` + NamePrefix + `([0-9]+)_[0-9a-f]+$`)

// NewDatabase returns a fresh, empty database: with server "" or "sqlite" a
// SQLite file in dir; with a postgres:// URL a new database on that server
// with a random name (NamePrefix, the process id, random hex), whose DSN
// keeps the URL's options (sslmode, pool_max_conns, statement_timeout).
// Drop removes it.
func NewDatabase(ctx context.Context, server, dir string) (*Database, error) {
	if server == "" || server == "sqlite" {
		p := filepath.Join(dir, "bench.db")
		return &Database{Backend: "sqlite", DSN: "sqlite:" + p, Name: p}, nil
	}
	return CreatePostgres(ctx, server, os.Getpid())
}

// CreatePostgres creates a database with a fresh name on server for the
// process owner (whose id goes into the name: once that process is gone,
// a later CreatePostgres on this machine drops the database as a leftover).
func CreatePostgres(ctx context.Context, server string, owner int) (*Database, error) {
	su, err := serverURL(server)
	if err != nil {
		return nil, err
	}
	admin, err := sql.Open("pgx", su.String())
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	admin.SetMaxOpenConns(1)
	dropLeftovers(ctx, admin, su)
	var b [6]byte
	rand.Read(b[:])
	name := fmt.Sprintf("%s%d_%s", NamePrefix, owner, hex.EncodeToString(b[:]))
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return nil, fmt.Errorf("create database on %s (may that role create databases?): %w", su.Redacted(), err)
	}
	u, _ := url.Parse(server) // parsed once already by serverURL
	u.Path = "/" + name
	return &Database{Backend: "postgres", DSN: u.String(), Name: name, server: server}, nil
}

// Drop removes a PostgreSQL database (closing any connection still open
// to it); a SQLite file goes with the caller's directory.
func (d *Database) Drop() error {
	if d == nil || d.Backend != "postgres" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return DropDatabase(ctx, d.server, d.Name)
}

// DropDatabase drops the database name on server, WITH (FORCE): whatever
// a benchmark or a replica left connected is disconnected.
func DropDatabase(ctx context.Context, server, name string) error {
	if !benchName.MatchString(name) {
		return fmt.Errorf("refusing to drop %q: not a name NewDatabase makes", name)
	}
	su, err := serverURL(server)
	if err != nil {
		return err
	}
	admin, err := sql.Open("pgx", su.String())
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// serverURL checks a postgres:// URL and drops the options that are
// Flagship's own, which the server would refuse.
func serverURL(server string) (*url.URL, error) {
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("%s: want a postgres:// URL of a server (or nothing for SQLite)", DBEnv)
	}
	q := u.Query()
	q.Del("pool_max_conns")
	u.RawQuery = q.Encode()
	return u, nil
}

// dropLeftovers drops the benchmark databases of processes that are gone
// (a run killed by go test's -timeout, or by a signal, cannot drop its
// own). Only on a server on this machine's loopback, where the process ids
// in the names are this machine's; errors are ignored (best effort).
func dropLeftovers(ctx context.Context, admin *sql.DB, su *url.URL) {
	host := su.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return
	}
	rows, err := admin.QueryContext(ctx, "SELECT datname FROM pg_database WHERE datname LIKE 'flagship\\_bench\\_p%'")
	if err != nil {
		return
	}
	var stale []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) != nil {
			continue
		}
		m := benchName.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			stale = append(stale, name)
		}
	}
	rows.Close()
	for _, name := range stale {
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err == nil {
			fmt.Fprintf(os.Stderr, "bench: dropped %s, left over by a process that is gone\n", name)
		}
	}
}

// Size is the database's size on disk, for the record.
func (d *Database) Size(ctx context.Context) (int64, error) {
	if d.Backend == "sqlite" {
		var n int64
		for _, suffix := range []string{"", "-wal"} {
			if fi, err := os.Stat(d.Name + suffix); err == nil {
				n += fi.Size()
			}
		}
		return n, nil
	}
	return PostgresSize(ctx, d.server, d.Name)
}

// PostgresSize is the size of the database name on server, in bytes.
func PostgresSize(ctx context.Context, server, name string) (int64, error) {
	su, err := serverURL(server)
	if err != nil {
		return 0, err
	}
	admin, err := sql.Open("pgx", su.String())
	if err != nil {
		return 0, err
	}
	defer admin.Close()
	var n int64
	err = admin.QueryRowContext(ctx, "SELECT pg_database_size($1)", name).Scan(&n)
	return n, err
}
