package store

import (
	"strings"
)

// Each table that more than one path writes or reads has its columns
// listed once, with the function that turns a value into them (and, for
// reads, back): the single-row writes, the load, BulkLoad, the snapshot
// and the dump all use that list, so adding a column is one edit here.

// insertSQL is the INSERT of one row of cols into table.
func insertSQL(table string, cols []string) string {
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" +
		strings.Repeat("?, ", len(cols)-1) + "?)"
}

// upsertSQL is the INSERT of one row of cols into table that, on a
// conflict over the unique key, updates every other column but keep.
func upsertSQL(table string, cols []string, key string, keep ...string) string {
	var b strings.Builder
	b.WriteString(insertSQL(table, cols))
	b.WriteString(" ON CONFLICT (" + key + ") DO UPDATE SET ")
	first := true
	for _, c := range cols {
		if c == key || contains(keep, c) {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(c + " = excluded." + c)
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
