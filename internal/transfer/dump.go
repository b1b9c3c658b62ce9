package transfer

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/store"
)

// Dump reads the whole platform as one dataset, in one read transaction,
// with ids, timestamps, password hashes and API-key hashes, so that
// loading it into an empty database reproduces the same API responses.
func Dump(ctx context.Context, db DB) (*dataset.Dataset, error) {
	var d *dataset.Dataset
	err := db.InDump(ctx, func(tx *store.DumpTx) error {
		var err error
		d, err = dump(tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

func dump(tx *store.DumpTx) (*dataset.Dataset, error) {
	d := &dataset.Dataset{}
	var err error
	if d.Event, err = dumpEvent(tx); err != nil {
		return nil, err
	}
	users, err := tx.Users()
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
			PasswordHash: u.PasswordHash, Role: u.Role, Banned: u.Banned, BanReason: u.BanReason,
			EmailUnverified: u.EmailUnverified, CreatedAt: tp(u.CreatedAt)}
		if u.IsAgent() {
			du.Kind, du.Model, du.Harness = ctf.KindAgent, u.Model, u.Harness
			du.Owner = names[u.OwnerID]
		}
		d.Users = append(d.Users, du)
	}
	keys, err := tx.APIKeys()
	if err != nil {
		return nil, fmt.Errorf("dump API keys: %w", err)
	}
	for _, k := range keys {
		u := &d.Users[index[k.UserID]]
		u.APIKeys = append(u.APIKeys, dataset.APIKey{ID: k.ID, Name: k.Name, KeyPrefix: k.Prefix, KeyHash: k.Hash,
			CreatedAt: tp(k.CreatedAt), LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt, ReadOnly: k.ReadOnly})
	}
	// The two-factor state of the users who have it on: the secret, the
	// unused recovery codes' hashes (sorted: their order means nothing)
	// and the last step accepted. A pending enrolment is left out: it is
	// started again.
	tfs, err := tx.TwoFactors()
	if err != nil {
		return nil, err
	}
	for _, tf := range tfs {
		if i, ok := index[tf.UserID]; ok {
			d.Users[i].TwoFactor = &dataset.TwoFactor{Secret: tf.Secret, LastStep: tf.Step, RecoveryCodes: tf.RecoveryCodes}
		}
	}

	chals, err := tx.Challenges()
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
			DockerPort: c.DockerPort, Instance: dataset.InstanceOf(c.Instance), Hidden: c.Hidden, ConnectionInfo: c.ConnectionInfo, FlagFormat: c.FlagFormat, Origin: dataset.OriginOf(c.Origin),
			ReleaseAt: c.ReleaseAt, CreatedAt: tp(c.CreatedAt), Scoring: dataset.ScoringOf(c.Scoring), Hints: dataset.HintsOf(c.Hints)}
		if c.Scoring.IsDynamic() {
			dc.Points = c.Scoring.Initial // what a load reads back: they are one
		}
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
			data, err := tx.File(c.FileSHA256)
			if err != nil {
				return nil, fmt.Errorf("dump file of %s: %w", c.Slug, err)
			}
			dc.File = &dataset.File{Name: c.FileName, SHA256: c.FileSHA256, ContentBase64: base64.StdEncoding.EncodeToString(data)}
		}
		d.Challenges = append(d.Challenges, dc)
	}

	solves, err := tx.Solves()
	if err != nil {
		return nil, err
	}
	for _, s := range solves {
		d.Solves = append(d.Solves, dataset.Solve{ID: s.ID, User: names[s.UserID], Challenge: slugs[s.ChallengeID], At: tp(s.At), Flag: s.Flag,
			Door: s.Door, Key: s.KeyID, Practice: s.Practice})
	}
	if err := tx.EachAttempt(func(a store.Attempt) error {
		d.Attempts = append(d.Attempts, dataset.Attempt{ID: a.ID, User: names[a.UserID], Challenge: slugs[a.ChallengeID], At: tp(a.At),
			Flag: a.Flag, Door: a.Door, Key: a.KeyID, Practice: a.Practice})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("dump attempts: %w", err)
	}
	writeups, err := tx.Writeups()
	if err != nil {
		return nil, fmt.Errorf("dump writeups: %w", err)
	}
	for _, w := range writeups {
		dw := dataset.Writeup{ID: w.ID, User: names[w.UserID], Challenge: slugs[w.ChallengeID], Title: w.Title, Content: w.Content,
			Images: w.Images, Status: w.Status, Reason: w.Reason, CreatedAt: tp(w.CreatedAt), UpdatedAt: tp(w.UpdatedAt)}
		if len(dw.Images) == 0 {
			dw.Images = nil
		}
		d.Writeups = append(d.Writeups, dw)
	}
	reviews, err := tx.Reviews()
	if err != nil {
		return nil, err
	}
	for _, r := range reviews {
		d.Reviews = append(d.Reviews, dataset.Review{ID: r.ID, User: names[r.UserID], Challenge: slugs[r.ChallengeID],
			Stars: r.Stars, Difficulty: r.Difficulty, CreatedAt: tp(r.CreatedAt)})
	}
	if err := dumpHintUnlocks(tx, d, chals, names, slugs); err != nil {
		return nil, err
	}
	anns, err := tx.Announcements()
	if err != nil {
		return nil, err
	}
	for _, a := range anns {
		d.Announcements = append(d.Announcements, dataset.Announcement{ID: a.ID, Title: a.Title, Body: a.Body,
			Challenge: slugs[a.ChallengeID], Author: names[a.AuthorID], CreatedAt: tp(a.CreatedAt)})
	}
	if err := dumpPages(tx, d); err != nil {
		return nil, err
	}
	hooks, err := tx.Webhooks()
	if err != nil {
		return nil, err
	}
	for _, w := range hooks {
		d.Webhooks = append(d.Webhooks, dataset.Webhook{ID: w.ID, Name: w.Name, Kind: w.Kind, URL: w.URL, Secret: w.Secret,
			Events: w.Events, Enabled: w.Enabled, CreatedAt: tp(w.CreatedAt)})
	}
	if d.Secrets, err = tx.Secrets(); err != nil {
		return nil, err
	}
	if len(d.Secrets) == 0 {
		d.Secrets = nil
	}
	sharing, err := tx.Sharing()
	if err != nil {
		return nil, err
	}
	for _, sh := range sharing {
		d.Sharing = append(d.Sharing, dataset.Sharing{ID: sh.ID, User: names[sh.UserID], Owner: names[sh.OwnerID],
			Challenge: slugs[sh.ChallengeID], At: tp(sh.At), Door: sh.Door, Key: sh.KeyID})
	}
	return d, nil
}

// dumpHintUnlocks writes the unlocks of the hints the challenges have,
// with their charge. An unlock of a hint an organiser has since removed
// costs nothing and shows nothing: it is left out, as a load would refuse
// it.
func dumpHintUnlocks(tx *store.DumpTx, d *dataset.Dataset, chals []ctf.Challenge, names, slugs map[string]string) error {
	unlocks, err := tx.HintUnlocks()
	if err != nil {
		return err
	}
	byID := make(map[string]*ctf.Challenge, len(chals))
	for i := range chals {
		byID[chals[i].ID] = &chals[i]
	}
	for _, h := range unlocks {
		c := byID[h.ChallengeID]
		if c == nil {
			continue
		}
		if _, ok := c.HintByID(h.HintID); !ok {
			continue
		}
		charged := h.Charged
		d.HintUnlocks = append(d.HintUnlocks, dataset.HintUnlock{User: names[h.UserID], Challenge: slugs[h.ChallengeID], Hint: h.HintID,
			At: tp(h.At), Charged: &charged})
	}
	return nil
}

// dumpEvent reads the event's settings, nil when none are set (so that the
// dump of an event without a clock has no event key, and loading it leaves
// the settings of the database it goes into alone).
func dumpEvent(tx *store.DumpTx) (*dataset.Event, error) {
	e, err := tx.Event()
	if err != nil {
		return nil, fmt.Errorf("dump: %w", err)
	}
	if sameEvent(e, ctf.Event{}) {
		return nil, nil
	}
	return &dataset.Event{Name: e.Name, Start: e.Start, End: e.End, Freeze: e.Freeze, UnfreezeAtEnd: e.UnfreezeAtEnd,
		Unfrozen: e.Unfrozen, Practice: e.Practice, FlagFormat: e.FlagFormat}, nil
}

func tp(t time.Time) *time.Time {
	t = ctf.Millis(t)
	return &t
}

// dumpPages writes the pages that have a text and the logo, if any.
func dumpPages(tx *store.DumpTx, d *dataset.Dataset) error {
	pages, err := tx.Pages()
	if err != nil {
		return err
	}
	for _, p := range pages {
		if p.Text != "" {
			d.Pages = append(d.Pages, dataset.Page{Name: p.Name, Text: p.Text})
		}
	}
	logo, err := tx.Logo()
	if err != nil || logo == nil {
		return err
	}
	d.Logo = &dataset.Logo{ContentBase64: base64.StdEncoding.EncodeToString(logo.Data), Data: logo.Data}
	return nil
}
