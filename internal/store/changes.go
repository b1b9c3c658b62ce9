package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The change log. Each write of the use cases records, in its own
// transaction, which entities it changed; every replica reads the log
// (polling, and on PostgreSQL when notified) and reloads just those
// entities into its in-memory state, instead of rebuilding all of it.

// ChangeKind is the kind of entity a row of the change log names.
type ChangeKind string

// Kinds of change, and what the entity of each is.
const (
	ChangeUser      ChangeKind = "user"         // a user, by id (profile, role, ban, 2FA, password)
	ChangeAPIKey    ChangeKind = "apikey"       // an API key, by id
	ChangeSessions  ChangeKind = "sessions"     // the web sessions of a user, by user id
	ChangeReview    ChangeKind = "review"       // a review, by id
	ChangeWriteup   ChangeKind = "writeup"      // a writeup, by id
	ChangeChallenge ChangeKind = "challenge"    // a challenge, by id (fields, flags, prerequisites)
	ChangeEvent     ChangeKind = "event"        // the event's settings (entity "1")
	ChangeAnnounce  ChangeKind = "announcement" // an announcement, by id
	ChangePage      ChangeKind = "page"         // one of the event's pages, by name
	ChangeLogo      ChangeKind = "logo"         // the event's logo (entity "1")
)

// ChangeRef is a row of the change log.
type ChangeRef struct {
	Seq    int64
	Kind   ChangeKind
	Entity string
}

// ChangeRetention is how long the change log keeps its rows: far longer
// than any replica takes to read them; a replica that fell further behind
// rebuilds its state.
const ChangeRetention = time.Hour

// write runs fn in a write transaction; fn returns the entities it
// changed, which are logged (with audit, an admin action, when not nil)
// in the same transaction. It returns the change log's sequence numbers.
func (db *DB) write(ctx context.Context, audit *ctf.AuditEntry, fn func(tx *sqlTx) ([]ChangeRef, error)) ([]int64, error) {
	var seqs []int64
	err := db.writeTx(ctx, func(tx *sqlTx) error {
		refs, err := fn(tx)
		if err != nil {
			return err
		}
		at := ms(db.now())
		for _, r := range refs {
			var seq int64
			if err := tx.QueryRowContext(ctx, "INSERT INTO changes (kind, entity, at) VALUES (?, ?, ?) RETURNING seq",
				r.Kind, r.Entity, at).Scan(&seq); err != nil {
				return fmt.Errorf("log change: %w", err)
			}
			seqs = append(seqs, seq)
		}
		if audit != nil {
			if err := addAudit(ctx, tx, *audit); err != nil {
				return err
			}
		}
		if len(refs) > 0 {
			return notifyChange(ctx, tx)
		}
		return nil
	})
	return seqs, err
}

// AddAudit records an admin action that made no change of its own here
// (a bulk load, which runs its own transaction).
func (ct Content) AddAudit(ctx context.Context, a ctf.AuditEntry) error {
	return ct.db.writeTx(ctx, func(tx *sqlTx) error { return addAudit(ctx, tx, a) })
}

func addAudit(ctx context.Context, tx *sqlTx, a ctf.AuditEntry) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO audit_log (actor_id, actor, action, target, detail, at) VALUES (?, ?, ?, ?, ?, ?)",
		nullString(a.ActorID), a.Actor, a.Action, a.Target, a.Detail, ms(a.At))
	if err != nil {
		return fmt.Errorf("audit %s: %w", a.Action, err)
	}
	return nil
}

// AuditLog returns the newest entries of the audit log, newest first,
// before the given sequence number (0: from the newest).
func (ct Content) AuditLog(ctx context.Context, before int64, limit int) ([]ctf.AuditEntry, error) {
	if before <= 0 {
		before = 1<<62 - 1
	}
	rows, err := ct.db.r.QueryContext(ctx, `SELECT seq, COALESCE(actor_id, ''), actor, action, target, detail, at FROM audit_log
		WHERE seq < ? ORDER BY seq DESC LIMIT ?`, before, limit)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer rows.Close()
	out := []ctf.AuditEntry{}
	for rows.Next() {
		var a ctf.AuditEntry
		var at int64
		if err := rows.Scan(&a.Seq, &a.ActorID, &a.Actor, &a.Action, &a.Target, &a.Detail, &at); err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		a.At = fromMs(at)
		out = append(out, a)
	}
	return out, rows.Err()
}

// PruneChanges deletes change log rows older than ChangeRetention.
func (db *DB) PruneChanges(ctx context.Context) error {
	_, err := db.w.ExecContext(ctx, "DELETE FROM changes WHERE at < ?", ms(db.now().Add(-ChangeRetention)))
	if err != nil {
		return fmt.Errorf("prune the change log: %w", err)
	}
	return nil
}

// Cursor says what of the append-only tables a replica has applied: the
// rows after each number, and the numbers it skipped (gaps) because their
// transactions had not committed when it read (PostgreSQL hands numbers
// out at insert, not at commit).
type Cursor struct {
	StreamAfter                           int64 // dense: no gaps
	SolveAfter, AttemptAfter, ChangeAfter int64
	SolveGaps, AttemptGaps, ChangeGaps    []int64
}

// Delta is what a replica has not applied yet; the rows of the changed
// entities are read with Entities.
type Delta struct {
	// Stream holds the live stream's rows after the cursor's, read first:
	// the solves and entities they name are then read too.
	Stream   []StreamRow
	Solves   []ctf.Solve // in (time, seq) order
	Attempts []AttemptRef
	Changes  []ChangeRef
}

// Since reads what happened after the cursor. Solves and attempts are read
// before the change log, so that every user and challenge a solve or an
// attempt names is in the log already or was known before (it committed
// before the solve did).
func (db *DB) Since(ctx context.Context, c Cursor) (*Delta, error) {
	d := &Delta{}
	var err error
	if d.Stream, err = db.StreamAfter(ctx, c.StreamAfter, 0); err != nil {
		return nil, err
	}
	if d.Solves, err = db.SolvesSince(ctx, c.SolveAfter, c.SolveGaps); err != nil {
		return nil, err
	}
	where, args := seqFilter(c.AttemptAfter, c.AttemptGaps)
	if err := eachRow(ctx, db.r, "SELECT seq, user_id, challenge_id, practice FROM attempts WHERE "+where+" ORDER BY seq", func(sc scanner) error {
		var a AttemptRef
		err := sc.Scan(&a.Seq, &a.UserID, &a.ChallengeID, &a.Practice)
		d.Attempts = append(d.Attempts, a)
		return err
	}, args...); err != nil {
		return nil, fmt.Errorf("read new attempts: %w", err)
	}
	where, args = seqFilter(c.ChangeAfter, c.ChangeGaps)
	if err := eachRow(ctx, db.r, "SELECT seq, kind, entity FROM changes WHERE "+where+" ORDER BY seq", func(sc scanner) error {
		var r ChangeRef
		err := sc.Scan(&r.Seq, &r.Kind, &r.Entity)
		d.Changes = append(d.Changes, r)
		return err
	}, args...); err != nil {
		return nil, fmt.Errorf("read the change log: %w", err)
	}
	return d, nil
}

// Entities are the current rows of changed entities.
type Entities struct {
	Users      []ctf.User
	APIKeys    []ctf.APIKey
	Challenges []ctf.Challenge // flags compiled
	Reviews    []ctf.Review
	Writeups   []ctf.Writeup
	// Sessions holds the active sessions of each user whose sessions
	// changed (an empty list: none left).
	Sessions      map[string][]ctf.Session
	Event         *ctf.Event // the event's settings, when they changed
	Announcements []ctf.Announcement
	// Pages holds the changed pages (one without a row: an empty text).
	Pages []ctf.Page
	// LogoChanged: the event's logo changed, to Logo (nil: removed).
	LogoChanged bool
	Logo        *ctf.Logo
	// DeletedChallenges are the ids of challenges deleted: no row to read.
	DeletedChallenges []string
	// HintUnlocks are the unlocks of the users and challenges whose
	// unlocks changed (unlocks are only ever added).
	HintUnlocks []ctf.HintUnlock
}

// Entities reads the current rows of the entities refs name.
func (db *DB) Entities(ctx context.Context, refs []ChangeRef) (Entities, error) {
	q := db.r
	ids := map[ChangeKind][]string{}
	seen := map[ChangeRef]bool{}
	for _, r := range refs {
		k := ChangeRef{Kind: r.Kind, Entity: r.Entity}
		if !seen[k] {
			seen[k] = true
			ids[r.Kind] = append(ids[r.Kind], r.Entity)
		}
	}
	var e Entities
	var err error
	if in := ids[ChangeUser]; len(in) > 0 {
		if e.Users, err = queryUsers(ctx, q, "WHERE id IN ("+marks(len(in))+")", anys(in)...); err != nil {
			return e, err
		}
	}
	if in := ids[ChangeHints]; len(in) > 0 {
		if e.HintUnlocks, err = hintUnlocksOf(ctx, q, in); err != nil {
			return e, err
		}
	}
	if in := ids[ChangeAPIKey]; len(in) > 0 {
		if e.APIKeys, err = queryKeys(ctx, q, "id IN ("+marks(len(in))+")", anys(in)...); err != nil {
			return e, err
		}
	}
	if in := ids[ChangeChallenge]; len(in) > 0 {
		if e.Challenges, err = queryChallengesWhere(ctx, q, "WHERE id IN ("+marks(len(in))+")", anys(in)...); err != nil {
			return e, err
		}
	}
	if in := ids[ChangeReview]; len(in) > 0 {
		if e.Reviews, err = queryReviewsWhere(ctx, q, "WHERE id IN ("+marks(len(in))+")", anys(in)...); err != nil {
			return e, err
		}
	}
	if in := ids[ChangeWriteup]; len(in) > 0 {
		if e.Writeups, err = queryWriteups(ctx, q, "WHERE id IN ("+marks(len(in))+")", anys(in)...); err != nil {
			return e, err
		}
	}
	if len(ids[ChangeEvent]) > 0 {
		ev, err := queryEvent(ctx, q)
		if err != nil {
			return e, err
		}
		e.Event = &ev
	}
	if in := ids[ChangeAnnounce]; len(in) > 0 {
		if e.Announcements, err = queryAnnouncements(ctx, q, "WHERE id IN ("+marks(len(in))+")", anys(in)...); err != nil {
			return e, err
		}
	}
	if in := ids[ChangePage]; len(in) > 0 {
		rows, err := queryPages(ctx, q, "WHERE name IN ("+marks(len(in))+")", anys(in)...)
		if err != nil {
			return e, err
		}
		for _, name := range in {
			p := ctf.Page{Name: name}
			for _, r := range rows {
				if r.Name == name {
					p = r
				}
			}
			e.Pages = append(e.Pages, p)
		}
	}
	if len(ids[ChangeLogo]) > 0 {
		if e.Logo, err = queryLogo(ctx, q); err != nil {
			return e, err
		}
		e.LogoChanged = true
	}
	e.DeletedChallenges = ids[ChangeChallengeDeleted]
	if in := ids[ChangeSessions]; len(in) > 0 {
		e.Sessions = make(map[string][]ctf.Session, len(in))
		for _, id := range in {
			e.Sessions[id] = []ctf.Session{}
		}
		all, err := querySessions(ctx, q, db.now(), "user_id IN ("+marks(len(in))+")", anys(in)...)
		if err != nil {
			return e, err
		}
		for _, s := range all {
			e.Sessions[s.UserID] = append(e.Sessions[s.UserID], s)
		}
	}
	return e, nil
}

// marks returns n comma-separated placeholders.
func marks(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
