package store

import (
	"context"
	"database/sql"
	"errors"

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

// allRows reads every row query returns with scan.
func allRows[T any](ctx context.Context, q querier, query string, scan func(scanner) (T, error), args ...any) ([]T, error) {
	var out []T
	err := eachRow(ctx, q, query, func(sc scanner) error {
		v, err := scan(sc)
		out = append(out, v)
		return err
	}, args...)
	return out, err
}

// found is the result of a lookup of one row: false, and no error, when
// there was none.
func found[T any](v T, err error) (T, bool, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return v, false, nil
	}
	return v, err == nil, err
}

func newID() string { return ctf.NewID() }
