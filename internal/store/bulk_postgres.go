package store

import (
	"context"
	"fmt"
	"iter"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// bulkLoadPostgres is BulkLoad on PostgreSQL: one transaction on one
// connection, each table streamed with COPY (binary), foreign keys checked
// row by row as usual. Then ANALYZE, as autovacuum would do within a
// minute anyway, so the first queries after a load get good plans.
func (db *DB) bulkLoadPostgres(ctx context.Context, b *Bulk) (BulkReport, error) {
	var rep BulkReport
	conn, err := db.w.raw.Conn(ctx)
	if err != nil {
		return rep, fmt.Errorf("bulk load: %w", err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		pc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		return bulkCopy(ctx, pc.Conn(), b, &rep)
	})
	if err != nil {
		return rep, err
	}
	if _, err := conn.ExecContext(ctx, "ANALYZE users, challenges, flags, prerequisites, solves, reviews, writeups, api_keys, attempts"); err != nil {
		return rep, fmt.Errorf("bulk load: analyze: %w", err)
	}
	return rep, nil
}

func bulkCopy(ctx context.Context, c *pgx.Conn, b *Bulk, rep *BulkReport) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return fmt.Errorf("bulk load: begin: %w", err)
	}
	defer tx.Rollback(context.Background())
	// One COPY of millions of rows is one statement: no timeout for this
	// transaction's statements. The load lock keeps two loads apart.
	if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = 0"); err != nil {
		return fmt.Errorf("bulk load: %w", err)
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", loadLockKey); err != nil {
		return fmt.Errorf("bulk load: %w", err)
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM challenges)
		+ (SELECT count(*) FROM solves) + (SELECT count(*) FROM attempts)`).Scan(&n); err != nil {
		return fmt.Errorf("bulk load: %w", err)
	}
	if n > 0 {
		return errBulkNotEmpty()
	}
	for _, t := range bulkTables(b, rep) {
		next, stop := iter.Pull2(t.rows)
		var rowErr error
		src := pgx.CopyFromFunc(func() ([]any, error) {
			row, err, ok := next()
			if !ok {
				return nil, nil
			}
			if err != nil {
				rowErr = err
			}
			return row, err
		})
		copied, err := tx.CopyFrom(ctx, pgx.Identifier{t.name}, t.cols, src)
		stop()
		if rowErr != nil {
			return rowErr // the row's own error, not COPY's wrapping of it
		}
		if err != nil {
			return fmt.Errorf("bulk load %s: %w", t.name, err)
		}
		*t.count = copied
	}
	if _, err := tx.Exec(ctx, bumpRevisionSQL); err != nil {
		return fmt.Errorf("bump revision: %w", err)
	}
	if _, err := tx.Exec(ctx, "SELECT pg_notify('flagship_changes', '')"); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("bulk load: commit: %w", err)
	}
	return nil
}
