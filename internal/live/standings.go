package live

import "time"

// Standing is a ranked player as a scoreboard feed (CTFtime) reports it.
type Standing struct {
	Pos   int    // 1-based, the public leaderboard's order
	Team  string // the display name
	Score int
	// Tasks are the player's solves in time order, each at its
	// challenge's current points, as the leaderboard counts them.
	Tasks      []TaskStat
	LastAccept time.Time // the last solve's time
}

// TaskStat is one solved challenge of a Standing.
type TaskStat struct {
	Task   string // the challenge's title
	Points int
	At     time.Time
}

// Standings returns the visible challenges' titles in list order and the
// ranked players in leaderboard order. It reads exactly what the public
// leaderboard reads (the ranking and each player's publicly counted
// solves), so the feed never tells more than the board shows.
func (st *State) Standings() (tasks []string, rows []Standing) {
	st.mu.RLock()
	defer st.mu.RUnlock()
	tasks = make([]string, len(st.visible))
	for i, c := range st.visible {
		tasks[i] = c.Title
	}
	order, _ := st.rankingLocked()
	rows = make([]Standing, len(order))
	for i, u := range order {
		row := Standing{Pos: i + 1, Team: displayName(u), Score: u.points, Tasks: make([]TaskStat, len(u.solves))}
		for j, x := range u.solves {
			row.Tasks[j] = TaskStat{Task: x.chal.Title, Points: x.worth, At: x.At}
		}
		if last, ok := u.lastSolvedAt(); ok {
			row.LastAccept = last.At
		}
		rows[i] = row
	}
	return tasks, rows
}
