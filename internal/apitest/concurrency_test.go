package apitest

// Concurrency tests: many goroutines hit the real HTTP stack (SQLite file,
// hot state, API) at once, and the database and every public view must agree
// afterwards. They are meant to run under `go test -race`.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// ---------------------------------------------------------------------------
// Helpers shared by the tests of this package (also used by badinput_test.go).

// cxExchange is one finished request, made without the harness' t.Fatal so it
// can run in any goroutine.
type cxExchange struct {
	Method, Path string
	Status       int
	Header       http.Header
	Body         []byte
	Err          error
}

// cxTransport allows enough idle connections for the concurrent tests.
var cxTransport = &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: 30 * time.Second}

// send makes a request with exactly the given headers (no trimming, repeated
// names allowed) and returns the response; safe in any goroutine.
func cxSend(s *Server, method, path string, body []byte, hdr http.Header) cxExchange {
	ex := cxExchange{Method: method, Path: path}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		ex.Err = err
		return ex
	}
	for k, vs := range hdr {
		req.Header[k] = append([]string(nil), vs...)
	}
	resp, err := cxTransport.RoundTrip(req)
	if err != nil {
		ex.Err = err
		return ex
	}
	defer resp.Body.Close()
	ex.Status, ex.Header = resp.StatusCode, resp.Header
	ex.Body, ex.Err = io.ReadAll(resp.Body)
	return ex
}

// validate checks an cxExchange against the OpenAPI document.
func cxValidate(s *Server, ex cxExchange) error {
	if ex.Err != nil {
		return ex.Err
	}
	req, err := http.NewRequest(ex.Method, s.URL+ex.Path, nil)
	if err != nil {
		return err
	}
	return s.Validator.ValidateResponse(req, ex.Status, ex.Header, ex.Body)
}

// cxKeyHeader is the header set authenticating with key.
func cxKeyHeader(key string) http.Header {
	return http.Header{"Authorization": {"Bearer " + key}}
}

func cxJSONHeader(key string) http.Header {
	h := cxKeyHeader(key)
	h.Set("Content-Type", "application/json")
	return h
}

func cxFlagBody(flag string) []byte {
	b, _ := json.Marshal(map[string]string{"flag": flag})
	return b
}

// cxErrorMessage returns the "error" of a JSON error body, or an error when the
// body is not exactly {"error": "<non-empty string>"}.
func cxErrorMessage(body []byte) (string, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return "", fmt.Errorf("error body is not JSON: %v: %.200q", err, body)
	}
	msg, ok := m["error"].(string)
	if !ok || strings.TrimSpace(msg) == "" {
		return "", fmt.Errorf(`error body has no non-empty "error" string: %.200q`, body)
	}
	if len(m) != 1 {
		return "", fmt.Errorf(`error body has other keys than "error": %.200q`, body)
	}
	return msg, nil
}

// Views of the responses the tests read.

type cxBadge struct {
	ID string `json:"id"`
}

type cxSubmit struct {
	Result struct {
		Success   bool      `json:"success"`
		Points    int       `json:"points"`
		NewBadges []cxBadge `json:"newBadges"`
	} `json:"result"`
}

type cxChallenge struct {
	ID            string  `json:"id"`
	Slug          string  `json:"slug"`
	Points        int     `json:"points"`
	AttemptsCount int     `json:"attemptsCount"`
	SolvesCount   int     `json:"solvesCount"`
	Solved        bool    `json:"solved"`
	SubmittedFlag *string `json:"submittedFlag"`
}

type cxProfile struct {
	ID               string `json:"id"`
	Username         string `json:"username"`
	Rank             int    `json:"rank"`
	TotalPoints      int    `json:"totalPoints"`
	FirstBloodCount  int    `json:"firstBloodCount"`
	Top3Count        int    `json:"top3Count"`
	SolvedChallenges []struct {
		SolvedAt  string `json:"solvedAt"`
		Challenge struct {
			Slug   string `json:"slug"`
			Points int    `json:"points"`
		} `json:"challenge"`
	} `json:"solvedChallenges"`
	Badges []struct {
		BadgeID string `json:"badgeId"`
	} `json:"badges"`
}

type cxLeaderboardEntry struct {
	ID          string `json:"id"`
	Username    string `json:"username"`
	TotalPoints int    `json:"totalPoints"`
	TotalSolves int    `json:"totalSolves"`
	Solves      []struct {
		SolvedAt string `json:"solvedAt"`
		Points   int    `json:"points"`
	} `json:"solves"`
}

// cxGetJSON GETs path (validated against the document), requires 200 and
// decodes the body into v. Test goroutine only.
func cxGetJSON(t testing.TB, s *Server, path string, hdr http.Header, v any) {
	t.Helper()
	ex := cxSend(s, "GET", path, nil, hdr)
	if ex.Err != nil {
		t.Fatalf("GET %s: %v", path, ex.Err)
	}
	if err := cxValidate(s, ex); err != nil {
		t.Errorf("GET %s: %v", path, err)
	}
	if ex.Status != 200 {
		t.Fatalf("GET %s: status %d: %s", path, ex.Status, truncate(ex.Body))
	}
	if err := json.Unmarshal(ex.Body, v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

func cxGetChallenge(t testing.TB, s *Server, slug string, hdr http.Header) cxChallenge {
	t.Helper()
	var v struct {
		Challenge cxChallenge `json:"challenge"`
	}
	cxGetJSON(t, s, "/api/public/challenges/"+slug, hdr, &v)
	return v.Challenge
}

func cxGetMe(t testing.TB, s *Server, key string) cxProfile {
	t.Helper()
	var v struct {
		Profile cxProfile `json:"profile"`
	}
	cxGetJSON(t, s, "/api/public/me", cxKeyHeader(key), &v)
	return v.Profile
}

func cxGetLeaderboard(t testing.TB, s *Server) []cxLeaderboardEntry {
	t.Helper()
	var v struct {
		Leaderboard []cxLeaderboardEntry `json:"leaderboard"`
	}
	cxGetJSON(t, s, "/api/public/leaderboard", nil, &v)
	return v.Leaderboard
}

func cxGetChallengeList(t testing.TB, s *Server) map[string]cxChallenge {
	t.Helper()
	var v struct {
		Challenges []cxChallenge `json:"challenges"`
	}
	cxGetJSON(t, s, "/api/public/challenges", nil, &v)
	out := map[string]cxChallenge{}
	for _, c := range v.Challenges {
		out[c.Slug] = c
	}
	return out
}

// cxCheckLeaderboard checks that every entry's totals are the sums of its
// solves and of the points of the challenges the user solved (per its
// profile), that nobody is listed twice, and that the order is by points.
// It returns the entries and the public profiles of the listed users by
// username.
func cxCheckLeaderboard(t testing.TB, s *Server) ([]cxLeaderboardEntry, map[string]cxProfile) {
	t.Helper()
	lb := cxGetLeaderboard(t, s)
	profiles := map[string]cxProfile{}
	seen := map[string]bool{}
	for i, e := range lb {
		if seen[e.ID] {
			t.Errorf("leaderboard lists %s (%s) twice", e.Username, e.ID)
		}
		seen[e.ID] = true
		sum := 0
		for _, sv := range e.Solves {
			sum += sv.Points
		}
		if sum != e.TotalPoints || len(e.Solves) != e.TotalSolves {
			t.Errorf("leaderboard %s: totalPoints %d totalSolves %d, but solves sum to %d points over %d solves",
				e.Username, e.TotalPoints, e.TotalSolves, sum, len(e.Solves))
		}
		var p struct {
			Profile *cxProfile `json:"profile"`
		}
		cxGetJSON(t, s, "/api/public/profiles/"+e.ID, nil, &p)
		if p.Profile == nil {
			t.Errorf("leaderboard %s: no profile", e.Username)
			continue
		}
		profiles[e.Username] = *p.Profile
		psum := 0
		for _, sc := range p.Profile.SolvedChallenges {
			psum += sc.Challenge.Points
		}
		if psum != e.TotalPoints || p.Profile.TotalPoints != e.TotalPoints || len(p.Profile.SolvedChallenges) != e.TotalSolves {
			t.Errorf("leaderboard %s: %d points / %d solves, profile: totalPoints %d, %d solved challenges worth %d",
				e.Username, e.TotalPoints, e.TotalSolves, p.Profile.TotalPoints, len(p.Profile.SolvedChallenges), psum)
		}
		if p.Profile.Rank != i+1 {
			t.Errorf("leaderboard %s at position %d, profile rank %d", e.Username, i+1, p.Profile.Rank)
		}
		if i > 0 && lb[i-1].TotalPoints < e.TotalPoints {
			t.Errorf("leaderboard not sorted by points at %d: %d < %d", i, lb[i-1].TotalPoints, e.TotalPoints)
		}
	}
	return lb, profiles
}

// cxDBCounts counts the rows of the database per challenge slug: solves and
// wrong attempts.
func cxDBCounts(t testing.TB, s *Server) (solves, attempts map[string]int, solvers map[string][]string) {
	t.Helper()
	d, err := transfer.Dump(context.Background(), s.DB)
	if err != nil {
		t.Fatal(err)
	}
	solves, attempts, solvers = map[string]int{}, map[string]int{}, map[string][]string{}
	for _, sv := range d.Solves {
		solves[sv.Challenge]++
		solvers[sv.Challenge] = append(solvers[sv.Challenge], sv.User)
	}
	for _, a := range d.Attempts {
		attempts[a.Challenge]++
	}
	return solves, attempts, solvers
}

// cxHoldWriteLock takes SQLite's write lock on the server's database file
// from another connection, as another process would, and returns the
// function that releases it. Meanwhile the server's writes wait (its
// busy_timeout) while its reads go on (WAL). On PostgreSQL it locks the
// tables of submissions against writes (SHARE mode): inserts wait, reads go
// on.
func cxHoldWriteLock(t testing.TB, s *Server) (unlock func()) {
	t.Helper()
	ctx := context.Background()
	db := storetest.SQL(t, s.DSN)
	lock := "BEGIN IMMEDIATE"
	if storetest.Postgres() {
		lock = "BEGIN; LOCK TABLE solves, attempts IN SHARE MODE"
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, lock); err != nil {
		conn.Close()
		db.Close()
		t.Fatal(err)
	}
	var once sync.Once
	unlock = func() {
		once.Do(func() {
			conn.ExecContext(ctx, "ROLLBACK")
			conn.Close()
			db.Close()
		})
	}
	t.Cleanup(unlock)
	return unlock
}

// cxRelease starts n goroutines blocked on one channel, closes it so they run
// at once, and waits for all of them.
func cxRelease(n int, fn func(i int)) {
	start := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}

func cxUsersYAML(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  - {username: %s%02d, email: %s%02d@example.com}\n", prefix, i, prefix, i)
	}
	return b.String()
}

func cxStatusCounts(exs []cxExchange) map[int]int {
	m := map[int]int{}
	for _, ex := range exs {
		m[ex.Status]++
	}
	return m
}

// cxCheckExchanges fails on transport errors, 5xx, contract drift and non-JSON
// errors.
func cxCheckExchanges(t testing.TB, s *Server, exs []cxExchange) {
	t.Helper()
	for i, ex := range exs {
		if ex.Err != nil {
			t.Errorf("request %d %s %s: %v", i, ex.Method, ex.Path, ex.Err)
			continue
		}
		if ex.Status >= 500 {
			t.Errorf("request %d %s %s: %d %s", i, ex.Method, ex.Path, ex.Status, truncate(ex.Body))
		}
		if err := cxValidate(s, ex); err != nil {
			t.Errorf("request %d: %v", i, err)
		}
		if ex.Status >= 400 {
			if _, err := cxErrorMessage(ex.Body); err != nil {
				t.Errorf("request %d %s %s %d: %v", i, ex.Method, ex.Path, ex.Status, err)
			}
		}
	}
}

// ---------------------------------------------------------------------------

const cxRaceOneYAML = `
users:
  - {username: solo, email: solo@example.com}
  - {username: other, email: other@example.com}
challenges:
  - {slug: race-one, title: Race One, categories: [misc], difficulty: Easy, points: 100, flags: ['flag{race}']}
  - {slug: spare, title: Spare, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{spare}']}
`

// TestConcurrentSameUserSameFlag: 40 simultaneous correct submissions by one
// user on one challenge make exactly one solve.
func TestConcurrentSameUserSameFlag(t *testing.T) {
	s := Start(t, cxRaceOneYAML)
	key := s.Key("solo")
	const n = 40
	exs := make([]cxExchange, n)
	cxRelease(n, func(i int) {
		exs[i] = cxSend(s, "POST", "/api/public/challenges/race-one/submit", cxFlagBody("flag{race}"), cxJSONHeader(key))
	})
	cxCheckExchanges(t, s, exs)
	counts := cxStatusCounts(exs)
	if counts[200] != 1 || counts[409] != n-1 || len(counts) != 2 {
		t.Fatalf("statuses %v, want exactly one 200 and %d 409", counts, n-1)
	}
	for _, ex := range exs {
		if ex.Status == 200 {
			var r cxSubmit
			if err := json.Unmarshal(ex.Body, &r); err != nil || !r.Result.Success || r.Result.Points != 100 {
				t.Errorf("200 body %s (%v): want success with 100 points", ex.Body, err)
			}
		}
	}

	check := func(when string) {
		t.Helper()
		me := cxGetMe(t, s, key)
		if len(me.SolvedChallenges) != 1 || me.SolvedChallenges[0].Challenge.Slug != "race-one" || me.TotalPoints != 100 {
			t.Errorf("%s: /me has %d solved challenges and %d points, want race-one only (100)", when, len(me.SolvedChallenges), me.TotalPoints)
		}
		c := cxGetChallenge(t, s, "race-one", cxKeyHeader(key))
		if c.SolvesCount != 1 || c.AttemptsCount != 1 || !c.Solved || c.SubmittedFlag == nil || *c.SubmittedFlag != "flag{race}" {
			t.Errorf("%s: challenge solvesCount %d attemptsCount %d solved %v submittedFlag %v, want 1, 1, true, flag{race}",
				when, c.SolvesCount, c.AttemptsCount, c.Solved, c.SubmittedFlag)
		}
		lb, _ := cxCheckLeaderboard(t, s)
		listed := 0
		for _, e := range lb {
			if e.Username == "solo" {
				listed++
				if e.TotalSolves != 1 || e.TotalPoints != 100 {
					t.Errorf("%s: leaderboard solo: %d solves %d points, want 1 and 100", when, e.TotalSolves, e.TotalPoints)
				}
			}
		}
		if listed != 1 || len(lb) != 1 {
			t.Errorf("%s: leaderboard has %d entries, solo listed %d times; want solo once", when, len(lb), listed)
		}
	}
	check("live")
	solves, attempts, _ := cxDBCounts(t, s)
	if solves["race-one"] != 1 || attempts["race-one"] != 0 {
		t.Errorf("database: %d solves, %d wrong attempts of race-one, want 1 and 0", solves["race-one"], attempts["race-one"])
	}
	// The hot state rebuilt from the database tells the same story.
	s.Reload()
	check("after reload")
}

// TestConcurrentFirstBlood: 30 different users race for a fresh challenge,
// several times over (fresh users and a fresh challenge each round); each
// race has exactly one first blood, announced in exactly one newBadges (to
// the player whose profile then holds it), and a podium of three. With the
// database briefly busy at the start of each race (see below), this failed
// in most runs before 9efaa66 (solves stamped before queueing for the
// database and applied to the hot state in completion order announced
// first-blood to two to four players per race).
func TestConcurrentFirstBlood(t *testing.T) {
	const players, rounds = 30, 6
	var y strings.Builder
	y.WriteString("users:\n")
	for r := range rounds {
		y.WriteString(cxUsersYAML(fmt.Sprintf("r%dp", r), players))
	}
	y.WriteString("challenges:\n")
	for r := range rounds {
		// Two challenges per category, so a solve never completes a category.
		fmt.Fprintf(&y, "  - {slug: fresh-%d, title: Fresh %d, categories: [cat%d], difficulty: Medium, points: %d, flags: ['flag{fresh-%d}']}\n",
			r, r, r, 100*(r+1), r)
		fmt.Fprintf(&y, "  - {slug: later-%d, title: Later %d, categories: [cat%d], difficulty: Medium, points: 10, flags: ['flag{later-%d}']}\n",
			r, r, r, r)
	}
	// A clock that ticks a millisecond at every reading: each submission
	// gets its own time, as under real traffic, so the order in which the
	// racing solves reach the database can differ from their times.
	var ticks atomic.Int64
	base := time.Now().UTC().Truncate(time.Second)
	tick := func() time.Time { return base.Add(time.Duration(ticks.Add(1)) * time.Millisecond) }
	s := Start(t, y.String(), Options{Now: tick})
	keys := make([][]string, rounds)
	for r := range rounds {
		for i := range players {
			keys[r] = append(keys[r], s.Key(fmt.Sprintf("r%dp%02d", r, i)))
		}
	}
	bloodByBadge := make([][]int, rounds) // per round, players whose newBadges had first-blood

	// check verifies round r against the public profiles of its players
	// (profiles by username, as read from the leaderboard).
	check := func(r int, when string, profiles map[string]cxProfile) {
		t.Helper()
		slug := fmt.Sprintf("fresh-%d", r)
		var blood, podium []int
		for i := range players {
			me, ok := profiles[fmt.Sprintf("r%dp%02d", r, i)]
			if !ok {
				t.Errorf("round %d %s: player %d is not on the leaderboard", r, when, i)
				continue
			}
			if me.FirstBloodCount > 1 || me.Top3Count > 1 {
				t.Errorf("round %d %s: player %d firstBloodCount %d top3Count %d (one solve)", r, when, i, me.FirstBloodCount, me.Top3Count)
			}
			if me.FirstBloodCount == 1 {
				blood = append(blood, i)
			}
			if me.Top3Count == 1 {
				podium = append(podium, i)
			}
			hasBadge := false
			for _, b := range me.Badges {
				hasBadge = hasBadge || b.BadgeID == "first-blood"
			}
			if hasBadge != (me.FirstBloodCount == 1) {
				t.Errorf("round %d %s: player %d has first-blood badge %v but firstBloodCount %d", r, when, i, hasBadge, me.FirstBloodCount)
			}
			if len(me.SolvedChallenges) != 1 || me.TotalPoints != 100*(r+1) {
				t.Errorf("round %d %s: player %d has %d solves and %d points", r, when, i, len(me.SolvedChallenges), me.TotalPoints)
			}
		}
		if len(blood) != 1 {
			t.Errorf("round %d %s: players with firstBloodCount 1: %v, want exactly one", r, when, blood)
		}
		if len(podium) != 3 {
			t.Errorf("round %d %s: players with top3Count 1: %v, want exactly three", r, when, podium)
		}
		if len(blood) == 1 && !cxContainsInt(podium, blood[0]) {
			t.Errorf("round %d %s: first blood %d is not on the podium %v", r, when, blood[0], podium)
		}
		if len(blood) == 1 && (len(bloodByBadge[r]) != 1 || bloodByBadge[r][0] != blood[0]) {
			t.Errorf("round %d %s: player %d holds the first blood (profile), but newBadges announced first-blood to players %v",
				r, when, blood[0], bloodByBadge[r])
			d, err := transfer.Dump(context.Background(), s.DB)
			if err == nil {
				for _, sv := range d.Solves {
					for i := range players {
						if (cxContainsInt(bloodByBadge[r], i) || cxContainsInt(blood, i)) && sv.User == fmt.Sprintf("r%dp%02d", r, i) {
							t.Logf("  solve of %s: at %s (id %s)", sv.User, sv.At.Format(time.RFC3339Nano), sv.ID)
						}
					}
				}
			}
		}
		c := cxGetChallenge(t, s, slug, nil)
		if c.SolvesCount != players || c.AttemptsCount != players {
			t.Errorf("round %d %s: solvesCount %d attemptsCount %d, want %d and %d", r, when, c.SolvesCount, c.AttemptsCount, players, players)
		}
	}

	for r := range rounds {
		slug := fmt.Sprintf("fresh-%d", r)
		points := 100 * (r + 1)
		exs := make([]cxExchange, players)
		// The database is busy for a moment when the race starts (another
		// replica's write, an operator's load, a checkpoint): the racers are
		// stamped and then queue for it, beside the same players' wrong
		// flags on the other challenge of the category. The queue is served
		// in no particular order, so the solves reach the database in
		// another order than their times, which first blood must survive.
		noise := make([]cxExchange, players)
		unlock := cxHoldWriteLock(t, s)
		var unlocked sync.WaitGroup
		unlocked.Add(1)
		go func() {
			defer unlocked.Done()
			time.Sleep(150 * time.Millisecond)
			unlock()
		}()
		cxRelease(2*players, func(i int) {
			if i >= players {
				noise[i-players] = cxSend(s, "POST", fmt.Sprintf("/api/public/challenges/later-%d/submit", r), cxFlagBody("nope"), cxJSONHeader(keys[r][i-players]))
				return
			}
			exs[i] = cxSend(s, "POST", "/api/public/challenges/"+slug+"/submit", cxFlagBody(fmt.Sprintf("flag{fresh-%d}", r)), cxJSONHeader(keys[r][i]))
		})
		unlocked.Wait()
		cxCheckExchanges(t, s, exs)
		cxCheckExchanges(t, s, noise)
		if c := cxStatusCounts(noise); c[400] != players {
			t.Errorf("round %d: wrong flags on later-%d answered %v, want %d × 400", r, r, c, players)
		}
		if c := cxStatusCounts(exs); c[200] != players {
			t.Fatalf("round %d: statuses %v, want %d × 200", r, c, players)
		}
		for i, ex := range exs {
			var res cxSubmit
			if err := json.Unmarshal(ex.Body, &res); err != nil {
				t.Fatal(err)
			}
			if res.Result.Points != points {
				t.Errorf("round %d player %d: %d points, want %d", r, i, res.Result.Points, points)
			}
			for _, b := range res.Result.NewBadges {
				if b.ID == "first-blood" {
					bloodByBadge[r] = append(bloodByBadge[r], i)
				}
			}
		}
		if len(bloodByBadge[r]) != 1 {
			t.Errorf("round %d: newBadges contained first-blood for players %v, want exactly one", r, bloodByBadge[r])
		}
	}
	// Each round's players solved only their challenge, so their profiles
	// are final once their round is over.
	lb, profiles := cxCheckLeaderboard(t, s)
	if len(lb) != players*rounds {
		t.Errorf("leaderboard has %d entries, want %d", len(lb), players*rounds)
	}
	for r := range rounds {
		check(r, "live", profiles)
	}
	solves, _, _ := cxDBCounts(t, s)
	for r := range rounds {
		if slug := fmt.Sprintf("fresh-%d", r); solves[slug] != players {
			t.Errorf("round %d: database has %d solves, want %d", r, solves[slug], players)
		}
	}
	// The hot state rebuilt from the database agrees.
	s.Reload()
	lb, profiles = cxCheckLeaderboard(t, s)
	if len(lb) != players*rounds {
		t.Errorf("after reload: leaderboard has %d entries, want %d", len(lb), players*rounds)
	}
	for r := range rounds {
		check(r, "after reload", profiles)
	}
}

func cxContainsInt(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

// TestConcurrentMixed: writers submit right and wrong flags across users and
// challenges while readers read every public view; afterwards the counts
// match the responses, the totals are consistent and nothing answered 5xx.
func TestConcurrentMixed(t *testing.T) {
	const (
		nUsers, nChals     = 16, 4
		writers, perWriter = 12, 20
		readers, maxReads  = 4, 400
	)
	var y strings.Builder
	y.WriteString("users:\n" + cxUsersYAML("mix", nUsers))
	y.WriteString("  - {username: boss, email: boss@example.com, role: admin}\n")
	y.WriteString("challenges:\n")
	for c := range nChals {
		fmt.Fprintf(&y, "  - {slug: mix-%d, title: Mix %d, categories: [c%d, shared], difficulty: Hard, points: %d, flags: ['flag{mix-%d}', {type: regex, content: 'alt\\{%d[0-9]+\\}'}]}\n",
			c, c, c%2, 10*(c+1), c, c)
	}
	s := Start(t, y.String(), Options{RateLimit: store.RateLimit{Max: 15, Window: time.Minute}})
	keys := make([]string, nUsers)
	for i := range keys {
		keys[i] = s.Key(fmt.Sprintf("mix%02d", i))
	}
	bossKey := s.Key("boss")
	users := map[string]string{} // key -> username
	for i, k := range keys {
		users[k] = fmt.Sprintf("mix%02d", i)
	}

	type sub struct {
		user, chal int
		admin      bool
		ex         cxExchange
	}
	var mu sync.Mutex
	var subs []sub
	var writing atomic.Int32
	writing.Store(writers)
	var reads atomic.Int64
	var bad []string
	badf := func(format string, args ...any) {
		mu.Lock()
		bad = append(bad, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	began := time.Now()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer writing.Add(-1)
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			<-start
			for range perWriter {
				u, c := rng.IntN(nUsers), rng.IntN(nChals)
				key, admin := keys[u], false
				if rng.IntN(20) == 0 {
					key, admin = bossKey, true
				}
				var flag string
				switch rng.IntN(12) {
				case 0:
					flag = fmt.Sprintf("flag{mix-%d}", c)
				case 1:
					flag = fmt.Sprintf("  alt{%d%d}\n", c, rng.IntN(1000))
				case 2:
					flag = fmt.Sprintf("flag{mix-%d}", (c+1)%nChals) // another challenge's flag
				default:
					flag = fmt.Sprintf("wrong-%d", rng.IntN(1e6))
				}
				ex := cxSend(s, "POST", fmt.Sprintf("/api/public/challenges/mix-%d/submit", c), cxFlagBody(flag), cxJSONHeader(key))
				if err := cxValidate(s, ex); err != nil {
					badf("%v", err)
				}
				mu.Lock()
				subs = append(subs, sub{user: u, chal: c, admin: admin, ex: ex})
				mu.Unlock()
			}
		}()
	}
	for rd := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(rd), 7))
			<-start
			for i := 0; i < maxReads && writing.Load() > 0; i++ {
				var path string
				var hdr http.Header
				switch rng.IntN(6) {
				case 0:
					path = "/api/public/leaderboard"
				case 1:
					path = "/api/public/challenges"
				case 2:
					path = "/api/public/challenges"
					hdr = cxKeyHeader(keys[rng.IntN(nUsers)])
				case 3:
					path = fmt.Sprintf("/api/public/challenges/mix-%d", rng.IntN(nChals))
					hdr = cxKeyHeader(keys[rng.IntN(nUsers)])
				case 4:
					path = "/api/public/me"
					hdr = cxKeyHeader(keys[rng.IntN(nUsers)])
				case 5:
					path = fmt.Sprintf("/api/public/challenges/mix-%d", rng.IntN(nChals))
				}
				ex := cxSend(s, "GET", path, nil, hdr)
				reads.Add(1)
				if ex.Err != nil || ex.Status != 200 {
					badf("GET %s: %d %v %s", path, ex.Status, ex.Err, truncate(ex.Body))
					continue
				}
				if err := cxValidate(s, ex); err != nil {
					badf("%v", err)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	t.Logf("%d submissions and %d reads in %v", len(subs), reads.Load(), time.Since(began))
	for _, b := range bad {
		t.Error(b)
	}

	ok := make([]int, nChals)    // 200s by players
	wrong := make([]int, nChals) // wrong-flag 400s by players
	points := map[string]int{}   // username -> points from 200s
	solvedBy := map[[2]int]int{} // (user, chal) -> number of 200s
	statuses := map[int]int{}
	for _, sb := range subs {
		ex := sb.ex
		statuses[ex.Status]++
		if ex.Err != nil || ex.Status >= 500 {
			t.Errorf("submit mix-%d: %d %v %s", sb.chal, ex.Status, ex.Err, truncate(ex.Body))
			continue
		}
		if ex.Status >= 400 {
			msg, err := cxErrorMessage(ex.Body)
			if err != nil {
				t.Errorf("submit mix-%d %d: %v", sb.chal, ex.Status, err)
			}
			if ex.Status == 400 && msg != "wrong flag" {
				t.Errorf("submit mix-%d: 400 %q, want only wrong-flag 400s (every body is valid)", sb.chal, msg)
			}
		}
		if sb.admin {
			continue // an admin's submissions count in no public aggregate
		}
		switch ex.Status {
		case 200:
			ok[sb.chal]++
			solvedBy[[2]int{sb.user, sb.chal}]++
			points[users[keys[sb.user]]] += 10 * (sb.chal + 1)
		case 400:
			wrong[sb.chal]++
		case 409, 429:
		default:
			t.Errorf("submit mix-%d: unexpected status %d %s", sb.chal, ex.Status, ex.Body)
		}
	}
	t.Logf("statuses: %v", statuses)
	for k, n := range solvedBy {
		if n > 1 {
			t.Errorf("user %d got %d × 200 on mix-%d", k[0], n, k[1])
		}
	}

	check := func(when string) {
		t.Helper()
		list := cxGetChallengeList(t, s)
		for c := range nChals {
			slug := fmt.Sprintf("mix-%d", c)
			got := list[slug]
			if got.AttemptsCount != ok[c]+wrong[c] {
				t.Errorf("%s: %s attemptsCount %d, want %d (200s) + %d (wrong-flag 400s) = %d",
					when, slug, got.AttemptsCount, ok[c], wrong[c], ok[c]+wrong[c])
			}
			if got.SolvesCount != ok[c] {
				t.Errorf("%s: %s solvesCount %d, want %d (200s)", when, slug, got.SolvesCount, ok[c])
			}
			if d := cxGetChallenge(t, s, slug, nil); d.AttemptsCount != got.AttemptsCount || d.SolvesCount != got.SolvesCount {
				t.Errorf("%s: %s detail says %d/%d, list %d/%d", when, slug, d.AttemptsCount, d.SolvesCount, got.AttemptsCount, got.SolvesCount)
			}
		}
		lb, _ := cxCheckLeaderboard(t, s)
		total := 0
		for _, e := range lb {
			total += e.TotalSolves
			if e.TotalPoints != points[e.Username] {
				t.Errorf("%s: leaderboard %s has %d points, the 200s gave %d", when, e.Username, e.TotalPoints, points[e.Username])
			}
			if e.Username == "boss" {
				t.Errorf("%s: the admin is on the leaderboard", when)
			}
		}
		want := 0
		for _, n := range ok {
			want += n
		}
		if total != want {
			t.Errorf("%s: leaderboard totalSolves sum to %d, want %d", when, total, want)
		}
		for i, k := range keys {
			me := cxGetMe(t, s, k)
			if me.TotalPoints != points[me.Username] {
				t.Errorf("%s: /me of user %d: %d points, the 200s gave %d", when, i, me.TotalPoints, points[me.Username])
			}
		}
	}
	check("live")
	s.Reload()
	check("after reload")
}

// TestConcurrentRateLimit: 20 simultaneous wrong submissions against a limit
// of 5 per minute: exactly 5 are checked (and recorded), 15 refused.
func TestConcurrentRateLimit(t *testing.T) {
	s := Start(t, cxRaceOneYAML, Options{RateLimit: store.RateLimit{Max: 5, Window: time.Minute}})
	key := s.Key("solo")
	before := cxGetChallenge(t, s, "race-one", nil)
	const n = 20
	exs := make([]cxExchange, n)
	cxRelease(n, func(i int) {
		exs[i] = cxSend(s, "POST", "/api/public/challenges/race-one/submit", cxFlagBody(fmt.Sprintf("nope-%d", i)), cxJSONHeader(key))
	})
	cxCheckExchanges(t, s, exs)
	counts := cxStatusCounts(exs)
	if counts[400] != 5 || counts[429] != 15 || len(counts) != 2 {
		t.Errorf("statuses %v, want 5 × 400 and 15 × 429", counts)
	}
	for _, ex := range exs {
		if ex.Status == 429 && ex.Header.Get("Retry-After") == "" {
			t.Errorf("429 without Retry-After")
		}
	}
	after := cxGetChallenge(t, s, "race-one", nil)
	if after.AttemptsCount != before.AttemptsCount+5 || after.SolvesCount != before.SolvesCount {
		t.Errorf("attemptsCount %d -> %d, solvesCount %d -> %d; want +5 attempts, no solve",
			before.AttemptsCount, after.AttemptsCount, before.SolvesCount, after.SolvesCount)
	}
	_, attempts, _ := cxDBCounts(t, s)
	if attempts["race-one"] != 5 {
		t.Errorf("database has %d wrong attempts, want 5", attempts["race-one"])
	}
	// The limit holds per user and challenge: another user and another
	// challenge are not affected; the right flag is still refused (429 comes
	// before the flag check).
	other := s.Key("other")
	if ex := cxSend(s, "POST", "/api/public/challenges/race-one/submit", cxFlagBody("nope"), cxJSONHeader(other)); ex.Status != 400 {
		t.Errorf("another user: %d %s, want 400", ex.Status, ex.Body)
	}
	if ex := cxSend(s, "POST", "/api/public/challenges/spare/submit", cxFlagBody("nope"), cxJSONHeader(key)); ex.Status != 400 {
		t.Errorf("another challenge: %d %s, want 400", ex.Status, ex.Body)
	}
	if ex := cxSend(s, "POST", "/api/public/challenges/race-one/submit", cxFlagBody("flag{race}"), cxJSONHeader(key)); ex.Status != 429 {
		t.Errorf("right flag over the limit: %d %s, want 429", ex.Status, ex.Body)
	}
	s.Reload()
	if c := cxGetChallenge(t, s, "race-one", nil); c.AttemptsCount != before.AttemptsCount+6 {
		t.Errorf("after reload attemptsCount %d, want %d", c.AttemptsCount, before.AttemptsCount+6)
	}
}
