package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// itEntry is a LeaderboardEntry as expected; solves are "time/points".
func itEntry(t *testing.T, s *Server, user, name string, total int, last string, solves ...string) string {
	t.Helper()
	list := ""
	for i, sv := range solves {
		var at string
		var pts int
		fmt.Sscanf(sv, "%24s %d", &at, &pts)
		if i > 0 {
			list += ","
		}
		list += fmt.Sprintf(`{"solvedAt":%q,"points":%d}`, at, pts)
	}
	return fmt.Sprintf(`{"id":%q,"name":%q,"username":%q,"totalPoints":%d,"totalSolves":%d,"lastSolvedAt":%q,"solves":[%s]}`,
		itUID(t, s, user), name, user, total, len(solves), last, list)
}

func TestIntegrationLeaderboard(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	// alice 50+100+200 = 350, last 01-10T12:00; bob 100+50+200 = 350, last
	// 01-11T10:00 -> alice first. carol 150 and dave 50+100 = 150, both last
	// 01-12T10:00 -> carol before dave by username. carol's hidden draft
	// (1000) counts nowhere; carol has no name, so name = username. erin (no
	// solve), root (admin) and mallory (banned) are absent.
	want := `{"leaderboard":[` +
		itEntry(t, s, "alice", "Alice", 350, "2026-01-10T12:00:00.000Z",
			"2026-01-10T10:00:00.000Z 50", "2026-01-10T11:00:00.000Z 100", "2026-01-10T12:00:00.000Z 200") + "," +
		itEntry(t, s, "bob", "Bob", 350, "2026-01-11T10:00:00.000Z",
			"2026-01-10T09:00:00.000Z 100", "2026-01-10T13:00:00.000Z 50", "2026-01-11T10:00:00.000Z 200") + "," +
		itEntry(t, s, "carol", "carol", 150, "2026-01-12T10:00:00.000Z", "2026-01-12T10:00:00.000Z 150") + "," +
		itEntry(t, s, "dave", "Dave", 150, "2026-01-12T10:00:00.000Z",
			"2026-01-12T09:00:00.000Z 50", "2026-01-12T10:00:00.000Z 100") + "]}"
	lb := itGet(t, s, "/api/public/leaderboard")
	itMatch(t, "leaderboard", lb, want)
	for i := range 4 {
		if id, _ := itAt(lb, "leaderboard", i, "id").(string); id == "" || itOpaqueID.MatchString(id) {
			t.Errorf("entry %d: id %q is not an opaque string", i, id)
		}
		if img, ok := itAt(lb, "leaderboard", i).(map[string]any)["image"]; ok && img != nil {
			t.Errorf("entry %d image %v, want null (no user has an image)", i, img)
		}
	}
}

// TestIntegrationLeaderboardPages: limit and offset (an extension of the
// contract) over real HTTP, every answer checked against the OpenAPI
// document: pages are slices of the board, gzipped and revalidated like it;
// bad values are 400 {"error"}.
func TestIntegrationLeaderboardPages(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	const board = "/api/public/leaderboard"
	whole := s.Do("GET", board, nil)
	var all struct {
		Leaderboard []json.RawMessage `json:"leaderboard"`
	}
	if err := json.Unmarshal(whole.Body, &all); err != nil || len(all.Leaderboard) != 4 {
		t.Fatalf("board: %v, %d entries, want 4", err, len(all.Leaderboard))
	}
	for _, c := range []struct {
		query  string
		lo, hi int
	}{
		{"?limit=2", 0, 2}, {"?offset=1&limit=2", 1, 3}, {"?offset=3", 3, 4}, {"?offset=4", 4, 4}, {"?offset=10&limit=1", 4, 4},
	} {
		r := s.Do("GET", board+c.query, nil, "Accept-Encoding: gzip")
		itStatus(t, c.query, r, 200)
		want := `{"leaderboard":[` + string(bytes.Join(rawBytes(all.Leaderboard[c.lo:c.hi]), []byte(","))) + `]}`
		if got := string(r.Body); got != want {
			t.Errorf("GET %s = %s, want %s", c.query, got, want)
		}
		itStatus(t, c.query+" revalidated", s.Do("GET", board+c.query, nil, "If-None-Match: "+r.Header.Get("ETag")), 304)
		itStatus(t, c.query+" HEAD", s.Do("HEAD", board+c.query, nil), 200)
	}
	if r := s.Do("GET", board+"?offset=0&limit=1000", nil); !bytes.Equal(r.Body, whole.Body) || r.Header.Get("ETag") != whole.Header.Get("ETag") {
		t.Errorf("a page of the whole board differs from the board")
	}
	for _, q := range []string{"?limit=0", "?limit=1001", "?limit=x", "?offset=-1", "?limit=1&limit=1"} {
		itError(t, q, s.Do("GET", board+q, nil), 400)
	}
}

func rawBytes(list []json.RawMessage) [][]byte {
	out := make([][]byte, len(list))
	for i, m := range list {
		out[i] = m
	}
	return out
}

// TestIntegrationReload changes the database as an operator would, reloads
// the hot state, and checks that the board follows.
func TestIntegrationReload(t *testing.T) {
	t.Parallel()
	chal := func(ds *dataset.Dataset, slug string) dataset.Challenge {
		return ds.Challenges[ds.ChallengeIndex(slug)]
	}
	user := func(ds *dataset.Dataset, name string) dataset.User {
		return ds.Users[ds.UserIndex(name)]
	}
	load := func(t *testing.T, s *Server, ds *dataset.Dataset) {
		t.Helper()
		if _, err := transfer.Load(context.Background(), s.DB, ds); err != nil {
			t.Fatal(err)
		}
		s.Reload()
	}

	t.Run("hide warmup", func(t *testing.T) {
		t.Parallel()
		s := itStart(t)
		c := chal(itDataset(t), "warmup")
		c.Hidden = true
		load(t, s, &dataset.Dataset{Challenges: []dataset.Challenge{c}})
		// warmup's 50 points vanish: alice 100+200 = 300 (last 01-10T12:00),
		// bob 100+200 = 300 (last 01-11T10:00), carol 150, dave 100.
		itMatch(t, "leaderboard", itGet(t, s, "/api/public/leaderboard"), `{"leaderboard":[`+
			itEntry(t, s, "alice", "Alice", 300, "2026-01-10T12:00:00.000Z", "2026-01-10T11:00:00.000Z 100", "2026-01-10T12:00:00.000Z 200")+","+
			itEntry(t, s, "bob", "Bob", 300, "2026-01-11T10:00:00.000Z", "2026-01-10T09:00:00.000Z 100", "2026-01-11T10:00:00.000Z 200")+","+
			itEntry(t, s, "carol", "carol", 150, "2026-01-12T10:00:00.000Z", "2026-01-12T10:00:00.000Z 150")+","+
			itEntry(t, s, "dave", "Dave", 100, "2026-01-12T10:00:00.000Z", "2026-01-12T10:00:00.000Z 100")+"]}")
		list := itGet(t, s, "/api/public/challenges")
		if got := fmt.Sprint(itSlugs(list)); got != "[lost-packets baby-rsa web-login rop-chain kernel-panic]" {
			t.Errorf("list %s", got)
		}
		itError(t, "hidden detail", s.Do("GET", "/api/public/challenges/warmup", nil), 404)
		itError(t, "hidden submit", itSubmit(s, "warmup", "flag{warmup}", Bearer(s.Key("erin"))), 404)
		// A hidden prerequisite does not exist for the public API, so it
		// cannot lock web-login any more.
		itMatch(t, "web-login", itGet(t, s, "/api/public/challenges/web-login"), `{"challenge":{"unlocked":true}}`)
		// alice's profile: 300 points, rank 1; badges recomputed without
		// warmup: first solve now baby-rsa 01-10T11:00; web-login 12:00 is
		// her first blood and completes web (1/1) and crypto (2/2); misc has
		// no visible challenge left.
		me := itAt(itGet(t, s, "/api/public/me", Bearer(s.Key("alice"))), "profile")
		itMatch(t, "alice", me, `{"rank":1,"totalPoints":300,"firstBloodCount":1}`)
		itExact(t, "alice categoryCounts", itAt(me, "categoryCounts"), `{"crypto":2,"web":1}`)
		itExact(t, "alice difficultyCounts", itAt(me, "difficultyCounts"), `{"Easy":1,"Medium":1}`)
		itBadgesHeld(t, "alice", itAt(me, "badges"), "first-solve@2026-01-10T11:00:00.000Z", "first-blood@2026-01-10T12:00:00.000Z",
			"category-web@2026-01-10T12:00:00.000Z", "category-crypto@2026-01-10T12:00:00.000Z")
	})

	t.Run("reveal draft", func(t *testing.T) {
		t.Parallel()
		s := itStart(t)
		c := chal(itDataset(t), "draft")
		c.Hidden = false
		load(t, s, &dataset.Dataset{Challenges: []dataset.Challenge{c}})
		// carol's draft solve now counts: 150 + 1000 = 1150, first place.
		itMatch(t, "leaderboard", itGet(t, s, "/api/public/leaderboard"), `{"leaderboard":[`+
			itEntry(t, s, "carol", "carol", 1150, "2026-01-12T10:00:00.000Z", "2026-01-09T10:00:00.000Z 1000", "2026-01-12T10:00:00.000Z 150")+
			`,{"username":"alice"},{"username":"bob"},{"username":"dave"}]}`)
		// Listed first (created 2026-01-03); carol's wrong attempt + solve = 2.
		list := itGet(t, s, "/api/public/challenges")
		if got := fmt.Sprint(itSlugs(list)); got != "[draft lost-packets baby-rsa warmup web-login rop-chain kernel-panic]" {
			t.Errorf("list %s", got)
		}
		itMatch(t, "draft", itBySlug(list)["draft"], `{"attemptsCount":2,"solvesCount":1,"fileName":"draft.txt",
			"fileUrl":"`+s.URL+`/files/`+draftSHA+`/draft.txt"}`)
		if r := s.DoRaw("GET", "/files/"+draftSHA+"/draft.txt", nil); r.Status != 200 {
			t.Errorf("the revealed challenge's file: %d", r.Status)
		}
		// misc now has 2 visible challenges: nobody has solved both, so the
		// misc badge (a pure function of the history) is gone; carol gets
		// first blood on draft and her first solve moves to 01-09T10:00.
		alice := itAt(itGet(t, s, "/api/public/me", Bearer(s.Key("alice"))), "profile")
		itBadgesHeld(t, "alice", itAt(alice, "badges"), "first-solve@2026-01-10T10:00:00.000Z", "first-blood@2026-01-10T10:00:00.000Z",
			"category-web@2026-01-10T12:00:00.000Z", "category-crypto@2026-01-10T12:00:00.000Z")
		itMatch(t, "alice created", alice, `{"createdChallenges":[{"slug":"baby-rsa"},{"slug":"lost-packets"},{"slug":"draft"}]}`)
		carol := itAt(itGet(t, s, "/api/public/profiles/"+itUID(t, s, "carol")), "profile")
		itMatch(t, "carol", carol, `{"rank":1,"totalPoints":1150,"firstBloodCount":2,"top3Count":2}`)
		itBadgesHeld(t, "carol", itAt(carol, "badges"), "first-solve@2026-01-09T10:00:00.000Z", "first-blood@2026-01-09T10:00:00.000Z",
			"category-forensics@2026-01-12T10:00:00.000Z")
	})

	t.Run("ban bob", func(t *testing.T) {
		t.Parallel()
		s := itStart(t)
		u := user(itDataset(t), "bob")
		u.Banned = true
		load(t, s, &dataset.Dataset{Users: []dataset.User{u}})
		// bob leaves the board; alice, carol, dave keep their totals.
		lb := itGet(t, s, "/api/public/leaderboard")
		itMatch(t, "leaderboard", lb, `{"leaderboard":[{"username":"alice","totalPoints":350},{"username":"carol","totalPoints":150},
			{"username":"dave","totalPoints":150}]}`)
		bobID := itUID(t, s, "bob")
		itMatch(t, "bob's profile", itGet(t, s, "/api/public/profiles/"+bobID), `{"profile":{"rank":0,"firstBloodCount":0,"top3Count":0}}`)
		// baby-rsa: solves alice, dave = 2 = attempts; web-login: solve alice 1
		// (bob's wrong attempt and solve gone) = attempts 1.
		itWantCounts(t, "baby-rsa", s, "baby-rsa", 2, 2)
		itWantCounts(t, "web-login", s, "web-login", 1, 1)
		// alice now has first blood on baby-rsa too: warmup, baby-rsa, web-login.
		itMatch(t, "alice", itGet(t, s, "/api/public/me", Bearer(s.Key("alice"))), `{"profile":{"rank":1,"firstBloodCount":3,"top3Count":3}}`)
		// erin (no solve) ranks after the 3 ranked players.
		itMatch(t, "erin", itGet(t, s, "/api/public/profiles/"+itUID(t, s, "erin")), `{"profile":{"rank":4}}`)
	})

	t.Run("correct points", func(t *testing.T) {
		t.Parallel()
		s := itStart(t)
		c := chal(itDataset(t), "warmup")
		c.Points = 80
		load(t, s, &dataset.Dataset{Challenges: []dataset.Challenge{c}})
		// warmup 50 -> 80 for everyone: alice 380, bob 380, dave 80+100 = 180,
		// carol 150: dave now before carol.
		itMatch(t, "leaderboard", itGet(t, s, "/api/public/leaderboard"), `{"leaderboard":[`+
			itEntry(t, s, "alice", "Alice", 380, "2026-01-10T12:00:00.000Z",
				"2026-01-10T10:00:00.000Z 80", "2026-01-10T11:00:00.000Z 100", "2026-01-10T12:00:00.000Z 200")+","+
			itEntry(t, s, "bob", "Bob", 380, "2026-01-11T10:00:00.000Z",
				"2026-01-10T09:00:00.000Z 100", "2026-01-10T13:00:00.000Z 80", "2026-01-11T10:00:00.000Z 200")+","+
			itEntry(t, s, "dave", "Dave", 180, "2026-01-12T10:00:00.000Z", "2026-01-12T09:00:00.000Z 80", "2026-01-12T10:00:00.000Z 100")+","+
			itEntry(t, s, "carol", "carol", 150, "2026-01-12T10:00:00.000Z", "2026-01-12T10:00:00.000Z 150")+"]}")
		itMatch(t, "warmup", itGet(t, s, "/api/public/challenges/warmup"), `{"challenge":{"points":80}}`)
		itMatch(t, "dave", itGet(t, s, "/api/public/profiles/"+itUID(t, s, "dave")), `{"profile":{"rank":3,"totalPoints":180}}`)
		// A live solve is worth the corrected value.
		itMatch(t, "erin solves", itDecode(t, "submit", itSubmit(s, "warmup", "flag{warmup}", Bearer(s.Key("erin"))).Body),
			`{"result":{"success":true,"points":80}}`)
	})
}
