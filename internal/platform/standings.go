package platform

import "github.com/flagshipctf/flagship/internal/live"

// Standings is live.State.Standings.
func (s *Scoreboard) Standings() (tasks []string, rows []live.Standing) {
	return s.live.State().Standings()
}
