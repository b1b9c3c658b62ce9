package store

import (
	"context"
	"fmt"
	"time"
)

// recentWrongFrom is the rows the rate limit counts: a user's wrong
// submissions to a challenge after the window's start (parameters: user,
// challenge, window start in ms). The statements that record a submission
// and RecentWrong share it, so what a player is told is left and what the
// limit lets through cannot disagree. (PostgreSQL's statement over arrays,
// submit_postgres.go, spells the same count with aliases.)
const recentWrongFrom = "FROM attempts WHERE user_id = ? AND challenge_id = ? AND created_at > ?"

// RecentWrong counts the wrong submissions of a user to a challenge that
// the rate limit counts at now (those after now - window), and the time of
// the oldest of them (zero when none): the limit lets one more through once
// it leaves the window.
func (p Play) RecentWrong(ctx context.Context, userID, challengeID string, now time.Time, window time.Duration) (int, time.Time, error) {
	var count int
	var oldest *int64
	err := p.db.r.QueryRowContext(ctx, "SELECT count(*), min(created_at) "+recentWrongFrom,
		userID, challengeID, ms(now.Add(-window))).Scan(&count, &oldest)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("recent wrong submissions: %w", err)
	}
	if oldest == nil {
		return count, time.Time{}, nil
	}
	return count, fromMs(*oldest), nil
}
