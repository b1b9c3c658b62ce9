package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/flagshipctf/flagship/internal/dataset"
)

// The activity of a dump is most of it: hundreds of thousands of solves
// and attempts. Each entry is looked up by its natural key (not at all
// when its table was empty at the start of the load) and a stored one is
// updated row by row as before, while new rows go into multi-row INSERTs.
// The checks that the per-row upserts made with a unique key are made
// before the insert, so that bad input is named as before.

func (l *loader) loadSolves() error {
	fresh, err := l.fresh("solves")
	if err != nil {
		return err
	}
	l.solved = make(map[[2]string]bool, len(l.ds.Solves))
	var n int64
	ins := l.bulk.inserter("solves", "id, user_id, challenge_id, flag, solved_at, door, key_id, practice", &n)
	for i, s := range l.ds.Solves {
		s.Flag = strings.TrimSpace(s.Flag) // as a live submission is accepted
		uid, cid, err := l.refs("solves", i, s.User, s.Challenge)
		if err != nil {
			return err
		}
		at := ms(l.stamp(s.At))
		l.solved[[2]string{uid, cid}] = true
		if !fresh {
			if done, err := l.storedSolve(i, s, uid, cid, at); err != nil {
				return err
			} else if done {
				continue
			}
			if s.ID != "" {
				if taken, err := l.exists("SELECT count(*) FROM solves WHERE id = ?", s.ID); err != nil {
					return fmt.Errorf("load solve: %w", err)
				} else if taken {
					return l.fail("solves", i, "id", "id %q already belongs to another solve", s.ID)
				}
			}
		}
		if err := ins.add(orNewID(s.ID), uid, cid, nullString(s.Flag), at, s.Door, nullString(s.Key), s.Practice); err != nil {
			return fmt.Errorf("load solve: %w", err)
		}
		l.rep.count("solves", true, false)
	}
	// Writeups and reviews look for their solve.
	return ins.flush()
}

// storedSolve updates the stored solve of uid and cid, if there is one
// (done then).
func (l *loader) storedSolve(i int, s dataset.Solve, uid, cid string, at int64) (done bool, err error) {
	find, err := l.stmt("SELECT solved_at, flag, practice FROM solves WHERE user_id = ? AND challenge_id = ?")
	if err != nil {
		return false, fmt.Errorf("load solve: %w", err)
	}
	var oldAt int64
	var oldFlag sql.NullString
	var oldPractice bool
	err = find.QueryRowContext(l.ctx, uid, cid).Scan(&oldAt, &oldFlag, &oldPractice)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("load solve: %w", unavailable(err))
	}
	if s.At == nil {
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
		return true, l.fail("solves", i, "id", "id %q already belongs to another solve", s.ID)
	}
	if err != nil {
		return true, fmt.Errorf("load solve: %w", err)
	}
	l.rep.count("solves", false, oldAt != at || oldFlag.String != s.Flag || oldPractice != s.Practice)
	return true, nil
}

// orNewID is id, or a new one for an entry without.
func orNewID(id string) string {
	if id == "" {
		return newID()
	}
	return id
}

// exists runs a prepared count query and reports whether it counted any.
func (l *loader) exists(query string, args ...any) (bool, error) {
	st, err := l.stmt(query)
	if err != nil {
		return false, err
	}
	var n int
	if err := st.QueryRowContext(l.ctx, args...).Scan(&n); err != nil {
		return false, unavailable(err)
	}
	return n > 0, nil
}

// attemptKey is an attempt without an id as the load knows it: who, what,
// when (anyTime for an attempt without a time, which matches any) and
// which flag.
const anyTime = math.MinInt64

type attemptKey struct {
	uid, cid string
	at       int64
	flag     string
}

func (l *loader) loadAttempts() error {
	fresh, err := l.fresh("attempts")
	if err != nil {
		return err
	}
	// Without an id an attempt is known by who, what, when and which flag,
	// so loading a file twice does not double its attempts; nor does an
	// attempt given twice in one file. The attempts loaded so far are
	// remembered for that, when some have no id.
	var loaded map[attemptKey]bool
	timeless := false
	for _, a := range l.ds.Attempts {
		if a.ID == "" {
			loaded = map[attemptKey]bool{}
			timeless = timeless || a.At == nil
		}
	}
	var n int64
	ins := l.bulk.inserter("attempts", "id, user_id, challenge_id, flag, created_at, door, key_id, practice", &n)
	for i, a := range l.ds.Attempts {
		a.Flag = strings.TrimSpace(a.Flag)
		uid, cid, err := l.refs("attempts", i, a.User, a.Challenge)
		if err != nil {
			return err
		}
		at := ms(l.stamp(a.At))
		var seen bool
		switch {
		case a.ID != "":
			if !fresh {
				seen, err = l.exists("SELECT count(*) FROM attempts WHERE id = ?", a.ID)
			}
		case a.At != nil:
			if seen = loaded[attemptKey{uid, cid, at, a.Flag}]; !seen && !fresh {
				seen, err = l.exists("SELECT count(*) FROM attempts WHERE user_id = ? AND challenge_id = ? AND created_at = ? AND flag = ?",
					uid, cid, at, a.Flag)
			}
		default:
			if seen = loaded[attemptKey{uid, cid, anyTime, a.Flag}]; !seen && !fresh {
				seen, err = l.exists("SELECT count(*) FROM attempts WHERE user_id = ? AND challenge_id = ? AND flag = ?",
					uid, cid, a.Flag)
			}
		}
		if err != nil {
			return fmt.Errorf("load attempt: %w", err)
		}
		if seen {
			l.rep.count("attempts", false, false)
			continue
		}
		if err := ins.add(orNewID(a.ID), uid, cid, a.Flag, at, a.Door, nullString(a.Key), a.Practice); err != nil {
			return fmt.Errorf("load attempt: %w", err)
		}
		if loaded != nil {
			loaded[attemptKey{uid, cid, at, a.Flag}] = true
			if timeless {
				loaded[attemptKey{uid, cid, anyTime, a.Flag}] = true
			}
		}
		l.rep.count("attempts", true, false)
	}
	return ins.flush()
}

// solvedBy reports whether the user has solved the challenge; writeups and
// reviews come only after a solve.
func (l *loader) solvedBy(uid, cid string) (bool, error) {
	if l.solved[[2]string{uid, cid}] {
		return true, nil // a solve of the dataset: no round trip
	}
	return l.exists("SELECT count(*) FROM solves WHERE user_id = ? AND challenge_id = ?", uid, cid)
}

func (l *loader) loadWriteups() error {
	fresh, err := l.fresh("writeups")
	if err != nil {
		return err
	}
	var n int64
	ins := l.bulk.inserter("writeups", "id, user_id, challenge_id, title, content, images, status, reason, created_at, updated_at", &n)
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
		if fresh {
			// One writeup per user and challenge (Validate), ids unique.
			created, updated := ms(l.stamp(w.CreatedAt)), ms(l.stamp(w.UpdatedAt))
			if w.UpdatedAt == nil {
				updated = created
			}
			if err := ins.add(orNewID(w.ID), uid, cid, w.Title, w.Content, string(ij), status, w.Reason, created, updated); err != nil {
				return fmt.Errorf("load writeup: %w", err)
			}
			l.rep.count("writeups", true, false)
			continue
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
	return ins.flush()
}

func (l *loader) loadReviews() error {
	fresh, err := l.fresh("reviews")
	if err != nil {
		return err
	}
	var n int64
	ins := l.bulk.inserter("reviews", "id, user_id, challenge_id, stars, difficulty, created_at", &n)
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
		if fresh {
			if err := ins.add(orNewID(r.ID), uid, cid, r.Stars, r.Difficulty, ms(l.stamp(r.CreatedAt))); err != nil {
				return fmt.Errorf("load review: %w", err)
			}
			l.rep.count("reviews", true, false)
			continue
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
	return ins.flush()
}
