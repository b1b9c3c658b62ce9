package platform

import "github.com/flagshipctf/flagship/internal/store"

// dbStores is the database as Store: *store.DB's own operations and those
// of each of its areas, promoted into one method set.
type dbStores struct {
	*store.DB
	store.Accounts
	store.Play
	store.Content
	store.Hooks
}

func storesOf(db *store.DB) dbStores {
	return dbStores{DB: db, Accounts: db.Accounts(), Play: db.Play(), Content: db.Content(), Hooks: db.Hooks()}
}

var _ Store = dbStores{}
