package ctftime_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// event: three players with solves (bob's name is empty, so his team is
// his username), an admin and a banned player whose solves count nowhere,
// a hidden challenge that is no task.
const event = `
users:
  - {username: alice, name: Alice, email: alice@example.com, createdAt: 2026-01-01T00:00:00Z}
  - {username: bob, email: bob@example.com, createdAt: 2026-01-01T01:00:00Z}
  - {username: carol, name: Carol, email: carol@example.com, createdAt: 2026-01-01T02:00:00Z}
  - {username: erin, name: Erin, email: erin@example.com, createdAt: 2026-01-01T03:00:00Z}
  - {username: root, name: Root, email: root@example.com, role: admin, createdAt: 2026-01-01T00:30:00Z}
  - {username: mallory, name: Mallory, email: mallory@example.com, banned: true, createdAt: 2026-01-01T05:00:00Z}
challenges:
  - {slug: warmup, title: Warmup, description: Read the rules., categories: [misc], difficulty: Easy, points: 50,
     flags: ['flag{warmup}'], createdAt: 2026-01-05T10:00:00Z}
  - {slug: baby-rsa, title: Baby RSA, description: Small numbers., categories: [crypto], difficulty: Easy, points: 100,
     flags: ['flag{rsa}'], createdAt: 2026-01-06T10:00:00Z}
  - {slug: rop, title: ROP Chain, description: Return to where., categories: [pwn], difficulty: Hard, points: 300,
     flags: ['flag{rop}'], createdAt: 2026-01-07T10:00:00Z}
  - {slug: draft, title: Draft, description: Not ready., categories: [misc], difficulty: Easy, points: 1000,
     flags: ['flag{draft}'], hidden: true, createdAt: 2026-01-03T10:00:00Z}
solves:
  - {user: alice, challenge: warmup, at: 2026-01-10T10:00:00Z, flag: 'flag{warmup}'}
  - {user: alice, challenge: baby-rsa, at: 2026-01-10T11:00:00Z, flag: 'flag{rsa}'}
  - {user: bob, challenge: rop, at: 2026-01-10T09:00:00Z, flag: 'flag{rop}'}
  - {user: carol, challenge: warmup, at: 2026-01-11T09:00:00Z, flag: 'flag{warmup}'}
  - {user: carol, challenge: draft, at: 2026-01-11T10:00:00Z, flag: 'flag{draft}'}
  - {user: root, challenge: rop, at: 2026-01-09T00:00:00Z, flag: 'flag{rop}'}
  - {user: mallory, challenge: rop, at: 2026-01-09T01:00:00Z, flag: 'flag{rop}'}
`

// feed is CTFtime's scoreboard feed, every field required by the tests.
type feed struct {
	Tasks     []string `json:"tasks"`
	Standings []struct {
		Pos       int    `json:"pos"`
		Team      string `json:"team"`
		Score     int    `json:"score"`
		TaskStats map[string]struct {
			Points int   `json:"points"`
			Time   int64 `json:"time"`
		} `json:"taskStats"`
		LastAccept int64 `json:"lastAccept"`
	} `json:"standings"`
}

// strict decodes body into v, refusing unknown fields and trailing data.
func strict(t *testing.T, label string, body []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v\n%s", label, err, body)
	}
	if dec.More() {
		t.Fatalf("%s: trailing data after the document:\n%s", label, body)
	}
}

func getFeed(t *testing.T, s *apitest.Server) feed {
	t.Helper()
	r := s.DoRaw("GET", "/api/ctftime", nil)
	if r.Status != 200 {
		t.Fatalf("GET /api/ctftime: %d %s", r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store (a cached copy could outlive a freeze)", cc)
	}
	var f feed
	strict(t, "feed", r.Body, &f)
	return f
}

type board struct {
	Leaderboard []struct {
		ID           string    `json:"id"`
		Name         string    `json:"name"`
		Username     string    `json:"username"`
		TotalPoints  int       `json:"totalPoints"`
		LastSolvedAt time.Time `json:"lastSolvedAt"`
		Solves       []struct {
			SolvedAt time.Time `json:"solvedAt"`
			Points   int       `json:"points"`
		} `json:"solves"`
	} `json:"leaderboard"`
}

// wantLeaderboard checks that f tells exactly what the public leaderboard
// and challenge list tell.
func wantLeaderboard(t *testing.T, s *apitest.Server, f feed) {
	t.Helper()
	var b board
	if err := json.Unmarshal(s.Do("GET", "/api/public/leaderboard", nil).Body, &b); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Challenges []struct {
			Title string `json:"title"`
		} `json:"challenges"`
	}
	if err := json.Unmarshal(s.Do("GET", "/api/public/challenges", nil).Body, &list); err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, c := range list.Challenges {
		titles = append(titles, c.Title)
	}
	if diff := gocmp.Diff(titles, f.Tasks); diff != "" {
		t.Errorf("tasks, against the challenge list's titles (-want +got):\n%s", diff)
	}
	if len(f.Standings) != len(b.Leaderboard) {
		t.Fatalf("%d standings, want the leaderboard's %d", len(f.Standings), len(b.Leaderboard))
	}
	for i, e := range b.Leaderboard {
		st := f.Standings[i]
		if st.Pos != i+1 || st.Team != e.Name || st.Score != e.TotalPoints || st.LastAccept != e.LastSolvedAt.Unix() {
			t.Errorf("standing %d = pos %d team %q score %d lastAccept %d, want pos %d team %q score %d lastAccept %d",
				i, st.Pos, st.Team, st.Score, st.LastAccept, i+1, e.Name, e.TotalPoints, e.LastSolvedAt.Unix())
		}
		// The leaderboard's solves have no challenge: compare what both
		// tell, each solve's time and points.
		type pt struct {
			at     int64
			points int
		}
		var want, got []pt
		for _, x := range e.Solves {
			want = append(want, pt{x.SolvedAt.Unix(), x.Points})
		}
		for _, title := range f.Tasks {
			if ts, ok := st.TaskStats[title]; ok {
				got = append(got, pt{ts.Time, ts.Points})
			}
		}
		if len(got) != len(st.TaskStats) {
			t.Errorf("%s: taskStats names a challenge that is no task: %v", e.Name, st.TaskStats)
		}
		byTime := func(a, b pt) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.points, b.points)) }
		slices.SortFunc(want, byTime)
		slices.SortFunc(got, byTime)
		if diff := gocmp.Diff(want, got, gocmp.AllowUnexported(pt{})); diff != "" {
			t.Errorf("%s: taskStats, against the leaderboard's solves (-want +got):\n%s", e.Name, diff)
		}
	}
}

func TestFeed(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	f := getFeed(t, s)
	wantLeaderboard(t, s, f)

	// The values themselves, by hand: alice 150 (two solves), bob 300
	// (rop; root's and mallory's earlier solves count nowhere), carol 50
	// (the hidden draft counts nowhere).
	at := func(s string) int64 { tm, _ := time.Parse(time.RFC3339, s); return tm.Unix() }
	got, _ := json.Marshal(f)
	want := `{"tasks":["Warmup","Baby RSA","ROP Chain"],"standings":[` +
		`{"pos":1,"team":"bob","score":300,"taskStats":{"ROP Chain":{"points":300,"time":` + itoa(at("2026-01-10T09:00:00Z")) + `}},"lastAccept":` + itoa(at("2026-01-10T09:00:00Z")) + `},` +
		`{"pos":2,"team":"Alice","score":150,"taskStats":{"Baby RSA":{"points":100,"time":` + itoa(at("2026-01-10T11:00:00Z")) + `},"Warmup":{"points":50,"time":` + itoa(at("2026-01-10T10:00:00Z")) + `}},"lastAccept":` + itoa(at("2026-01-10T11:00:00Z")) + `},` +
		`{"pos":3,"team":"Carol","score":50,"taskStats":{"Warmup":{"points":50,"time":` + itoa(at("2026-01-11T09:00:00Z")) + `}},"lastAccept":` + itoa(at("2026-01-11T09:00:00Z")) + `}]}`
	if string(got) != want {
		t.Errorf("feed\n%s\nwant\n%s", got, want)
	}

	// A live solve moves the feed as it moves the board: erin takes
	// Baby RSA and ranks third (100 points, above carol's 50).
	key := apitest.Bearer(s.Key("erin"))
	if r := s.Do("POST", "/api/public/challenges/baby-rsa/submit", []byte(`{"flag":"flag{rsa}"}`), key, "Content-Type: application/json"); r.Status != 200 {
		t.Fatalf("erin's solve: %d %s", r.Status, r.Body)
	}
	f = getFeed(t, s)
	wantLeaderboard(t, s, f)
	if n := len(f.Standings); n != 4 || f.Standings[2].Team != "Erin" || f.Standings[2].Score != 100 {
		t.Errorf("after erin's solve: %+v", f.Standings)
	}
}

// TestFeedFrozen: during a freeze the feed shows the standings as of the
// freeze, as the public leaderboard does, not the live ones.
func TestFeedFrozen(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event)
	before := getFeed(t, s)
	freeze := time.Now().Add(-time.Minute)
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ctf.Event{Name: "Test", Freeze: &freeze}); err != nil {
		t.Fatal(err)
	}
	key := apitest.Bearer(s.Key("erin"))
	if r := s.Do("POST", "/api/public/challenges/rop/submit", []byte(`{"flag":"flag{rop}"}`), key, "Content-Type: application/json"); r.Status != 200 {
		t.Fatalf("erin's solve during the freeze: %d %s", r.Status, r.Body)
	}
	frozen := getFeed(t, s)
	wantLeaderboard(t, s, frozen)
	if diff := gocmp.Diff(before, frozen); diff != "" {
		t.Errorf("the feed moved during the freeze (-before +during):\n%s", diff)
	}
}

func TestFeedRefusals(t *testing.T) {
	t.Parallel()
	on := apitest.Start(t, event)
	off := apitest.Start(t, event, apitest.Options{CTFtimeOff: true})
	for _, c := range []struct {
		name   string
		s      *apitest.Server
		method string
		status int
		allow  string
	}{
		{"turned off", off, "GET", 404, ""},
		{"turned off, HEAD", off, "HEAD", 404, ""},
		{"POST", on, "POST", 405, "GET, HEAD"},
		{"DELETE", on, "DELETE", 405, "GET, HEAD"},
		{"HEAD", on, "HEAD", 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := c.s.DoRaw(c.method, "/api/ctftime", nil)
			if r.Status != c.status || r.Header.Get("Allow") != c.allow {
				t.Fatalf("%s /api/ctftime = %d Allow %q, want %d Allow %q", c.method, r.Status, r.Header.Get("Allow"), c.status, c.allow)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if c.status == 200 || c.method == "HEAD" {
				return
			}
			var e struct {
				Error string `json:"error"`
			}
			strict(t, "error", r.Body, &e)
			if e.Error == "" {
				t.Errorf("empty error: %s", r.Body)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
