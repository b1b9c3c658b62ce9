package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// ChangesSince returns the solves and wrong attempts whose sequence number
// is after the given one or among the given gaps: numbers a reader skipped
// because their transaction had not committed yet (PostgreSQL hands out
// numbers at insert, not at commit).
func (db *DB) ChangesSince(ctx context.Context, solveAfter int64, solveGaps []int64, attemptAfter int64, attemptGaps []int64) ([]ctf.Solve, []AttemptRef, error) {
	solves, err := db.SolvesSince(ctx, solveAfter, solveGaps)
	if err != nil {
		return nil, nil, err
	}
	where, args := seqFilter(attemptAfter, attemptGaps)
	rows, err := db.r.QueryContext(ctx, "SELECT seq, user_id, challenge_id FROM attempts WHERE "+where+" ORDER BY seq", args...)
	if err != nil {
		return nil, nil, fmt.Errorf("query new attempts: %w", err)
	}
	defer rows.Close()
	var attempts []AttemptRef
	for rows.Next() {
		var a AttemptRef
		if err := rows.Scan(&a.Seq, &a.UserID, &a.ChallengeID); err != nil {
			return nil, nil, fmt.Errorf("scan attempt: %w", err)
		}
		attempts = append(attempts, a)
	}
	return solves, attempts, rows.Err()
}

// SolvesSince is the solves half of ChangesSince.
func (db *DB) SolvesSince(ctx context.Context, after int64, gaps []int64) ([]ctf.Solve, error) {
	where, args := seqFilter(after, gaps)
	return querySolves(ctx, db.r, where, args...)
}

func seqFilter(after int64, gaps []int64) (string, []any) {
	args := make([]any, 0, len(gaps)+1)
	args = append(args, after)
	if len(gaps) == 0 {
		return "seq > ?", args
	}
	var b strings.Builder
	b.WriteString("(seq > ? OR seq IN (")
	for i, g := range gaps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("?")
		args = append(args, g)
	}
	b.WriteString("))")
	return b.String(), args
}

// Listener wakes a running server when another process records a
// submission. It is nil-safe to ignore: polling catches up anyway.
type Listener func(ctx context.Context, wake func()) error

// retryDelay spaces reconnection attempts of a listener.
const retryDelay = time.Second
