package store

import (
	"context"
	"fmt"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Submission is one checked flag submission.
type Submission struct {
	UserID      string
	ChallengeID string
	Flag        string
	Correct     bool
	At          time.Time
	Door        string // the front door that made it: ctf.DoorAPI, DoorWeb, DoorMCP
	KeyID       string // the API key that authenticated it, "" for a session
	// Practice marks a submission after the end in practice mode: recorded,
	// counted nowhere, and not told on the live stream.
	Practice bool
}

// Recorded is a recorded submission: the row's sequence number in its
// table, and the solve when the flag was right.
type Recorded struct {
	Seq   int64
	Solve *ctf.Solve
}

// RateLimit bounds wrong submissions per user and challenge in a window.
// Max <= 0 disables it.
type RateLimit struct {
	Max    int
	Window time.Duration
}

// testHookBeforeSubmitCommit, set by tests only, sees a submission's
// transaction just before it commits.
var testHookBeforeSubmitCommit func(ctx context.Context, tx *sqlTx)

// RecordSubmission applies the database's part of the submit rules in one
// transaction, in the order PRODUCT.md fixes: an existing solve is a
// Conflict (whatever the flag), then too many recent wrong submissions is
// RateLimited, then the submission is recorded, as a solve when correct (the
// unique key turns a racing duplicate into Conflict) or as a wrong attempt.
// It returns what it recorded, once it is durable: the commit waits for
// the disk (SQLite synchronous=FULL, PostgreSQL synchronous_commit on), so
// an acknowledged attempt or solve survives a crash or a power cut.
//
// The database keeps this exact across processes: SQLite runs one write
// transaction at a time; PostgreSQL's transaction first takes an advisory
// lock on the user and challenge. A solve's time is never before that of
// the challenge's newest solve (it is moved up to it if need be), and on
// PostgreSQL solves of one challenge are recorded under a lock on it, so
// for each challenge the order by (time, seq) is the order in which the
// solves were committed: the first in that order, the first blood, is
// decided once. So when RecordSubmission returns a solve, every solve of
// the challenge before it in that order is committed: a read made then
// (ChangesSince) finds them all.
func (db *DB) RecordSubmission(ctx context.Context, s Submission, limit RateLimit) (Recorded, error) {
	tx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return Recorded{}, fmt.Errorf("submit: %w", err)
	}
	defer tx.Rollback()
	if err := lockSubmission(ctx, tx, s.UserID, s.ChallengeID); err != nil {
		return Recorded{}, fmt.Errorf("submit: lock: %w", err)
	}
	// One round trip for both checks: already solved, then rate limited.
	since := ms(s.At.Add(-limit.Window))
	var solved, recent int
	var oldest *int64
	if err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM solves WHERE user_id = ? AND challenge_id = ?),
		(SELECT count(*) FROM attempts WHERE user_id = ? AND challenge_id = ? AND created_at > ?),
		(SELECT min(created_at) FROM attempts WHERE user_id = ? AND challenge_id = ? AND created_at > ?)`,
		s.UserID, s.ChallengeID, s.UserID, s.ChallengeID, since, s.UserID, s.ChallengeID, since).Scan(&solved, &recent, &oldest); err != nil {
		return Recorded{}, fmt.Errorf("submit: checks: %w", err)
	}
	if solved > 0 {
		return Recorded{}, ctf.Errorf(ctf.Conflict, "challenge already solved")
	}
	if limit.Max > 0 && recent >= limit.Max {
		retry := limit.Window
		if oldest != nil {
			retry = fromMs(*oldest).Add(limit.Window).Sub(s.At)
		}
		e := ctf.Errorf(ctf.RateLimited, "too many wrong submissions for this challenge; try again later")
		e.RetryAfter = retry
		return Recorded{}, e
	}
	id := ctf.NewID()
	if !s.Correct {
		var rec Recorded
		if err := tx.QueryRowContext(ctx, `INSERT INTO attempts (id, user_id, challenge_id, flag, created_at, door, key_id, practice)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`, id, s.UserID, s.ChallengeID, s.Flag, ms(s.At), s.Door, nullString(s.KeyID), s.Practice).Scan(&rec.Seq); err != nil {
			return Recorded{}, fmt.Errorf("submit: record attempt: %w", err)
		}
		if err := notifyChange(ctx, tx); err != nil {
			return Recorded{}, fmt.Errorf("submit: %w", err)
		}
		if testHookBeforeSubmitCommit != nil {
			testHookBeforeSubmitCommit(ctx, tx)
		}
		if err := tx.Commit(); err != nil {
			return Recorded{}, fmt.Errorf("submit: commit: %w", err)
		}
		return rec, nil
	}
	if err := lockChallengeSolves(ctx, tx, s.ChallengeID); err != nil {
		return Recorded{}, fmt.Errorf("submit: lock: %w", err)
	}
	solve := &ctf.Solve{ID: id, UserID: s.UserID, ChallengeID: s.ChallengeID, Flag: s.Flag, Practice: s.Practice}
	var at int64
	err = tx.QueryRowContext(ctx, `INSERT INTO solves (id, user_id, challenge_id, flag, door, key_id, practice, solved_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, `+db.dialect.greatest("?", "COALESCE((SELECT max(solved_at) FROM solves WHERE challenge_id = ?), 0)")+`)
		RETURNING seq, solved_at`, id, s.UserID, s.ChallengeID, s.Flag, s.Door, nullString(s.KeyID), s.Practice, ms(s.At), s.ChallengeID).Scan(&solve.Seq, &at)
	if isUniqueViolation(err) {
		return Recorded{}, ctf.Errorf(ctf.Conflict, "challenge already solved")
	}
	if err != nil {
		return Recorded{}, fmt.Errorf("submit: record solve: %w", err)
	}
	solve.At = fromMs(at)
	if !s.Practice {
		// Last, so the stream's counter is held only until the commit.
		if _, err := appendStream(ctx, tx, StreamRow{Kind: "solve", UserID: s.UserID, ChallengeID: s.ChallengeID,
			Ref: id, At: solve.At}); err != nil {
			return Recorded{}, fmt.Errorf("submit: %w", err)
		}
	}
	if err := notifyChange(ctx, tx); err != nil {
		return Recorded{}, fmt.Errorf("submit: %w", err)
	}
	if testHookBeforeSubmitCommit != nil {
		testHookBeforeSubmitCommit(ctx, tx)
	}
	if err := tx.Commit(); err != nil {
		if isUniqueViolation(err) {
			return Recorded{}, ctf.Errorf(ctf.Conflict, "challenge already solved")
		}
		return Recorded{}, fmt.Errorf("submit: commit: %w", err)
	}
	return Recorded{Seq: solve.Seq, Solve: solve}, nil
}
