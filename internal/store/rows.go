package store

import (
	"context"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// scanner is a row to read: a *sql.Row or the current row of *sql.Rows.
type scanner interface{ Scan(...any) error }

// eachRow calls fn for each row query returns.
func eachRow(ctx context.Context, q querier, query string, fn func(scanner) error, args ...any) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return unavailable(rows.Err())
}

func newID() string { return ctf.NewID() }
