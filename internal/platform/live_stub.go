package platform

// TEMPORARY (branch eventweb): a stand-in for LiveLeaderboardPageOf, which
// the lead is adding to reads.go on main (the standings counting frozen
// solves). It answers the frozen standings, so the web app's admin view
// compiles and renders; delete this file when merging.

// LiveLeaderboardPageOf is LeaderboardPageOf counting the solves a freeze
// holds back, for admins only.
func (s *Service) LiveLeaderboardPageOf(v Viewer, who Who, offset, limit int, solves bool) (total int, page []RankedEntry, err error) {
	if !v.admin() {
		return 0, nil, errNotAdmin
	}
	total, page = s.LeaderboardPageOf(who, offset, limit, solves)
	return total, page, nil
}
