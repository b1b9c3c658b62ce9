package transfer

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/store"
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
	ins := l.tx.Play().NewSolves()
	for i, s := range l.ds.Solves {
		s.Flag = strings.TrimSpace(s.Flag) // as a live submission is accepted
		uid, cid, err := l.refs("solves", i, s.User, s.Challenge)
		if err != nil {
			return err
		}
		at := l.stamp(s.At)
		l.solved[[2]string{uid, cid}] = true
		if !fresh {
			if done, err := l.storedSolve(i, s, uid, cid, at); err != nil {
				return err
			} else if done {
				continue
			}
			if s.ID != "" {
				if taken, err := l.tx.Play().SolveIDTaken(s.ID); err != nil {
					return fmt.Errorf("load solve: %w", err)
				} else if taken {
					return l.fail("solves", i, "id", "id %q already belongs to another solve", s.ID)
				}
			}
		}
		if err := ins.Add(solveRow(orNewID(s.ID), uid, cid, at, s)); err != nil {
			return fmt.Errorf("load solve: %w", err)
		}
		l.rep.count("solves", true, false)
	}
	// Writeups and reviews look for their solve.
	return ins.Flush()
}

func solveRow(id, uid, cid string, at time.Time, s dataset.Solve) store.SolveRow {
	return store.SolveRow{Solve: ctf.Solve{ID: id, UserID: uid, ChallengeID: cid, Flag: s.Flag, At: at, Practice: s.Practice},
		Door: s.Door, KeyID: s.Key}
}

// storedSolve updates the stored solve of uid and cid, if there is one
// (done then).
func (l *loader) storedSolve(i int, s dataset.Solve, uid, cid string, at time.Time) (done bool, err error) {
	old, ok, err := l.tx.Play().Solve(uid, cid)
	if err != nil {
		return false, fmt.Errorf("load solve: %w", err)
	}
	if !ok {
		return false, nil
	}
	if s.At == nil {
		at = old.At
	}
	err = l.tx.Play().UpsertSolve(solveRow(orNewID(s.ID), uid, cid, at, s))
	if store.IsUniqueViolation(err) {
		return true, l.fail("solves", i, "id", "id %q already belongs to another solve", s.ID)
	}
	if err != nil {
		return true, fmt.Errorf("load solve: %w", err)
	}
	l.rep.count("solves", false, !old.At.Equal(at) || old.Flag != s.Flag || old.Practice != s.Practice)
	return true, nil
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
	ins := l.tx.Play().NewAttempts()
	for i, a := range l.ds.Attempts {
		a.Flag = strings.TrimSpace(a.Flag)
		uid, cid, err := l.refs("attempts", i, a.User, a.Challenge)
		if err != nil {
			return err
		}
		stamp := l.stamp(a.At)
		at := stamp.UnixMilli()
		var seen bool
		switch {
		case a.ID != "":
			if !fresh {
				seen, err = l.tx.Play().AttemptIDTaken(a.ID)
			}
		case a.At != nil:
			if seen = loaded[attemptKey{uid, cid, at, a.Flag}]; !seen && !fresh {
				seen, err = l.tx.Play().HasAttempt(uid, cid, a.Flag, &stamp)
			}
		default:
			if seen = loaded[attemptKey{uid, cid, anyTime, a.Flag}]; !seen && !fresh {
				seen, err = l.tx.Play().HasAttempt(uid, cid, a.Flag, nil)
			}
		}
		if err != nil {
			return fmt.Errorf("load attempt: %w", err)
		}
		if seen {
			l.rep.count("attempts", false, false)
			continue
		}
		if err := ins.Add(store.Attempt{ID: orNewID(a.ID), UserID: uid, ChallengeID: cid, Flag: a.Flag, At: stamp, Door: a.Door,
			KeyID: a.Key, Practice: a.Practice}); err != nil {
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
	return ins.Flush()
}

// solvedBy reports whether the user has solved the challenge; writeups and
// reviews come only after a solve.
func (l *loader) solvedBy(uid, cid string) (bool, error) {
	if l.solved[[2]string{uid, cid}] {
		return true, nil // a solve of the dataset: no round trip
	}
	return l.tx.Play().Solved(uid, cid)
}

func (l *loader) loadWriteups() error {
	fresh, err := l.fresh("writeups")
	if err != nil {
		return err
	}
	ins := l.tx.Content().NewWriteups()
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
		nw := ctf.Writeup{UserID: uid, ChallengeID: cid, Title: w.Title, Content: w.Content, Images: w.Images,
			Status: w.Status, Reason: w.Reason, CreatedAt: l.stamp(w.CreatedAt), UpdatedAt: l.stamp(w.UpdatedAt)}
		if nw.Images == nil {
			nw.Images = []string{}
		}
		if nw.Status == "" {
			nw.Status = ctf.WriteupPending
		}
		if fresh {
			// One writeup per user and challenge (Validate), ids unique.
			if w.UpdatedAt == nil {
				nw.UpdatedAt = nw.CreatedAt
			}
			nw.ID = orNewID(w.ID)
			if err := ins.Add(nw); err != nil {
				return fmt.Errorf("load writeup: %w", err)
			}
			l.rep.count("writeups", true, false)
			continue
		}
		old, exists, err := l.tx.Content().Writeup(uid, cid)
		if err != nil {
			return fmt.Errorf("load writeup: %w", err)
		}
		if exists && w.CreatedAt == nil {
			nw.CreatedAt = old.CreatedAt
		}
		if w.UpdatedAt == nil {
			nw.UpdatedAt = nw.CreatedAt
		}
		nw.ID = orNewID(w.ID)
		err = l.tx.Content().UpsertWriteup(nw)
		if store.IsUniqueViolation(err) {
			return l.fail("writeups", i, "id", "id %q already belongs to another writeup", w.ID)
		}
		if err != nil {
			return fmt.Errorf("load writeup: %w", err)
		}
		oldImages, _ := json.Marshal(old.Images)
		newImages, _ := json.Marshal(nw.Images)
		changed := old.Title != w.Title || old.Content != w.Content || string(oldImages) != string(newImages) || old.Status != nw.Status ||
			old.Reason != w.Reason || !old.CreatedAt.Equal(nw.CreatedAt) || !old.UpdatedAt.Equal(nw.UpdatedAt)
		l.rep.count("writeups", !exists, exists && changed)
	}
	return ins.Flush()
}

func (l *loader) loadReviews() error {
	fresh, err := l.fresh("reviews")
	if err != nil {
		return err
	}
	ins := l.tx.Content().NewReviews()
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
		nr := ctf.Review{ID: orNewID(r.ID), UserID: uid, ChallengeID: cid, Stars: r.Stars, Difficulty: r.Difficulty,
			CreatedAt: l.stamp(r.CreatedAt)}
		if fresh {
			if err := ins.Add(nr); err != nil {
				return fmt.Errorf("load review: %w", err)
			}
			l.rep.count("reviews", true, false)
			continue
		}
		old, exists, err := l.tx.Content().Review(uid, cid)
		if err != nil {
			return fmt.Errorf("load review: %w", err)
		}
		if exists && r.CreatedAt == nil {
			nr.CreatedAt = old.CreatedAt
		}
		err = l.tx.Content().UpsertReview(nr)
		if store.IsUniqueViolation(err) {
			return l.fail("reviews", i, "id", "id %q already belongs to another review", r.ID)
		}
		if err != nil {
			return fmt.Errorf("load review: %w", err)
		}
		l.rep.count("reviews", !exists, exists && (old.Stars != r.Stars || old.Difficulty != r.Difficulty || !old.CreatedAt.Equal(nr.CreatedAt)))
	}
	return ins.Flush()
}

// loadSharing records the suspected sharings a dataset lists (a dump's),
// each once by id.
func (l *loader) loadSharing() error {
	for i, sh := range l.ds.Sharing {
		uid, cid, err := l.refs("sharing", i, sh.User, sh.Challenge)
		if err != nil {
			return err
		}
		owner, err := l.userID(sh.Owner)
		if err != nil {
			return err
		}
		if owner == "" {
			return l.fail("sharing", i, "owner", "no user %q in the dataset or the database", sh.Owner)
		}
		added, err := l.tx.Play().PutSharing(store.Sharing{ID: orNewID(sh.ID), ChallengeID: cid, UserID: uid, OwnerID: owner,
			At: l.stamp(sh.At), Door: sh.Door, KeyID: sh.Key})
		if err != nil {
			return err
		}
		l.rep.count("sharing", added, false)
	}
	return nil
}
