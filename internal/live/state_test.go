package live

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// boardJSON is the leaderboard's rows as JSON.
func boardJSON(st *State) string {
	_, rows := st.Leaderboard(nil)
	entries := make([]*LeaderboardEntry, len(rows))
	for i, r := range rows {
		entries[i] = r.Entry
	}
	b, _ := json.Marshal(map[string]any{"leaderboard": entries})
	return string(b)
}

func t0(min int) time.Time { return time.Date(2026, 1, 5, 10, min, 0, 0, time.UTC) }

func testState() *State {
	flag := []ctf.Flag{{Kind: "static", Content: "f"}}
	return newState(&store.Snapshot{
		Users: []ctf.User{
			{ID: "u1", Username: "ann", Role: ctf.RolePlayer},
			{ID: "u2", Username: "bob", Name: "Bob", Role: ctf.RolePlayer},
			{ID: "u3", Username: "root", Role: ctf.RoleAdmin},
		},
		Challenges: []ctf.Challenge{
			{ID: "c1", Slug: "a", Title: "A", Categories: []string{"web"}, Difficulty: ctf.Easy, Points: 100, Flags: flag, CreatedAt: t0(0)},
			{ID: "c2", Slug: "b", Title: "B", Categories: []string{"web"}, Difficulty: ctf.Hard, Points: 300, Flags: flag, CreatedAt: t0(1), Requires: []string{"c1"}},
			{ID: "c3", Slug: "h", Title: "H", Categories: []string{"web"}, Difficulty: ctf.Easy, Points: 999, Flags: flag, CreatedAt: t0(2), Hidden: true},
		},
		Solves: []ctf.Solve{
			{Seq: 1, ID: "s1", UserID: "u2", ChallengeID: "c1", At: t0(5)},
			{Seq: 2, ID: "s2", UserID: "u3", ChallengeID: "c1", At: t0(4)}, // admin: counts nowhere public
			{Seq: 3, ID: "s3", UserID: "u1", ChallengeID: "c3", At: t0(6)}, // hidden: counts nowhere
		},
		WrongAttempts: map[string]int64{"c1": 2},
		MaxSolveSeq:   3, MaxAttemptSeq: 10,
	}, "http://x", t0(0))
}

type board struct {
	Leaderboard []struct {
		Username    string `json:"username"`
		Name        string `json:"name"`
		TotalPoints int    `json:"totalPoints"`
	} `json:"leaderboard"`
}

func TestStateCountsAndBoard(t *testing.T) {
	st := testState()
	c1 := st.chals["c1"]
	if got := len(c1.playerSolves); got != 1 {
		t.Errorf("c1 player solves = %d, want 1 (admin excluded)", got)
	}
	if got := c1.attempts(); got != 3 {
		t.Errorf("c1 attempts = %d, want 2 wrong + 1 solve", got)
	}
	if len(st.visible) != 2 || st.catTotal["web"] != 2 {
		t.Errorf("visible %d, web total %d; the hidden challenge must count nowhere", len(st.visible), st.catTotal["web"])
	}
	var b board
	if err := json.Unmarshal([]byte(boardJSON(st)), &b); err != nil {
		t.Fatal(err)
	}
	if len(b.Leaderboard) != 1 || b.Leaderboard[0].Username != "bob" || b.Leaderboard[0].TotalPoints != 100 || b.Leaderboard[0].Name != "Bob" {
		t.Errorf("board = %+v", b.Leaderboard)
	}
	if st.unlocked(st.chals["c2"], st.users["u1"]) || !st.unlocked(st.chals["c2"], st.users["u2"]) || st.unlocked(st.chals["c2"], nil) {
		t.Error("c2 must be unlocked exactly for solvers of c1")
	}
}

func TestStateBodiesFollowSolvesNotWrongAttempts(t *testing.T) {
	st := testState()
	board1, list1, c1, c2 := st.solveVer, st.listVer, st.chals["c1"].ver, st.chals["c2"].ver
	st.applyAttempts([]store.Submission{{UserID: "u1", ChallengeID: "c1"}}, []store.SubmitOutcome{{Recorded: store.Recorded{Seq: 11}}})
	if st.solveVer != board1 {
		t.Error("a wrong attempt changed the leaderboard's version")
	}
	if st.listVer == list1 || st.chals["c1"].ver == c1 || st.chals["c2"].ver != c2 {
		t.Error("a wrong attempt must change the list and c1's entry (attemptsCount), and only it")
	}
	kept := st.applySolves([]ctf.Solve{{Seq: 4, ID: "s4", UserID: "u1", ChallengeID: "c1", At: t0(3)}}, nil, nil, t0(3))
	var ids []string
	for _, a := range kept[0].Awards {
		ids = append(ids, a.ID)
	}
	// ann solved at 10:03, before bob's 10:05: she takes the first blood.
	if len(ids) != 2 || ids[0] != "first-solve" || ids[1] != "first-blood" {
		t.Errorf("new badges = %v, want first-solve, first-blood", ids)
	}
	var b board
	json.Unmarshal([]byte(boardJSON(st)), &b)
	if len(b.Leaderboard) != 2 || b.Leaderboard[0].Username != "ann" {
		t.Errorf("board after ann's earlier solve = %+v", b.Leaderboard)
	}
	if p := podium(st.users["u2"].solved["c1"]); p != 1 {
		t.Errorf("bob's place = %d, want 1", p)
	}
}

func TestStateCatchUpCountsEachRowOnce(t *testing.T) {
	st := testState()
	st.applyAttempts([]store.Submission{{UserID: "u1", ChallengeID: "c1"}}, []store.SubmitOutcome{{Recorded: store.Recorded{Seq: 11}}}) // this process's own attempt
	st.catchUp(store.Entities{}, &store.Delta{
		Solves:   []ctf.Solve{{Seq: 4, ID: "s4", UserID: "u1", ChallengeID: "c1", At: t0(7)}, {Seq: 1, ID: "s1", UserID: "u2", ChallengeID: "c1", At: t0(5)}},
		Attempts: []store.AttemptRef{{Seq: 11, UserID: "u1", ChallengeID: "c1"}, {Seq: 12, UserID: "u2", ChallengeID: "c2"}, {Seq: 13, UserID: "u3", ChallengeID: "c1"}},
	}, t0(10), noObserver{})
	if got := st.chals["c1"].attempts(); got != 5 {
		t.Errorf("c1 attempts = %d, want 2 loaded + 1 own + 2 solves", got)
	}
	if got := st.chals["c2"].wrong; got != 1 {
		t.Errorf("c2 wrong = %d, want 1", got)
	}
	if st.solveSeqs.max != 4 || st.attemptSeqs.max != 13 || len(st.attemptSeqs.own) != 0 {
		t.Errorf("trackers %+v / %+v", st.solveSeqs, st.attemptSeqs)
	}
	// A replayed batch changes nothing.
	st.catchUp(store.Entities{}, &store.Delta{Solves: []ctf.Solve{{Seq: 4, ID: "s4", UserID: "u1", ChallengeID: "c1", At: t0(7)}}}, t0(11), noObserver{})
	if got := st.users["u1"].points; got != 100 {
		t.Errorf("ann's points = %d after a replayed solve, want 100", got)
	}
}

// newState builds a state from snap with versions from the start.
func newState(snap *store.Snapshot, publicURL string, now time.Time) *State {
	return newStateAfter(snap, publicURL, now, 0)
}

// TestABadgeIsAnnouncedOnce (issue 20, fix 6): a badge a change took away
// (a new challenge in its category) and a solve gave back is not announced
// again; one never held is.
func TestABadgeIsAnnouncedOnce(t *testing.T) {
	st := testState()
	awards := func(kept []SolveKept) []string {
		var ids []string
		for _, a := range kept[0].Awards {
			ids = append(ids, a.ID)
		}
		return ids
	}
	// bob solves both shown web challenges: every web challenge solved.
	got := awards(st.applySolves([]ctf.Solve{{Seq: 4, ID: "s4", UserID: "u2", ChallengeID: "c2", At: t0(7)}}, nil, nil, t0(7)))
	if !slices.Contains(got, "category-web") {
		t.Fatalf("bob's awards = %v, want category-web among them", got)
	}
	// The hidden web challenge is shown: bob no longer holds the badge
	// (two of three), and his solve of it gives it back, unannounced.
	st.mu.Lock()
	c3 := st.chals["c3"].Challenge
	c3.Hidden = false
	st.putChallenge(c3, dirtySet{})
	held := slices.ContainsFunc(st.badges(st.users["u2"]), func(a ctf.Award) bool { return a.ID == "category-web" })
	st.mu.Unlock()
	if held {
		t.Fatal("bob still holds category-web with a third web challenge shown")
	}
	got = awards(st.applySolves([]ctf.Solve{{Seq: 5, ID: "s5", UserID: "u2", ChallengeID: "c3", At: t0(8)}}, nil, nil, t0(8)))
	st.mu.RLock()
	back := slices.ContainsFunc(st.badges(st.users["u2"]), func(a ctf.Award) bool { return a.ID == "category-web" })
	st.mu.RUnlock()
	if !back || len(got) != 0 {
		t.Errorf("bob holds category-web again: %v; announced: %v, want none", back, got)
	}
}
