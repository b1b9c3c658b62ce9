package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

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
