package store

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
)

// Dump reads the whole platform as one dataset, with ids, timestamps,
// password hashes and API-key hashes, so that loading it into an empty
// database reproduces the same API responses.
func (db *DB) Dump(ctx context.Context) (*dataset.Dataset, error) {
	tx, err := db.r.wholeRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("dump: %w", err)
	}
	defer tx.Rollback()
	d := &dataset.Dataset{}
	if d.Event, err = dumpEvent(ctx, tx); err != nil {
		return nil, err
	}
	users, err := queryUsers(ctx, tx, "")
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	index := map[string]int{}
	for _, u := range users {
		names[u.ID] = u.Username
	}
	// People first, then agents: a load resolves an agent's owner among the
	// users before it, and agents own nobody.
	sort.SliceStable(users, func(i, j int) bool { return !users[i].IsAgent() && users[j].IsAgent() })
	for _, u := range users {
		index[u.ID] = len(d.Users)
		du := dataset.User{ID: u.ID, Username: u.Username, Name: u.Name, Email: u.Email,
			PasswordHash: u.PasswordHash, Role: u.Role, Banned: u.Banned, CreatedAt: tp(u.CreatedAt)}
		if u.IsAgent() {
			du.Kind, du.Model, du.Harness = ctf.KindAgent, u.Model, u.Harness
			du.Owner = names[u.OwnerID]
		}
		d.Users = append(d.Users, du)
	}
	rows, err := tx.QueryContext(ctx, "SELECT "+keyColumns+" FROM api_keys ORDER BY created_at, id")
	if err != nil {
		return nil, fmt.Errorf("dump API keys: %w", err)
	}
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("dump API keys: %w", err)
		}
		u := &d.Users[index[k.UserID]]
		u.APIKeys = append(u.APIKeys, dataset.APIKey{ID: k.ID, Name: k.Name, KeyPrefix: k.Prefix, KeyHash: k.Hash,
			CreatedAt: tp(k.CreatedAt), LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt, ReadOnly: k.ReadOnly})
	}
	rows.Close()
	if err := dumpTwoFactor(ctx, tx, d, index); err != nil {
		return nil, err
	}

	chals, err := queryChallenges(ctx, tx)
	if err != nil {
		return nil, err
	}
	slugs := map[string]string{}
	for _, c := range chals {
		slugs[c.ID] = c.Slug
	}
	for _, c := range chals {
		dc := dataset.Challenge{ID: c.ID, Slug: c.Slug, Title: c.Title, Description: c.Description, Categories: c.Categories,
			Difficulty: c.Difficulty, Points: c.Points, Type: c.Type, Author: names[c.AuthorID], HasInstance: c.HasInstance,
			DockerPort: c.DockerPort, Hidden: c.Hidden, ConnectionInfo: c.ConnectionInfo, ReleaseAt: c.ReleaseAt, CreatedAt: tp(c.CreatedAt)}
		if len(c.Tags) > 0 {
			dc.Tags = c.Tags
		}
		for _, f := range c.Flags {
			df := dataset.Flag{Type: f.Kind, Content: f.Content}
			if f.CaseInsensitive {
				df.Data = "case_insensitive"
			}
			dc.Flags = append(dc.Flags, df)
		}
		for _, r := range c.Requires {
			dc.Requires = append(dc.Requires, slugs[r])
		}
		switch {
		case c.FileURL != "":
			dc.File = &dataset.File{Name: c.FileName, URL: c.FileURL}
		case c.FileSHA256 != "":
			data, err := fileBytes(ctx, tx, c.FileSHA256)
			if err != nil {
				return nil, fmt.Errorf("dump file of %s: %w", c.Slug, err)
			}
			dc.File = &dataset.File{Name: c.FileName, SHA256: c.FileSHA256, ContentBase64: base64.StdEncoding.EncodeToString(data)}
		}
		d.Challenges = append(d.Challenges, dc)
	}

	solves, err := querySolves(ctx, tx, "seq > ?", 0)
	if err != nil {
		return nil, err
	}
	// Which door and key made each solve: not in the hot state's query.
	doors := map[string][2]string{}
	if err := dumpRows(ctx, tx, "SELECT id, door, COALESCE(key_id, '') FROM solves WHERE door <> '' OR key_id IS NOT NULL", func(sc scanner) error {
		var id, door, key string
		if err := sc.Scan(&id, &door, &key); err != nil {
			return err
		}
		doors[id] = [2]string{door, key}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("dump solves: %w", err)
	}
	for _, s := range solves {
		d.Solves = append(d.Solves, dataset.Solve{ID: s.ID, User: names[s.UserID], Challenge: slugs[s.ChallengeID], At: tp(s.At), Flag: s.Flag,
			Door: doors[s.ID][0], Key: doors[s.ID][1], Practice: s.Practice})
	}
	if err := dumpRows(ctx, tx, "SELECT id, user_id, challenge_id, flag, created_at, door, COALESCE(key_id, ''), practice FROM attempts ORDER BY seq", func(sc scanner) error {
		var a dataset.Attempt
		var uid, cid string
		var at int64
		if err := sc.Scan(&a.ID, &uid, &cid, &a.Flag, &at, &a.Door, &a.Key, &a.Practice); err != nil {
			return err
		}
		a.User, a.Challenge, a.At = names[uid], slugs[cid], tp(fromMs(at))
		d.Attempts = append(d.Attempts, a)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("dump attempts: %w", err)
	}
	if err := dumpRows(ctx, tx, `SELECT id, user_id, challenge_id, title, content, images, status, reason, created_at, updated_at
		FROM writeups ORDER BY created_at, id`, func(sc scanner) error {
		var w dataset.Writeup
		var uid, cid, images string
		var created, updated int64
		if err := sc.Scan(&w.ID, &uid, &cid, &w.Title, &w.Content, &images, &w.Status, &w.Reason, &created, &updated); err != nil {
			return err
		}
		if err := jsonUnmarshalStrings(images, &w.Images); err != nil {
			return err
		}
		if len(w.Images) == 0 {
			w.Images = nil
		}
		w.User, w.Challenge, w.CreatedAt, w.UpdatedAt = names[uid], slugs[cid], tp(fromMs(created)), tp(fromMs(updated))
		d.Writeups = append(d.Writeups, w)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("dump writeups: %w", err)
	}
	reviews, err := queryReviews(ctx, tx)
	if err != nil {
		return nil, err
	}
	for _, r := range reviews {
		d.Reviews = append(d.Reviews, dataset.Review{ID: r.ID, User: names[r.UserID], Challenge: slugs[r.ChallengeID],
			Stars: r.Stars, Difficulty: r.Difficulty, CreatedAt: tp(r.CreatedAt)})
	}
	anns, err := queryAnnouncements(ctx, tx, "")
	if err != nil {
		return nil, err
	}
	for _, a := range anns {
		d.Announcements = append(d.Announcements, dataset.Announcement{ID: a.ID, Title: a.Title, Body: a.Body,
			Challenge: slugs[a.ChallengeID], Author: names[a.AuthorID], CreatedAt: tp(a.CreatedAt)})
	}
	hooks, err := queryWebhooks(ctx, tx, "")
	if err != nil {
		return nil, err
	}
	for _, w := range hooks {
		d.Webhooks = append(d.Webhooks, dataset.Webhook{ID: w.ID, Name: w.Name, Kind: w.Kind, URL: w.URL, Secret: w.Secret,
			Events: w.Events, Enabled: w.Enabled, CreatedAt: tp(w.CreatedAt)})
	}
	return d, nil
}

// dumpTwoFactor adds the two-factor state of the users who have it on:
// the secret, the unused recovery codes' hashes (sorted: their order means
// nothing) and the last step accepted. A pending enrolment is left out: it
// is started again.
func dumpTwoFactor(ctx context.Context, tx *sqlTx, d *dataset.Dataset, index map[string]int) error {
	err := eachRow(ctx, tx, "SELECT id, totp_secret, totp_step FROM users WHERE two_factor = ? AND totp_secret <> ''", func(sc scanner) error {
		var id string
		tf := &dataset.TwoFactor{}
		if err := sc.Scan(&id, &tf.Secret, &tf.LastStep); err != nil {
			return err
		}
		if i, ok := index[id]; ok {
			d.Users[i].TwoFactor = tf
		}
		return nil
	}, true)
	if err != nil {
		return fmt.Errorf("dump two-factor: %w", err)
	}
	err = dumpRows(ctx, tx, "SELECT user_id, code_hash FROM recovery_codes WHERE used_at IS NULL ORDER BY user_id, code_hash", func(sc scanner) error {
		var id, hash string
		if err := sc.Scan(&id, &hash); err != nil {
			return err
		}
		if i, ok := index[id]; ok && d.Users[i].TwoFactor != nil {
			tf := d.Users[i].TwoFactor
			tf.RecoveryCodes = append(tf.RecoveryCodes, hash)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("dump recovery codes: %w", err)
	}
	return nil
}

// dumpEvent reads the event's settings, nil when none are set (so that the
// dump of an event without a clock has no event key, and loading it leaves
// the settings of the database it goes into alone).
func dumpEvent(ctx context.Context, q querier) (*dataset.Event, error) {
	e, err := queryEvent(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("dump: %w", err)
	}
	if sameEvent(e, ctf.Event{}) {
		return nil, nil
	}
	return &dataset.Event{Name: e.Name, Start: e.Start, End: e.End, Freeze: e.Freeze, UnfreezeAtEnd: e.UnfreezeAtEnd,
		Unfrozen: e.Unfrozen, Practice: e.Practice, FlagFormat: e.FlagFormat}, nil
}

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

func tp(t time.Time) *time.Time {
	t = ctf.Millis(t)
	return &t
}
