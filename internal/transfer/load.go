// Package transfer moves a whole event between the dataset format and the
// database: Load upserts a dataset into the store in one transaction,
// Dump reads the store back as a dataset. The file format is the
// dataset package's, the SQL the store's; this package turns the one into
// the other (natural keys into ids, entries into rows) and names the entry
// at fault when a dataset cannot be loaded.
package transfer

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
)

// LoadReport counts, per kind of entry, what a load created, updated and
// left alone.
type LoadReport struct {
	Created   map[string]int `json:"created"`
	Updated   map[string]int `json:"updated"`
	Unchanged map[string]int `json:"unchanged"`
	// Refused are the challenges left out (flagship load --skip-invalid).
	Refused []dataset.Refusal `json:"refused,omitempty"`
}

func (r *LoadReport) count(kind string, created, changed bool) {
	switch {
	case created:
		r.Created[kind]++
	case changed:
		r.Updated[kind]++
	default:
		r.Unchanged[kind]++
	}
}

// DB is what Load and Dump need of the database; *store.DB is one.
type DB interface {
	InLoad(ctx context.Context, fn func(*store.LoadTx) error) error
	InDump(ctx context.Context, fn func(*store.DumpTx) error) error
}

// Load upserts a dataset by natural keys (username, slug, user and
// challenge, an announcement's id or title, a webhook's id or name) in one
// transaction: on any error nothing is written, and the error (a
// *dataset.Error) names the file, entry and field at fault. The event's
// settings are replaced when the dataset gives them. It bumps the
// revision, so every replica rebuilds its state from the database,
// settings and announcements included.
func Load(ctx context.Context, db DB, ds *dataset.Dataset) (LoadReport, error) {
	rep := LoadReport{Created: map[string]int{}, Updated: map[string]int{}, Unchanged: map[string]int{}}
	err := db.InLoad(ctx, func(tx *store.LoadTx) error {
		l := &loader{tx: tx, ds: ds, rep: &rep, now: tx.Now(), users: map[string]string{}, chals: map[string]string{}}
		steps := []func() error{l.loadEvent, l.loadUsers, l.loadTwoFactor, l.loadChallenges, l.loadSolves, l.loadAttempts, l.loadWriteups,
			l.loadReviews, l.loadHintUnlocks, l.loadAnnouncements, l.loadPages, l.loadWebhooks, l.loadSharing, l.loadSecrets}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	})
	return rep, err
}

type loader struct {
	tx    *store.LoadTx
	ds    *dataset.Dataset
	rep   *LoadReport
	now   time.Time
	users map[string]string // username -> id
	chals map[string]string // slug -> id
	// solved holds the (user id, challenge id) of the dataset's solves,
	// which its writeups and reviews need.
	solved map[[2]string]bool
}

// fresh reports whether table holds no row yet: then no entry of the
// dataset can match a stored one, and the load skips looking.
func (l *loader) fresh(table string) (bool, error) { return l.tx.Empty(table) }

func (l *loader) fail(kind string, i int, field, format string, args ...any) error {
	file, entry := l.ds.Where(kind, i)
	return &dataset.Error{File: file, Entry: entry, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func (l *loader) stamp(t *time.Time) time.Time {
	if t == nil {
		return l.now
	}
	return ctf.Millis(*t)
}

func (l *loader) userID(username string) (string, error) {
	if id, ok := l.users[username]; ok {
		return id, nil
	}
	id, err := l.tx.Accounts().UserID(username)
	if id != "" {
		l.users[username] = id
	}
	return id, err
}

func (l *loader) chalID(slug string) (string, error) {
	if id, ok := l.chals[slug]; ok {
		return id, nil
	}
	id, err := l.tx.Content().ChallengeID(slug)
	if id != "" {
		l.chals[slug] = id
	}
	return id, err
}

// refs resolves an entry's user and challenge, failing on unknown ones.
func (l *loader) refs(kind string, i int, username, slug string) (uid, cid string, err error) {
	if uid, err = l.userID(username); err != nil {
		return
	}
	if uid == "" {
		return "", "", l.fail(kind, i, "user", "no user %q in the dataset or the database", username)
	}
	if cid, err = l.chalID(slug); err != nil {
		return
	}
	if cid == "" {
		return "", "", l.fail(kind, i, "challenge", "no challenge %q in the dataset or the database", slug)
	}
	return uid, cid, nil
}

func (l *loader) loadUsers() error {
	// An empty table (a restore, a first load): the users go into
	// multi-row INSERTs, their API keys after them.
	fresh, err := l.fresh("users")
	if err != nil {
		return err
	}
	hashes, err := l.passwordHashes(fresh)
	if err != nil {
		return err
	}
	ins := l.tx.Accounts().NewUsers()
	var keyed []int // users with API keys, loaded after the users when fresh
	for i, u := range l.ds.Users {
		var old ctf.User
		exists := false
		if !fresh {
			if old, exists, err = l.tx.Accounts().User(u.Username); err != nil {
				return fmt.Errorf("load user %q: %w", u.Username, err)
			}
		}
		nu := old
		if !exists {
			nu = ctf.User{ID: u.ID, Username: u.Username, CreatedAt: l.stamp(u.CreatedAt), Role: ctf.RolePlayer}
			if nu.ID == "" {
				nu.ID = ctf.NewID()
			}
		} else if u.CreatedAt != nil {
			nu.CreatedAt = ctf.Millis(*u.CreatedAt)
		}
		nu.Name, nu.Email, nu.Banned, nu.BanReason, nu.EmailUnverified = u.Name, u.Email, u.Banned, u.BanReason, u.EmailUnverified
		if u.Role != "" {
			nu.Role = u.Role
		}
		nu.Kind, nu.OwnerID, nu.Model, nu.Harness = ctf.KindHuman, "", "", ""
		if u.Kind == ctf.KindAgent {
			nu.Kind, nu.Model, nu.Harness = ctf.KindAgent, u.Model, u.Harness
			if nu.OwnerID, err = l.userID(u.Owner); err != nil {
				return err
			}
			if nu.OwnerID == "" || nu.OwnerID == nu.ID {
				return l.fail("users", i, "owner", "no user %q listed before this agent or in the database", u.Owner)
			}
		}
		switch {
		case u.PasswordHash != "":
			// Checked again here for a dataset built in code: a hash
			// says what checking a password against it costs.
			if err := secret.ValidatePasswordHash(u.PasswordHash); err != nil {
				return l.fail("users", i, "passwordHash", "%v", err)
			}
			nu.PasswordHash = u.PasswordHash
		case hashes[i] != "":
			nu.PasswordHash = hashes[i]
		}
		l.users[u.Username] = nu.ID
		if fresh {
			// The dataset's usernames, emails and ids are unique (Validate)
			// and the table is empty: nothing can conflict.
			if err := ins.Add(nu); err != nil {
				return fmt.Errorf("load user %q: %w", u.Username, err)
			}
			l.rep.count("users", true, false)
			if len(u.APIKeys) > 0 {
				keyed = append(keyed, i)
			}
			continue
		}
		// A failure leaves the transaction usable: it is explained by a
		// further query.
		err = l.tx.Accounts().UpsertUser(nu)
		if store.IsUniqueViolation(err) {
			if other, err := l.tx.Accounts().OtherCaseUsername(u.Username); err == nil {
				return l.fail("users", i, "username", "differs only in case from the user %q: usernames are unique ignoring case", other)
			}
			if other, err := l.tx.Accounts().UsernameOfID(nu.ID); err == nil && other != u.Username {
				return l.fail("users", i, "id", "id %q already belongs to user %q", nu.ID, other)
			}
			return l.fail("users", i, "email", "email %q already belongs to another user", u.Email)
		}
		if err != nil {
			return fmt.Errorf("load user %q: %w", u.Username, err)
		}
		l.rep.count("users", !exists, exists && nu != old)
		for j, k := range u.APIKeys {
			if err := l.apiKey(i, j, nu.ID, k); err != nil {
				return err
			}
		}
	}
	if err := ins.Flush(); err != nil {
		return fmt.Errorf("load users: %w", err)
	}
	for _, i := range keyed {
		u := l.ds.Users[i]
		for j, k := range u.APIKeys {
			if err := l.apiKey(i, j, l.users[u.Username], k); err != nil {
				return err
			}
		}
	}
	return nil
}

// passwordHashes hashes the users' plaintext passwords, on every core:
// argon2id is made to be slow. Item i is the new hash of user i, or ""
// when the user gives none or the stored hash already matches.
func (l *loader) passwordHashes(fresh bool) ([]string, error) {
	hashes := make([]string, len(l.ds.Users))
	var todo []int
	stored := map[int]string{}
	for i, u := range l.ds.Users {
		if u.Password == "" || u.PasswordHash != "" {
			continue
		}
		todo = append(todo, i)
		if fresh {
			continue
		}
		h, err := l.tx.Accounts().PasswordHash(u.Username)
		if err != nil {
			return nil, fmt.Errorf("load user %q: %w", u.Username, err)
		}
		stored[i] = h
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(len(todo), runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				if pw := l.ds.Users[i].Password; !secret.CheckPassword(stored[i], pw) {
					hashes[i] = secret.HashPassword(pw)
				}
			}
		})
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	return hashes, nil
}

func (l *loader) apiKey(i, j int, userID string, k dataset.APIKey) error {
	field := fmt.Sprintf("apiKeys[%d]", j)
	old, exists, err := l.tx.Accounts().APIKey(k.ID)
	if err != nil {
		return fmt.Errorf("load API key %q: %w", k.ID, err)
	}
	if exists && old.UserID != userID {
		return l.fail("users", i, field+".id", "API key %q belongs to another user", k.ID)
	}
	if exists && (old.Prefix != k.KeyPrefix || old.Hash != k.KeyHash) {
		return l.fail("users", i, field+".keyHash", "API key %q exists with another prefix or hash; a key's secret cannot change", k.ID)
	}
	nk := ctf.APIKey{ID: k.ID, UserID: userID, Name: k.Name, Prefix: k.KeyPrefix, Hash: k.KeyHash, CreatedAt: l.stamp(k.CreatedAt),
		LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt, ReadOnly: k.ReadOnly}
	if exists {
		// A file never brings a revoked key back to life, nor forgets a
		// later use.
		if k.CreatedAt == nil {
			nk.CreatedAt = old.CreatedAt
		}
		if nk.RevokedAt == nil {
			nk.RevokedAt = old.RevokedAt
		}
		// Nor makes a read-only key able to submit.
		nk.ReadOnly = nk.ReadOnly || old.ReadOnly
		if old.LastUsedAt != nil && (nk.LastUsedAt == nil || old.LastUsedAt.After(*nk.LastUsedAt)) {
			nk.LastUsedAt = old.LastUsedAt
		}
	}
	err = l.tx.Accounts().UpsertAPIKey(nk)
	if store.IsUniqueViolation(err) {
		return l.fail("users", i, field+".keyPrefix", "key prefix %q is already used by another key", k.KeyPrefix)
	}
	if err != nil {
		return fmt.Errorf("load API key %q: %w", k.ID, err)
	}
	changed := exists && (old.Name != nk.Name || !old.CreatedAt.Equal(nk.CreatedAt) || !sameTime(old.LastUsedAt, nk.LastUsedAt) ||
		!sameTime(old.RevokedAt, nk.RevokedAt) || old.ReadOnly != nk.ReadOnly)
	l.rep.count("apiKeys", !exists, changed)
	return nil
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// orNewID is id, or a new one for an entry without.
func orNewID(id string) string {
	if id == "" {
		return ctf.NewID()
	}
	return id
}
