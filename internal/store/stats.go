package store

import "database/sql"

// PoolStats returns the statistics of the connection pools, for metrics.
// SQLite has a writer (one connection, so writes queue here) and a pool of
// readers; PostgreSQL has one pool serving both, reported once as writer
// with shared true, so a sum over pools counts each connection once.
func (db *DB) PoolStats() (writer, reader sql.DBStats, shared bool) {
	if db.r == db.w {
		return db.w.raw.Stats(), sql.DBStats{}, true
	}
	return db.w.raw.Stats(), db.r.raw.Stats(), false
}
