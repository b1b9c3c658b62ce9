package store

import "context"

// Internals for the tests of package store_test, which import storetest
// (itself importing store, so they cannot be in package store).

var (
	IsUniqueViolation  = isUniqueViolation
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
