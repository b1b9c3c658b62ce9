package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/secret"
)

// LoadReport counts, per kind of entry, what a load created, updated and
// left alone.
type LoadReport struct {
	Created   map[string]int `json:"created"`
	Updated   map[string]int `json:"updated"`
	Unchanged map[string]int `json:"unchanged"`
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

// Load upserts a dataset by natural keys (username, slug, user and
// challenge, an announcement's id or title, a webhook's id or name) in one
// transaction: on any
// error nothing is written, and the error names the file, entry and field
// at fault. The event's settings are replaced when the dataset gives them.
// It bumps the revision, so every replica rebuilds its state from the
// database, settings and announcements included.
func (db *DB) Load(ctx context.Context, ds *dataset.Dataset) (LoadReport, error) {
	rep := LoadReport{Created: map[string]int{}, Updated: map[string]int{}, Unchanged: map[string]int{}}
	err := db.loadTx(ctx, func(tx *sqlTx) error {
		if err := lockLoads(ctx, tx); err != nil {
			return fmt.Errorf("load: %w", err)
		}
		l := &loader{ctx: ctx, tx: tx, ds: ds, rep: &rep, now: ctf.Millis(db.now()),
			users: map[string]string{}, chals: map[string]string{}, bulk: &bulkLoader{ctx: ctx, tx: tx}}
		defer l.closeStmts()
		steps := []func() error{l.loadEvent, l.loadUsers, l.loadTwoFactor, l.loadChallenges, l.loadSolves, l.loadAttempts, l.loadWriteups,
			l.loadReviews, l.loadAnnouncements, l.loadWebhooks}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return bumpRevision(ctx, tx)
	})
	return rep, err
}

// loadTx runs fn in the load's one write transaction. On SQLite it takes
// the writer connection for itself and sets it up for a transaction of
// many rows: foreign keys are checked once before the commit (PRAGMA
// foreign_key_check) instead of by every statement, since SQLite checks an
// immediate foreign key of a multi-row INSERT at the end of the statement
// and keeps a statement journal to undo it, which costs more than the
// inserts; and a larger page cache, since with the default 2 MB such a
// transaction spills its pages to the log and reads them back for every
// index insert. Durability is untouched: the commit syncs as any other.
func (db *DB) loadTx(ctx context.Context, fn func(*sqlTx) error) error {
	if db.dialect.postgres() {
		return db.writeTx(ctx, fn)
	}
	raw, err := db.w.raw.Conn(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", unavailable(err))
	}
	defer raw.Close()
	conn := &sqlConn{raw: raw, d: db.dialect}
	var cache int64
	if err := raw.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&cache); err != nil {
		return fmt.Errorf("begin: %w", unavailable(err))
	}
	defer func() {
		// Back to the settings Open gave the connection, or never reuse it.
		for _, p := range []string{"PRAGMA foreign_keys = ON", fmt.Sprintf("PRAGMA cache_size = %d", cache)} {
			if _, err := raw.ExecContext(context.Background(), p); err != nil {
				discardConn(raw)
				return
			}
		}
	}()
	for _, p := range []string{"PRAGMA foreign_keys = OFF", "PRAGMA cache_size = -32768"} {
		if _, err := raw.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("begin: %w", unavailable(err))
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	if err := (&bulkLoader{ctx: ctx, tx: tx}).foreignKeyCheck(); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

type loader struct {
	ctx   context.Context
	tx    *sqlTx
	ds    *dataset.Dataset
	rep   *LoadReport
	now   time.Time
	users map[string]string // username -> id
	chals map[string]string // slug -> id
	bulk  *bulkLoader       // for the multi-row INSERTs of new rows
	stmts map[string]*sql.Stmt
	// solved holds the (user id, challenge id) of the dataset's solves,
	// which its writeups and reviews need.
	solved map[[2]string]bool
}

// stmt returns query prepared in the load's transaction, once: the per-row
// lookups run hundreds of thousands of times.
func (l *loader) stmt(query string) (*sql.Stmt, error) {
	if st, ok := l.stmts[query]; ok {
		return st, nil
	}
	st, err := l.tx.PrepareContext(l.ctx, query)
	if err != nil {
		return nil, unavailable(err)
	}
	if l.stmts == nil {
		l.stmts = map[string]*sql.Stmt{}
	}
	l.stmts[query] = st
	return st, nil
}

func (l *loader) closeStmts() {
	for _, st := range l.stmts {
		st.Close()
	}
	for _, b := range l.bulk.stmts {
		b.close()
	}
}

// fresh reports whether table holds no row yet: then no entry of the
// dataset can match a stored one, and the load skips looking.
func (l *loader) fresh(table string) (bool, error) {
	var n int
	err := l.tx.QueryRowContext(l.ctx, "SELECT count(*) FROM (SELECT 1 FROM "+table+" LIMIT 1) t").Scan(&n)
	if err != nil {
		return false, fmt.Errorf("load %s: %w", table, err)
	}
	return n == 0, nil
}

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
	var id string
	err := l.tx.QueryRowContext(l.ctx, "SELECT id FROM users WHERE username = ?", username).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look up user %q: %w", username, err)
	}
	l.users[username] = id
	return id, nil
}

func (l *loader) chalID(slug string) (string, error) {
	if id, ok := l.chals[slug]; ok {
		return id, nil
	}
	var id string
	err := l.tx.QueryRowContext(l.ctx, "SELECT id FROM challenges WHERE slug = ?", slug).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look up challenge %q: %w", slug, err)
	}
	l.chals[slug] = id
	return id, nil
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
	var n int64
	ins := l.bulk.inserter("users", "id, username, name, email, email_lower, password_hash, role, banned, created_at, kind, owner_id, model, harness", &n)
	var keyed []int // users with API keys, loaded after the users when fresh
	for i, u := range l.ds.Users {
		var old ctf.User
		exists := false
		if !fresh {
			old, err = scanUser(l.tx.QueryRowContext(l.ctx, "SELECT "+userColumns+" FROM users WHERE username = ?", u.Username))
			exists = err == nil
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
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
		nu.Name, nu.Email, nu.Banned = u.Name, u.Email, u.Banned
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
			if err := ins.add(nu.ID, nu.Username, nu.Name, nullString(nu.Email), nullString(strings.ToLower(nu.Email)), nu.PasswordHash,
				nu.Role, nu.Banned, ms(nu.CreatedAt), nu.Kind, nullString(nu.OwnerID), nu.Model, nu.Harness); err != nil {
				return fmt.Errorf("load user %q: %w", u.Username, err)
			}
			l.rep.count("users", true, false)
			if len(u.APIKeys) > 0 {
				keyed = append(keyed, i)
			}
			continue
		}
		// In a savepoint: a failure is explained by a further query.
		err = l.tx.savepoint(l.ctx, func() error {
			_, err := l.tx.ExecContext(l.ctx, `INSERT INTO users (id, username, name, email, email_lower, password_hash, role, banned, created_at,
				kind, owner_id, model, harness)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (username) DO UPDATE SET name = excluded.name, email = excluded.email, email_lower = excluded.email_lower,
				password_hash = excluded.password_hash, role = excluded.role, banned = excluded.banned, created_at = excluded.created_at,
				kind = excluded.kind, owner_id = excluded.owner_id, model = excluded.model, harness = excluded.harness`,
				nu.ID, nu.Username, nu.Name, nullString(nu.Email), nullString(strings.ToLower(nu.Email)), nu.PasswordHash, nu.Role, nu.Banned, ms(nu.CreatedAt),
				nu.Kind, nullString(nu.OwnerID), nu.Model, nu.Harness)
			return err
		})
		if isUniqueViolation(err) {
			var other string
			if l.tx.QueryRowContext(l.ctx, "SELECT username FROM users WHERE lower(username) = lower(?) AND username <> ?",
				u.Username, u.Username).Scan(&other) == nil {
				return l.fail("users", i, "username", "differs only in case from the user %q: usernames are unique ignoring case", other)
			}
			if l.tx.QueryRowContext(l.ctx, "SELECT username FROM users WHERE id = ?", nu.ID).Scan(&other) == nil && other != u.Username {
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
	if err := ins.flush(); err != nil {
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
		var h string
		err := l.tx.QueryRowContext(l.ctx, "SELECT password_hash FROM users WHERE username = ?", u.Username).Scan(&h)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
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
	old, err := scanKey(l.tx.QueryRowContext(l.ctx, "SELECT "+keyColumns+" FROM api_keys WHERE id = ?", k.ID))
	exists := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
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
	_, err = l.tx.ExecContext(l.ctx, `INSERT INTO api_keys (id, user_id, name, key_prefix, key_hash, created_at, last_used_at, revoked_at, read_only)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name, created_at = excluded.created_at,
		last_used_at = excluded.last_used_at, revoked_at = excluded.revoked_at, read_only = excluded.read_only`,
		nk.ID, userID, nk.Name, nk.Prefix, nk.Hash, ms(nk.CreatedAt), nullMs(nk.LastUsedAt), nullMs(nk.RevokedAt), nk.ReadOnly)
	if isUniqueViolation(err) {
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

func (l *loader) loadChallenges() error {
	// First pass: every challenge row, so prerequisites can name any of them.
	existed := make([]bool, len(l.ds.Challenges))
	changed := make([]bool, len(l.ds.Challenges))
	for i, c := range l.ds.Challenges {
		var err error
		if existed[i], changed[i], err = l.challenge(i, c); err != nil {
			return err
		}
	}
	for i, c := range l.ds.Challenges {
		id := l.chals[c.Slug]
		want := map[string]bool{}
		for _, req := range c.Requires {
			rid, err := l.challengeNamed("challenges", i, "requires", req)
			if err != nil {
				return err
			}
			if rid == id {
				return l.fail("challenges", i, "requires", "a challenge cannot require itself")
			}
			want[rid] = true
		}
		had, err := l.prerequisites(id)
		if err != nil {
			return err
		}
		if !maps.Equal(had, want) {
			changed[i] = true
			if _, err := l.tx.ExecContext(l.ctx, "DELETE FROM prerequisites WHERE challenge_id = ?", id); err != nil {
				return fmt.Errorf("load prerequisites of %q: %w", c.Slug, err)
			}
			for rid := range want {
				if _, err := l.tx.ExecContext(l.ctx, "INSERT INTO prerequisites (challenge_id, requires_id) VALUES (?, ?)", id, rid); err != nil {
					return fmt.Errorf("load prerequisites of %q: %w", c.Slug, err)
				}
			}
		}
		l.rep.count("challenges", !existed[i], existed[i] && changed[i])
	}
	return nil
}

// challengeNamed resolves a challenge named by slug, or by title as ctfcli
// files name prerequisites, to an id; field of entry i of kind names it.
func (l *loader) challengeNamed(kind string, i int, field, req string) (string, error) {
	rid, err := l.chalID(req)
	if err != nil || rid != "" {
		return rid, err
	}
	rows, err := l.tx.QueryContext(l.ctx, "SELECT id FROM challenges WHERE title = ?", req)
	if err != nil {
		return "", fmt.Errorf("look up challenge titled %q: %w", req, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		if err := rows.Scan(&rid); err != nil {
			return "", err
		}
		ids = append(ids, rid)
	}
	switch len(ids) {
	case 0:
		return "", l.fail(kind, i, field, "no challenge %q in the dataset or the database", req)
	case 1:
		return ids[0], rows.Err()
	}
	return "", l.fail(kind, i, field, "%d challenges are titled %q; name one by its slug", len(ids), req)
}

func (l *loader) prerequisites(id string) (map[string]bool, error) {
	rows, err := l.tx.QueryContext(l.ctx, "SELECT requires_id FROM prerequisites WHERE challenge_id = ?", id)
	if err != nil {
		return nil, fmt.Errorf("load prerequisites: %w", err)
	}
	defer rows.Close()
	had := map[string]bool{}
	for rows.Next() {
		var rid string
		if err := rows.Scan(&rid); err != nil {
			return nil, err
		}
		had[rid] = true
	}
	return had, rows.Err()
}

// storedChallenge reads the challenge with slug and its flags (not
// compiled; prerequisites apart), if there is one.
func (l *loader) storedChallenge(slug string) (ctf.Challenge, bool, error) {
	c, err := scanChallenge(l.tx.QueryRowContext(l.ctx, selectChallenges+"WHERE slug = ?", slug))
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("load challenge %q: %w", slug, err)
	}
	err = eachRow(l.ctx, l.tx, "SELECT kind, content, case_insensitive FROM flags WHERE challenge_id = ? ORDER BY position", func(sc scanner) error {
		var f ctf.Flag
		err := sc.Scan(&f.Kind, &f.Content, &f.CaseInsensitive)
		c.Flags = append(c.Flags, f)
		return err
	}, c.ID)
	if err != nil {
		return c, false, fmt.Errorf("load flags of %q: %w", slug, err)
	}
	return c, true, nil
}

func (l *loader) challenge(i int, c dataset.Challenge) (exists, changed bool, err error) {
	old, exists, err := l.storedChallenge(c.Slug)
	if err != nil {
		return false, false, err
	}
	nc := ctf.Challenge{ID: old.ID, Slug: c.Slug, Title: c.Title, Description: c.Description, Categories: c.Categories,
		Difficulty: c.Difficulty, Points: c.Points, Type: c.Type, Tags: c.Tags, ConnectionInfo: c.ConnectionInfo,
		HasInstance: c.HasInstance, DockerPort: c.DockerPort, Hidden: c.Hidden, CreatedAt: old.CreatedAt}
	if !exists {
		nc.ID = c.ID
		if nc.ID == "" {
			nc.ID = ctf.NewID()
		}
		nc.CreatedAt = l.stamp(c.CreatedAt)
	} else if c.CreatedAt != nil {
		nc.CreatedAt = ctf.Millis(*c.CreatedAt)
	}
	if nc.Type == "" {
		nc.Type = "standard"
	}
	if c.ReleaseAt != nil {
		r := ctf.Millis(*c.ReleaseAt)
		nc.ReleaseAt = &r
	}
	for j, f := range c.Flags {
		cf := ctf.Flag{Kind: f.Type, Content: f.Content, CaseInsensitive: f.Data == "case_insensitive"}
		if err := cf.Compile(); err != nil {
			return false, false, l.fail("challenges", i, fmt.Sprintf("flags[%d]", j), "%v", err)
		}
		nc.Flags = append(nc.Flags, cf)
	}
	if c.Author != "" {
		if nc.AuthorID, err = l.userID(c.Author); err != nil {
			return false, false, err
		}
		if nc.AuthorID == "" && c.Source.Index >= 0 {
			// ctfcli's author is free text; a dataset's must name a user.
			return false, false, l.fail("challenges", i, "author", "no user %q in the dataset or the database", c.Author)
		}
	}
	if f := c.File; f != nil {
		nc.FileName = f.Name
		if f.URL != "" {
			nc.FileURL = f.URL
		} else if nc.FileSHA256, err = l.storeFile(i, f); err != nil {
			return false, false, err
		}
	}
	_, err = l.tx.ExecContext(l.ctx, loadChallengeSQL, challengeValues(nc)...)
	if isUniqueViolation(err) {
		return false, false, l.fail("challenges", i, "id", "id %q already belongs to another challenge", nc.ID)
	}
	if err != nil {
		return false, false, fmt.Errorf("load challenge %q: %w", c.Slug, err)
	}
	if err := putFlags(l.ctx, l.tx, nc.ID, nc.Flags); err != nil {
		return false, false, fmt.Errorf("load flags of %q: %w", c.Slug, err)
	}
	l.chals[c.Slug] = nc.ID
	return exists, exists && !SameChallengeRow(old, nc), nil
}

// storeFile puts a challenge file's bytes in the database, addressed by
// their SHA-256, so the event stays one database.
func (l *loader) storeFile(i int, f *dataset.File) (string, error) {
	var data []byte
	var err error
	switch {
	case f.ContentBase64 != "":
		if data, err = base64.StdEncoding.DecodeString(f.ContentBase64); err != nil {
			return "", l.fail("challenges", i, "file.contentBase64", "not valid base64: %v", err)
		}
	case f.Path != "" || len(f.Pack) > 0:
		field := "file.path"
		if f.Path == "" {
			field = "file" // several files of a benchmark task, zipped
		}
		if data, err = dataset.ReadFile(f); err != nil {
			return "", l.fail("challenges", i, field, "%v", err)
		}
	default:
		return "", l.fail("challenges", i, "file", "needs a path, a url or contentBase64")
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	if f.SHA256 != "" && !strings.EqualFold(f.SHA256, sha) {
		return "", l.fail("challenges", i, "file.sha256", "does not match the file's content (%s)", sha)
	}
	if err := putFile(l.ctx, l.tx, sha, data); err != nil {
		return "", err
	}
	return sha, nil
}
func newID() string { return ctf.NewID() }
