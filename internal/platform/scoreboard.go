package platform

import (
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// LeaderboardVersion is live.State.LeaderboardVersion.
func (s *Scoreboard) LeaderboardVersion() uint64 { return s.live.State().LeaderboardVersion() }

// Leaderboard is live.State.Leaderboard.
func (s *Scoreboard) Leaderboard(have func(userID string, version uint64) bool) (uint64, []live.LeaderboardRow) {
	return s.live.State().Leaderboard(have)
}

// PlaceAmong is live.State.PlaceAmong.
func (s *Scoreboard) PlaceAmong(who live.Who, userID string) int {
	return s.live.State().PlaceAmong(who, userID)
}

// LeaderboardPage is live.State.LeaderboardPage.
func (s *Scoreboard) LeaderboardPage(offset, limit int, solves bool) (total int, page []live.RankedEntry) {
	return s.live.State().LeaderboardPage(offset, limit, solves)
}

// LeaderboardPageOf is live.State.LeaderboardPageOf.
func (s *Scoreboard) LeaderboardPageOf(who live.Who, offset, limit int, solves bool) (total int, page []live.RankedEntry) {
	return s.live.State().LeaderboardPageOf(who, offset, limit, solves)
}

// Profile is live.State.Profile.
func (s *Scoreboard) Profile(userID string) *live.PublicProfile {
	return s.live.State().Profile(userID)
}

// LiveLeaderboardPageOf is live.State.LiveLeaderboardPageOf.
func (s *Scoreboard) LiveLeaderboardPageOf(v ctf.Viewer, who live.Who, offset, limit int, solves bool) (total int, page []live.RankedEntry, err error) {
	return s.live.State().LiveLeaderboardPageOf(v, who, offset, limit, solves)
}

// ProfileByName is live.State.ProfileByName.
func (s *Scoreboard) ProfileByName(username string) *live.PublicProfile {
	return s.live.State().ProfileByName(username)
}

// RankOf is live.State.RankOf.
func (s *Scoreboard) RankOf(userID string) int { return s.live.State().RankOf(userID) }
