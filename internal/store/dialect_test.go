package store_test

import (
	"testing"

	"github.com/flagshipctf/flagship/internal/store"
)

func TestDollarPlaceholders(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT ?", "SELECT $1"},
		{"INSERT INTO t (a, b, c) VALUES (?, ?, ?)", "INSERT INTO t (a, b, c) VALUES ($1, $2, $3)"},
		{"(?,?),(?,?),(?,?),(?,?),(?,?)", "($1,$2),($3,$4),($5,$6),($7,$8),($9,$10)"},
		{"SELECT '?' || ?", "SELECT '?' || $1"},
		{"SELECT 'it''s ?', ? WHERE a = '?'", "SELECT 'it''s ?', $1 WHERE a = '?'"},
		{"UPDATE meta SET value = ? WHERE key = 'revision' AND x = ?", "UPDATE meta SET value = $1 WHERE key = 'revision' AND x = $2"},
	} {
		if got := store.DollarPlaceholders(c.in); got != c.want {
			t.Errorf("DollarPlaceholders(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPostgresConfig(t *testing.T) {
	for _, c := range []struct {
		dsn      string
		want     string
		maxConns int
		err      bool
	}{
		{dsn: "postgres://u:p@h:5432/db", want: "postgres://u:p@h:5432/db?statement_timeout=5s", maxConns: 16},
		{dsn: "postgresql://h/db?sslmode=disable&pool_max_conns=3", want: "postgresql://h/db?sslmode=disable&statement_timeout=5s", maxConns: 3},
		{dsn: "postgres://h/db?statement_timeout=250ms&pool_max_conns=40", want: "postgres://h/db?statement_timeout=250ms", maxConns: 40},
		{dsn: "postgres://h/db?statement_timeout=0", want: "postgres://h/db?statement_timeout=0", maxConns: 16},
		{dsn: "postgres://h/db?pool_max_conns=0", err: true},
		{dsn: "postgres://h/db?pool_max_conns=many", err: true},
	} {
		got, n, err := store.PostgresConfig(c.dsn)
		if c.err {
			if err == nil {
				t.Errorf("PostgresConfig(%q): no error", c.dsn)
			}
			continue
		}
		if err != nil || got != c.want || n != c.maxConns {
			t.Errorf("PostgresConfig(%q) = %q, %d, %v; want %q, %d", c.dsn, got, n, err, c.want, c.maxConns)
		}
	}
}
