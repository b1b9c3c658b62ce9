package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The load's activity, event settings, announcements and webhooks.

// SolveRow is a solve with the front door and the API key that made it.
type SolveRow struct {
	ctf.Solve
	Door  ctf.Door
	KeyID string
}

func solveValues(s SolveRow) []any {
	return []any{s.ID, s.UserID, s.ChallengeID, nullString(s.Flag), ms(s.At), s.Door, nullString(s.KeyID), s.Practice}
}

// Solve reads the solve of a user and a challenge (time, flag, practice),
// if there is one.
func (t *LoadTx) Solve(userID, challengeID string) (ctf.Solve, bool, error) {
	find, err := t.stmt("SELECT solved_at, flag, practice FROM solves WHERE user_id = ? AND challenge_id = ?")
	if err != nil {
		return ctf.Solve{}, false, err
	}
	var at int64
	var flag sql.NullString
	s := ctf.Solve{UserID: userID, ChallengeID: challengeID}
	err = find.QueryRowContext(t.ctx, userID, challengeID).Scan(&at, &flag, &s.Practice)
	if errors.Is(err, sql.ErrNoRows) {
		return s, false, nil
	}
	if err != nil {
		return s, false, unavailable(err)
	}
	s.At, s.Flag = fromMs(at), flag.String
	return s, true, nil
}

// SolveIDTaken reports whether a solve has the id.
func (t *LoadTx) SolveIDTaken(id string) (bool, error) {
	return t.exists("SELECT count(*) FROM solves WHERE id = ?", id)
}

// Solved reports whether the user has solved the challenge.
func (t *LoadTx) Solved(userID, challengeID string) (bool, error) {
	return t.exists("SELECT count(*) FROM solves WHERE user_id = ? AND challenge_id = ?", userID, challengeID)
}

// UpsertSolve creates or replaces the solve of its user and challenge; a
// stored one keeps its id.
func (t *LoadTx) UpsertSolve(s SolveRow) error {
	_, err := t.tx.ExecContext(t.ctx, loadSolveSQL, solveValues(s)...)
	return err
}

// NewSolves writes solves the load has checked are new.
func (t *LoadTx) NewSolves() *Rows[SolveRow] { return newRows(t, "solves", solveColumns, solveValues) }

// AttemptIDTaken reports whether an attempt has the id.
func (t *LoadTx) AttemptIDTaken(id string) (bool, error) {
	return t.exists("SELECT count(*) FROM attempts WHERE id = ?", id)
}

// HasAttempt reports whether the user has tried flag on the challenge at
// the time (at any time when at is nil).
func (t *LoadTx) HasAttempt(userID, challengeID, flag string, at *time.Time) (bool, error) {
	if at == nil {
		return t.exists("SELECT count(*) FROM attempts WHERE user_id = ? AND challenge_id = ? AND flag = ?", userID, challengeID, flag)
	}
	return t.exists("SELECT count(*) FROM attempts WHERE user_id = ? AND challenge_id = ? AND created_at = ? AND flag = ?",
		userID, challengeID, ms(*at), flag)
}

// NewAttempts writes attempts the load has checked are new.
func (t *LoadTx) NewAttempts() *Rows[Attempt] {
	return newRows(t, "attempts", attemptColumns, attemptValues)
}

// Writeup reads the writeup of a user and a challenge, if there is one.
func (t *LoadTx) Writeup(userID, challengeID string) (ctf.Writeup, bool, error) {
	w, err := scanWriteup(t.tx.QueryRowContext(t.ctx, "SELECT "+writeupColumns+" FROM writeups WHERE user_id = ? AND challenge_id = ?",
		userID, challengeID))
	if errors.Is(err, sql.ErrNoRows) {
		return w, false, nil
	}
	return w, err == nil, err
}

// UpsertWriteup creates or replaces the writeup of its user and challenge;
// a stored one keeps its id.
func (t *LoadTx) UpsertWriteup(w ctf.Writeup) error {
	_, err := t.tx.ExecContext(t.ctx, loadWriteupSQL, writeupValues(w)...)
	return err
}

// NewWriteups writes writeups into an empty table.
func (t *LoadTx) NewWriteups() *Rows[ctf.Writeup] {
	return newRows(t, "writeups", writeupWriteColumns, writeupValues)
}

// Review reads the review of a user and a challenge, if there is one.
func (t *LoadTx) Review(userID, challengeID string) (ctf.Review, bool, error) {
	r := ctf.Review{UserID: userID, ChallengeID: challengeID}
	var created int64
	err := t.tx.QueryRowContext(t.ctx, "SELECT id, stars, difficulty, created_at FROM reviews WHERE user_id = ? AND challenge_id = ?",
		userID, challengeID).Scan(&r.ID, &r.Stars, &r.Difficulty, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	r.CreatedAt = fromMs(created)
	return r, err == nil, err
}

// UpsertReview creates or replaces the review of its user and challenge;
// a stored one keeps its id.
func (t *LoadTx) UpsertReview(r ctf.Review) error {
	_, err := t.tx.ExecContext(t.ctx, loadReviewSQL, reviewValues(r)...)
	return err
}

// NewReviews writes reviews into an empty table.
func (t *LoadTx) NewReviews() *Rows[ctf.Review] {
	return newRows(t, "reviews", reviewColumns, reviewValues)
}

// Event reads the event's settings, and whether any were ever stored.
func (t *LoadTx) Event() (ctf.Event, bool, error) {
	var n int
	if err := t.tx.QueryRowContext(t.ctx, "SELECT count(*) FROM event").Scan(&n); err != nil {
		return ctf.Event{}, false, fmt.Errorf("load the event's settings: %w", err)
	}
	e, err := queryEvent(t.ctx, t.tx)
	return e, n > 0, err
}

// PutEvent replaces the event's settings.
func (t *LoadTx) PutEvent(e ctf.Event) error { return putEvent(t.ctx, t.tx, e) }

// Announcement reads the announcement with id (none or one).
func (t *LoadTx) Announcement(id string) ([]ctf.Announcement, error) {
	return queryAnnouncements(t.ctx, t.tx, "WHERE id = ?", id)
}

// AnnouncementsTitled reads the announcements titled title, made at the
// time when at is not nil.
func (t *LoadTx) AnnouncementsTitled(title string, at *time.Time) ([]ctf.Announcement, error) {
	if at != nil {
		return queryAnnouncements(t.ctx, t.tx, "WHERE title = ? AND created_at = ?", title, ms(*at))
	}
	return queryAnnouncements(t.ctx, t.tx, "WHERE title = ?", title)
}

// UpsertAnnouncement creates or replaces the announcement by id.
func (t *LoadTx) UpsertAnnouncement(a ctf.Announcement) error {
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO announcements (id, title, body, challenge_id, author_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET title = excluded.title, body = excluded.body,
		challenge_id = excluded.challenge_id, author_id = excluded.author_id, created_at = excluded.created_at`,
		a.ID, a.Title, a.Body, nullString(a.ChallengeID), nullString(a.AuthorID), ms(a.CreatedAt))
	return err
}

// Webhook reads the webhook with id (none or one).
func (t *LoadTx) Webhook(id string) ([]Webhook, error) {
	return queryWebhooks(t.ctx, t.tx, "WHERE id = ?", id)
}

// WebhooksNamed reads the webhooks named name.
func (t *LoadTx) WebhooksNamed(name string) ([]Webhook, error) {
	return queryWebhooks(t.ctx, t.tx, "WHERE name = ?", name)
}

// StreamHead is the number of the newest row of the live stream.
func (t *LoadTx) StreamHead() (int64, error) { return streamHead(t.ctx, t.tx) }

// UpsertWebhook creates or replaces the webhook by id; a stored one keeps
// its place in the stream (AfterSeq is written only when it is created).
func (t *LoadTx) UpsertWebhook(w Webhook) error {
	events, err := json.Marshal(w.Events)
	if err != nil {
		return err
	}
	_, err = t.tx.ExecContext(t.ctx, "INSERT INTO webhooks ("+webhookColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind, url = excluded.url, secret = excluded.secret,
			events = excluded.events, enabled = excluded.enabled, created_at = excluded.created_at`,
		w.ID, w.Name, w.Kind, w.URL, w.Secret, string(events), w.Enabled, ms(w.CreatedAt), w.AfterSeq)
	return err
}
