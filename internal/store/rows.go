package store

import (
	"context"

	"github.com/flagshipctf/flagship/internal/ctf"
)

type scanner interface{ Scan(...any) error }

func dumpRows(ctx context.Context, tx *sqlTx, query string, fn func(scanner) error) error {
	return eachRow(ctx, tx, query, fn)
}

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
