package store

import (
	"context"
	"fmt"
)

// Internals for the tests of package store_test, which import storetest
// (itself importing store, so they cannot be in package store).

var (
	DollarPlaceholders = dollarPlaceholders
	PostgresConfig     = postgresConfig
)

// SetBulkTxRows makes BulkLoad commit every n rows on SQLite, and returns
// the function that restores the default.
func SetBulkTxRows(n int) (restore func()) {
	old := bulkTxRows
	bulkTxRows = n
	return func() { bulkTxRows = old }
}

// ExecSQL runs a statement through the dialect seam, for tests that need a
// database error of a given kind.
func (db *DB) ExecSQL(ctx context.Context, query string, args ...any) error {
	_, err := db.w.ExecContext(ctx, query, args...)
	return err
}

// QueryString returns the one text value a query returns.
func (db *DB) QueryString(ctx context.Context, query string, args ...any) (string, error) {
	var s string
	err := db.r.QueryRowContext(ctx, query, args...).Scan(&s)
	return s, err
}

// SubmissionSettings returns a setting as the write transaction of a submission
// sees it just before committing (SQLite: a PRAGMA on the writer
// connection; PostgreSQL: SHOW inside the transaction), for each of a
// wrong and a right flag.
func (db *DB) SubmissionSettings(ctx context.Context, query string, s Submission) (wrong, right string, err error) {
	var got []string
	testHookBeforeSubmitCommit = func(ctx context.Context, tx *sqlTx) {
		var v string
		if err := tx.QueryRowContext(ctx, query).Scan(&v); err != nil {
			v = "error: " + err.Error()
		}
		got = append(got, v)
	}
	defer func() { testHookBeforeSubmitCommit = nil }()
	s.Correct = false
	if _, err := db.Play().RecordSubmission(ctx, s, RateLimit{}); err != nil {
		return "", "", err
	}
	s.Correct = true
	if _, err := db.Play().RecordSubmission(ctx, s, RateLimit{}); err != nil {
		return "", "", err
	}
	return got[0], got[1], nil
}

// MigrateTo applies the migrations up to and including last, as a
// database made by an older release has them.
func (db *DB) MigrateTo(ctx context.Context, last string) error { return db.migrate(ctx, last) }

// Revision returns the counter that every operator change to the event
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
