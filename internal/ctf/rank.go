package ctf

import "time"

// Standing is what ranking needs to know about a player.
type Standing struct {
	Username     string
	TotalPoints  int
	LastSolvedAt time.Time
}

// RanksBefore reports whether a ranks above b on the leaderboard: more
// points first, then whoever reached their score first, then by username so
// the order is total.
func RanksBefore(a, b Standing) bool {
	if a.TotalPoints != b.TotalPoints {
		return a.TotalPoints > b.TotalPoints
	}
	if !a.LastSolvedAt.Equal(b.LastSolvedAt) {
		return a.LastSolvedAt.Before(b.LastSolvedAt)
	}
	return a.Username < b.Username
}

// SolveBefore orders solves of one challenge: by time, then by database
// order, so exactly one solve is first even when two share a millisecond.
func SolveBefore(a, b *Solve) bool {
	if !a.At.Equal(b.At) {
		return a.At.Before(b.At)
	}
	return a.Seq < b.Seq
}
