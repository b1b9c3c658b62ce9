package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

func (l *loader) loadSolves() error {
	for i, s := range l.ds.Solves {
		s.Flag = strings.TrimSpace(s.Flag) // as a live submission is accepted
		uid, cid, err := l.refs("solves", i, s.User, s.Challenge)
		if err != nil {
			return err
		}
		at := ms(l.stamp(s.At))
		var oldAt int64
		var oldFlag sql.NullString
		var oldPractice bool
		err = l.tx.QueryRowContext(l.ctx, "SELECT solved_at, flag, practice FROM solves WHERE user_id = ? AND challenge_id = ?", uid, cid).Scan(&oldAt, &oldFlag, &oldPractice)
		exists := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("load solve: %w", err)
		}
		if exists && s.At == nil {
			at = oldAt
		}
		id := s.ID
		if id == "" {
			id = newID()
		}
		_, err = l.tx.ExecContext(l.ctx, `INSERT INTO solves (id, user_id, challenge_id, flag, solved_at, door, key_id, practice)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (user_id, challenge_id) DO UPDATE SET flag = excluded.flag, solved_at = excluded.solved_at,
			door = excluded.door, key_id = excluded.key_id, practice = excluded.practice`,
			id, uid, cid, nullString(s.Flag), at, s.Door, nullString(s.Key), s.Practice)
		if isUniqueViolation(err) {
			return l.fail("solves", i, "id", "id %q already belongs to another solve", s.ID)
		}
		if err != nil {
			return fmt.Errorf("load solve: %w", err)
		}
		l.rep.count("solves", !exists, exists && (oldAt != at || oldFlag.String != s.Flag || oldPractice != s.Practice))
	}
	return nil
}

func (l *loader) loadAttempts() error {
	for i, a := range l.ds.Attempts {
		a.Flag = strings.TrimSpace(a.Flag)
		uid, cid, err := l.refs("attempts", i, a.User, a.Challenge)
		if err != nil {
			return err
		}
		// Without an id an attempt is known by who, what, when and which
		// flag, so loading a file twice does not double its attempts.
		var n int
		if a.ID != "" {
			err = l.tx.QueryRowContext(l.ctx, "SELECT count(*) FROM attempts WHERE id = ?", a.ID).Scan(&n)
		} else if a.At != nil {
			err = l.tx.QueryRowContext(l.ctx, "SELECT count(*) FROM attempts WHERE user_id = ? AND challenge_id = ? AND created_at = ? AND flag = ?",
				uid, cid, ms(l.stamp(a.At)), a.Flag).Scan(&n)
		} else {
			err = l.tx.QueryRowContext(l.ctx, "SELECT count(*) FROM attempts WHERE user_id = ? AND challenge_id = ? AND flag = ?",
				uid, cid, a.Flag).Scan(&n)
		}
		if err != nil {
			return fmt.Errorf("load attempt: %w", err)
		}
		if n > 0 {
			l.rep.count("attempts", false, false)
			continue
		}
		id := a.ID
		if id == "" {
			id = newID()
		}
		if _, err := l.tx.ExecContext(l.ctx, `INSERT INTO attempts (id, user_id, challenge_id, flag, created_at, door, key_id, practice)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, uid, cid, a.Flag, ms(l.stamp(a.At)), a.Door, nullString(a.Key), a.Practice); err != nil {
			return fmt.Errorf("load attempt: %w", err)
		}
		l.rep.count("attempts", true, false)
	}
	return nil
}

// solvedBy reports whether the user has solved the challenge; writeups and
// reviews come only after a solve.
func (l *loader) solvedBy(uid, cid string) (bool, error) {
	var n int
	err := l.tx.QueryRowContext(l.ctx, "SELECT count(*) FROM solves WHERE user_id = ? AND challenge_id = ?", uid, cid).Scan(&n)
	return n > 0, err
}

func (l *loader) loadWriteups() error {
	for i, w := range l.ds.Writeups {
		uid, cid, err := l.refs("writeups", i, w.User, w.Challenge)
		if err != nil {
			return err
		}
		if ok, err := l.solvedBy(uid, cid); err != nil {
			return fmt.Errorf("load writeup: %w", err)
		} else if !ok {
			return l.fail("writeups", i, "user", "%q has not solved %q; a writeup comes after the solve", w.User, w.Challenge)
		}
		images := w.Images
		if images == nil {
			images = []string{}
		}
		ij, _ := json.Marshal(images)
		status := w.Status
		if status == "" {
			status = "pending"
		}
		var old struct {
			title, content, images, status, reason string
			created, updated                       int64
		}
		err = l.tx.QueryRowContext(l.ctx, "SELECT title, content, images, status, reason, created_at, updated_at FROM writeups WHERE user_id = ? AND challenge_id = ?",
			uid, cid).Scan(&old.title, &old.content, &old.images, &old.status, &old.reason, &old.created, &old.updated)
		exists := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("load writeup: %w", err)
		}
		created, updated := ms(l.stamp(w.CreatedAt)), ms(l.stamp(w.UpdatedAt))
		if exists && w.CreatedAt == nil {
			created = old.created
		}
		if w.UpdatedAt == nil {
			updated = created
		}
		id := w.ID
		if id == "" {
			id = newID()
		}
		_, err = l.tx.ExecContext(l.ctx, `INSERT INTO writeups (id, user_id, challenge_id, title, content, images, status, reason, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, challenge_id) DO UPDATE SET title = excluded.title,
			content = excluded.content, images = excluded.images, status = excluded.status, reason = excluded.reason,
			created_at = excluded.created_at, updated_at = excluded.updated_at`, id, uid, cid, w.Title, w.Content, string(ij), status, w.Reason,
			created, updated)
		if isUniqueViolation(err) {
			return l.fail("writeups", i, "id", "id %q already belongs to another writeup", w.ID)
		}
		if err != nil {
			return fmt.Errorf("load writeup: %w", err)
		}
		changed := old.title != w.Title || old.content != w.Content || old.images != string(ij) || old.status != status ||
			old.reason != w.Reason || old.created != created || old.updated != updated
		l.rep.count("writeups", !exists, exists && changed)
	}
	return nil
}

func (l *loader) loadReviews() error {
	for i, r := range l.ds.Reviews {
		uid, cid, err := l.refs("reviews", i, r.User, r.Challenge)
		if err != nil {
			return err
		}
		if ok, err := l.solvedBy(uid, cid); err != nil {
			return fmt.Errorf("load review: %w", err)
		} else if !ok {
			return l.fail("reviews", i, "user", "%q has not solved %q; a review comes after the solve", r.User, r.Challenge)
		}
		var oldStars, oldDiff int
		var oldCreated int64
		err = l.tx.QueryRowContext(l.ctx, "SELECT stars, difficulty, created_at FROM reviews WHERE user_id = ? AND challenge_id = ?",
			uid, cid).Scan(&oldStars, &oldDiff, &oldCreated)
		exists := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("load review: %w", err)
		}
		created := ms(l.stamp(r.CreatedAt))
		if exists && r.CreatedAt == nil {
			created = oldCreated
		}
		id := r.ID
		if id == "" {
			id = newID()
		}
		_, err = l.tx.ExecContext(l.ctx, `INSERT INTO reviews (id, user_id, challenge_id, stars, difficulty, created_at) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (user_id, challenge_id) DO UPDATE SET stars = excluded.stars, difficulty = excluded.difficulty, created_at = excluded.created_at`,
			id, uid, cid, r.Stars, r.Difficulty, created)
		if isUniqueViolation(err) {
			return l.fail("reviews", i, "id", "id %q already belongs to another review", r.ID)
		}
		if err != nil {
			return fmt.Errorf("load review: %w", err)
		}
		l.rep.count("reviews", !exists, exists && (oldStars != r.Stars || oldDiff != r.Difficulty || oldCreated != created))
	}
	return nil
}
