package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The load's challenges, writeups, reviews, event settings and announcements.

// ChallengeID is the id of the challenge with slug, "" when there is none.
func (t LoadContent) ChallengeID(slug string) (string, error) {
	return t.lookupID("challenge", "SELECT id FROM challenges WHERE slug = ?", slug)
}

// ChallengeIDsTitled are the ids of the challenges titled title.
func (t LoadContent) ChallengeIDsTitled(title string) ([]string, error) {
	rows, err := t.tx.QueryContext(t.ctx, "SELECT id FROM challenges WHERE title = ?", title)
	if err != nil {
		return nil, fmt.Errorf("look up challenge titled %q: %w", title, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Challenge reads the challenge with slug and its flags (not compiled;
// prerequisites apart), if there is one.
func (t LoadContent) Challenge(slug string) (ctf.Challenge, bool, error) {
	c, err := scanChallenge(t.tx.QueryRowContext(t.ctx, selectChallenges+"WHERE slug = ?", slug))
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("load challenge %q: %w", slug, err)
	}
	err = eachRow(t.ctx, t.tx, "SELECT kind, content, case_insensitive FROM flags WHERE challenge_id = ? ORDER BY position", func(sc scanner) error {
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

// UpsertChallenge creates or replaces the challenge row by slug (not its
// flags: PutFlags); a stored one keeps its id.
func (t LoadContent) UpsertChallenge(c ctf.Challenge) error {
	_, err := t.tx.ExecContext(t.ctx, loadChallengeSQL, challengeValues(c)...)
	return err
}

// PutFlags replaces the flags of the challenge with id.
func (t LoadContent) PutFlags(id string, flags []ctf.Flag) error {
	return putFlags(t.ctx, t.tx, id, flags)
}

// Prerequisites are the ids of the challenges the one with id requires.
func (t LoadContent) Prerequisites(id string) (map[string]bool, error) {
	had := map[string]bool{}
	err := eachRow(t.ctx, t.tx, "SELECT requires_id FROM prerequisites WHERE challenge_id = ?", func(sc scanner) error {
		var rid string
		err := sc.Scan(&rid)
		had[rid] = true
		return err
	}, id)
	if err != nil {
		return nil, fmt.Errorf("load prerequisites: %w", err)
	}
	return had, nil
}

// SetPrerequisites replaces what the challenge with id requires.
func (t LoadContent) SetPrerequisites(id string, requires map[string]bool) error {
	if _, err := t.tx.ExecContext(t.ctx, "DELETE FROM prerequisites WHERE challenge_id = ?", id); err != nil {
		return err
	}
	for rid := range requires {
		if _, err := t.tx.ExecContext(t.ctx, insertPrerequisiteSQL, id, rid); err != nil {
			return err
		}
	}
	return nil
}

// PutFile stores a challenge file's bytes under their SHA-256.
func (t LoadContent) PutFile(sha string, data []byte) error { return putFile(t.ctx, t.tx, sha, data) }

// Writeup reads the writeup of a user and a challenge, if there is one.
func (t LoadContent) Writeup(userID, challengeID string) (ctf.Writeup, bool, error) {
	return found(scanWriteup(t.tx.QueryRowContext(t.ctx, "SELECT "+writeupColumns+" FROM writeups WHERE user_id = ? AND challenge_id = ?",
		userID, challengeID)))
}

// UpsertWriteup creates or replaces the writeup of its user and challenge;
// a stored one keeps its id.
func (t LoadContent) UpsertWriteup(w ctf.Writeup) error {
	_, err := t.tx.ExecContext(t.ctx, loadWriteupSQL, writeupValues(w)...)
	return err
}

// NewWriteups writes writeups into an empty table.
func (t LoadContent) NewWriteups() *Rows[ctf.Writeup] {
	return newRows(t.loadState, "writeups", writeupWriteColumns, writeupValues)
}

// Review reads the review of a user and a challenge, if there is one.
func (t LoadContent) Review(userID, challengeID string) (ctf.Review, bool, error) {
	return found(scanReview(t.tx.QueryRowContext(t.ctx, selectReviews+"WHERE user_id = ? AND challenge_id = ?", userID, challengeID)))
}

// UpsertReview creates or replaces the review of its user and challenge;
// a stored one keeps its id.
func (t LoadContent) UpsertReview(r ctf.Review) error {
	_, err := t.tx.ExecContext(t.ctx, loadReviewSQL, reviewValues(r)...)
	return err
}

// NewReviews writes reviews into an empty table.
func (t LoadContent) NewReviews() *Rows[ctf.Review] {
	return newRows(t.loadState, "reviews", reviewColumns, reviewValues)
}

// Event reads the event's settings, and whether any were ever stored.
func (t LoadContent) Event() (ctf.Event, bool, error) {
	var n int
	if err := t.tx.QueryRowContext(t.ctx, "SELECT count(*) FROM event").Scan(&n); err != nil {
		return ctf.Event{}, false, fmt.Errorf("load the event's settings: %w", err)
	}
	e, err := queryEvent(t.ctx, t.tx)
	return e, n > 0, err
}

// PutEvent replaces the event's settings.
func (t LoadContent) PutEvent(e ctf.Event) error { return putEvent(t.ctx, t.tx, e) }

// Announcement reads the announcement with id (none or one).
func (t LoadContent) Announcement(id string) ([]ctf.Announcement, error) {
	return queryAnnouncements(t.ctx, t.tx, "WHERE id = ?", id)
}

// AnnouncementsTitled reads the announcements titled title, made at the
// time when at is not nil.
func (t LoadContent) AnnouncementsTitled(title string, at *time.Time) ([]ctf.Announcement, error) {
	if at != nil {
		return queryAnnouncements(t.ctx, t.tx, "WHERE title = ? AND created_at = ?", title, ms(*at))
	}
	return queryAnnouncements(t.ctx, t.tx, "WHERE title = ?", title)
}

// UpsertAnnouncement creates or replaces the announcement by id.
func (t LoadContent) UpsertAnnouncement(a ctf.Announcement) error {
	_, err := t.tx.ExecContext(t.ctx, loadAnnouncementSQL, announcementValues(a)...)
	return err
}

// Hints reads the hints of the challenge with id.
func (t LoadContent) Hints(id string) ([]ctf.Hint, error) {
	var text string
	if err := t.tx.QueryRowContext(t.ctx, "SELECT hints FROM challenges WHERE id = ?", id).Scan(&text); err != nil {
		return nil, fmt.Errorf("load hints of challenge %s: %w", id, err)
	}
	hints, err := parseHints(text)
	if err != nil {
		return nil, fmt.Errorf("load hints of challenge %s: %w", id, err)
	}
	return hints, nil
}
