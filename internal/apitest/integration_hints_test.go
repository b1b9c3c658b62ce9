package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

// Hints through the API (an extension: docs/product.md#hints). The
// hand-made event gets three challenges with hints, saved through the
// editor's use case as an admin would:
//
//	hinted         [crypto] Easy 100  flag{hinted}: hint 1 costs 30, hint 2 costs 20 and requires 1, hint 3 is free
//	hinted-locked  [web]    Easy 100  requires warmup (erin has not solved it): hint 1 costs 10
//	hinted-hidden  [misc]   Easy 100  hidden: hint 1 costs 10
//
// Every hint's content is a string found nowhere else, so a body that
// holds it leaks it.
const (
	itHintPadding = "Look at the **padding** (secret-hint-one)."
	itHintPrimes  = "The primes are close (secret-hint-two)."
	itHintFree    = "It is RSA (secret-hint-three)."
	itHintLocked  = "Behind warmup (secret-hint-locked)."
	itHintHidden  = "Not out yet (secret-hint-hidden)."
)

var itHintSecrets = []string{itHintPadding, itHintPrimes, itHintFree, itHintLocked, itHintHidden}

func itHintStart(t testing.TB) *Server {
	t.Helper()
	s := itStart(t)
	flag := func(f string) []ctf.Flag { return []ctf.Flag{{Kind: ctf.FlagStatic, Content: f}} }
	for _, in := range []platform.ChallengeInput{
		{Slug: "hinted", Title: "Hinted", Description: "Decrypt it.", Categories: []string{"crypto"}, Difficulty: ctf.Easy, Points: 100,
			Flags: flag("flag{hinted}"), Hints: []ctf.Hint{
				{ID: 1, Content: itHintPadding, Cost: 30},
				{ID: 2, Content: itHintPrimes, Cost: 20, Requires: 1},
				{ID: 3, Content: itHintFree},
			}},
		{Slug: "hinted-locked", Title: "Hinted Locked", Categories: []string{"web"}, Difficulty: ctf.Easy, Points: 100,
			Flags: flag("flag{locked}"), Requires: []string{"warmup"}, Hints: []ctf.Hint{{ID: 1, Content: itHintLocked, Cost: 10}}},
		{Slug: "hinted-hidden", Title: "Hinted Hidden", Categories: []string{"misc"}, Difficulty: ctf.Easy, Points: 100,
			Flags: flag("flag{hidden}"), Hidden: true, Hints: []ctf.Hint{{ID: 1, Content: itHintHidden, Cost: 10}}},
	} {
		if _, err := s.Svc.Content.SaveChallenge(context.Background(), ctf.Operator, in); err != nil {
			t.Fatalf("save %s: %v", in.Slug, err)
		}
	}
	return s
}

// itUnlock posts to a hint's unlock endpoint, without a body (none is
// read).
func itUnlock(s *Server, slug, id string, headers ...string) Response {
	s.T.Helper()
	return s.Do("POST", "/api/public/challenges/"+slug+"/hints/"+id+"/unlock", nil, headers...)
}

// itNoHintLeak fails if a body holds the content of a hint not in shown.
func itNoHintLeak(t testing.TB, label string, body []byte, shown ...string) {
	t.Helper()
	for _, secret := range itHintSecrets {
		if bytes.Contains(body, []byte(secret)) && !itContains(shown, secret) {
			t.Errorf("%s: the body holds the locked hint %q: %s", label, secret, truncate(body))
		}
	}
}

// itUnlocks reads the database's unlocks of username on slug, by hint id.
func itUnlocks(t testing.TB, s *Server, username, slug string) map[int][]ctf.HintUnlock {
	t.Helper()
	snap, err := s.DB.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var challengeID string
	for _, c := range snap.Challenges {
		if c.Slug == slug {
			challengeID = c.ID
		}
	}
	uid := itUID(t, s, username)
	out := map[int][]ctf.HintUnlock{}
	for _, h := range snap.HintUnlocks {
		if h.UserID == uid && h.ChallengeID == challengeID {
			out[h.HintID] = append(out[h.HintID], h)
		}
	}
	return out
}

// itTotal is username's totalPoints on the leaderboard (0 when absent),
// checked against the sum of their solves there and against /me.
func itTotal(t testing.TB, s *Server, username, key string) int {
	t.Helper()
	total := 0
	for _, e := range cxGetLeaderboard(t, s) {
		if e.Username == username {
			sum := 0
			for _, sv := range e.Solves {
				sum += sv.Points
			}
			if sum != e.TotalPoints {
				t.Errorf("leaderboard %s: totalPoints %d, solves sum to %d", username, e.TotalPoints, sum)
			}
			total = e.TotalPoints
		}
	}
	if me := cxGetMe(t, s, key); me.TotalPoints != total {
		t.Errorf("%s: /me totalPoints %d, leaderboard %d", username, me.TotalPoints, total)
	}
	return total
}

const itHintsLocked = `{"hints": [
	{"id": 1, "cost": 30, "unlocked": false, "content": null, "requires": null},
	{"id": 2, "cost": 20, "unlocked": false, "content": null, "requires": 1},
	{"id": 3, "cost": 0, "unlocked": false, "content": null, "requires": null}]}`

// TestIntegrationHintsList: anyone who may read a challenge lists its
// hints, each locked hint's content null (admins see every content); a
// challenge that cannot be read is 404 as it is for its detail; and no
// public body, anonymous or a player's, holds a locked hint.
func TestIntegrationHintsList(t *testing.T) {
	t.Parallel()
	s := itHintStart(t)
	erin, root := Bearer(s.Key("erin")), Bearer(s.Key("root"))
	const path = "/api/public/challenges/hinted/hints"

	itExact(t, "anonymous", itGet(t, s, path), itHintsLocked)
	itExact(t, "player", itGet(t, s, path, erin), itHintsLocked)
	itExact(t, "player, cookie", itGet(t, s, path, itSession(t, s, "erin", time.Now().Add(time.Hour))), itHintsLocked)
	want, _ := json.Marshal(map[string]any{"hints": []map[string]any{
		{"id": 1, "cost": 30, "unlocked": false, "content": itHintPadding, "requires": nil},
		{"id": 2, "cost": 20, "unlocked": false, "content": itHintPrimes, "requires": 1},
		{"id": 3, "cost": 0, "unlocked": false, "content": itHintFree, "requires": nil},
	}})
	itExact(t, "admin", itGet(t, s, path, root), string(want))
	itExact(t, "a challenge without hints", itGet(t, s, "/api/public/challenges/warmup/hints"), `{"hints": []}`)
	// A locked challenge's hints are listed (its detail is readable too).
	itExact(t, "locked challenge", itGet(t, s, "/api/public/challenges/hinted-locked/hints", erin),
		`{"hints": [{"id": 1, "cost": 10, "unlocked": false, "content": null, "requires": null}]}`)

	// As the challenge's detail: an ETag, and 304 to it; per caller.
	r := s.Do("GET", path, nil, erin)
	if tag := r.Header.Get("ETag"); tag == "" || !strings.Contains(r.Header.Get("Vary"), "Authorization") {
		t.Errorf("hints: ETag %q, Vary %q", tag, r.Header.Get("Vary"))
	} else {
		itStatus(t, "If-None-Match", s.Do("GET", path, nil, erin, "If-None-Match: "+tag), 304)
	}

	for _, slug := range []string{"nope", "hinted-hidden", "HINTED"} {
		itError(t, "anonymous "+slug, s.Do("GET", "/api/public/challenges/"+slug+"/hints", nil), 404)
		itError(t, "player "+slug, s.Do("GET", "/api/public/challenges/"+slug+"/hints", nil, erin), 404)
	}
	itError(t, "revoked key", s.Do("GET", path, nil, Bearer(itRevokedKey(t, s, "erin"))), 401)
	r = s.Do("DELETE", path, nil, erin)
	itError(t, "DELETE", r, 405)
	if r.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("DELETE hints: Allow %q", r.Header.Get("Allow"))
	}

	// Nothing a player or an anonymous caller reads holds a hint.
	for _, who := range []struct {
		name string
		hdr  []string
	}{{"anonymous", nil}, {"erin", []string{erin}}, {"alice", []string{Bearer(s.Key("alice"))}}} {
		for _, p := range []string{"/api/public/challenges", "/api/public/challenges/hinted", "/api/public/challenges/hinted-locked",
			path, "/api/public/challenges/hinted-locked/hints", "/api/public/leaderboard", "/api/public/profiles/" + itUID(t, s, "erin")} {
			itNoHintLeak(t, who.name+" GET "+p, s.Do("GET", p, nil, who.hdr...).Body)
		}
	}
	itNoHintLeak(t, "erin GET /me", s.Do("GET", "/api/public/me", nil, erin).Body)
}

// TestIntegrationHintUnlockRefusals: the order of checks of an unlock
// (401, 404 for the challenge, then the hint, then 403), each refusal
// recording nothing.
func TestIntegrationHintUnlockRefusals(t *testing.T) {
	t.Parallel()
	s := itHintStart(t)
	erin := Bearer(s.Key("erin"))

	// 401 first: even for an unknown slug or hint.
	for _, hdr := range [][]string{nil, {Bearer("not-a-key")}, {Bearer(itRevokedKey(t, s, "erin"))}} {
		for _, p := range [][2]string{{"hinted", "1"}, {"nope", "1"}, {"hinted", "abc"}, {"hinted-hidden", "1"}} {
			itError(t, "unauthenticated "+p[0]+"/"+p[1], itUnlock(s, p[0], p[1], hdr...), 401)
		}
	}
	// 404: the challenge, then the hint; an id that is not a hint's,
	// whatever it looks like.
	itError(t, "unknown slug", itUnlock(s, "nope", "1", erin), 404)
	itError(t, "hidden challenge", itUnlock(s, "hinted-hidden", "1", erin), 404)
	itError(t, "unknown slug, locked-looking", itUnlock(s, "nope", "2", erin), 404)
	for _, id := range []string{"99", "abc", "0", "-1", "1.5", "%2B1", "1e0", "99999999999999999999999999", "%20"} {
		r := itUnlock(s, "hinted", id, erin)
		itError(t, "hint "+id, r, 404)
		if !strings.Contains(string(r.Body), "hint") {
			t.Errorf("hint %s: %s, want a sentence about the hint", id, r.Body)
		}
	}
	// An unknown hint of a locked challenge is still 404: the hint is
	// looked up before the player's refusals.
	itError(t, "unknown hint of a locked challenge", itUnlock(s, "hinted-locked", "9", erin), 404)

	// 403: read-only key, banned, locked challenge, required hint locked,
	// a cross-site request riding a cookie.
	itError(t, "read-only key", itUnlock(s, "hinted", "1", Bearer(s.ReadOnlyKey("erin"))), 403)
	itError(t, "banned", itUnlock(s, "hinted", "1", Bearer(s.Key("mallory"))), 403)
	itError(t, "locked challenge", itUnlock(s, "hinted-locked", "1", erin), 403)
	r := itUnlock(s, "hinted", "2", erin)
	itError(t, "required hint locked", r, 403)
	if !strings.Contains(string(r.Body), "hint 1") {
		t.Errorf("required hint: %s, want it to name hint 1", r.Body)
	}
	cookie := itSession(t, s, "erin", time.Now().Add(time.Hour))
	itError(t, "cross-site cookie", itUnlock(s, "hinted", "1", cookie, "Origin: https://evil.example", "Sec-Fetch-Site: cross-site"), 403)

	// A wrong method on the path.
	r = s.Do("GET", "/api/public/challenges/hinted/hints/1/unlock", nil, erin)
	itError(t, "GET unlock", r, 405)
	if r.Header.Get("Allow") != "POST" {
		t.Errorf("GET unlock: Allow %q", r.Header.Get("Allow"))
	}

	// Nothing was recorded.
	itExact(t, "after the refusals", itGet(t, s, "/api/public/challenges/hinted/hints", erin), itHintsLocked)
	if got := itUnlocks(t, s, "erin", "hinted"); len(got) != 0 {
		t.Errorf("database: erin's unlocks %v, want none", got)
	}
	if got := itUnlocks(t, s, "mallory", "hinted"); len(got) != 0 {
		t.Errorf("database: mallory's unlocks %v, want none", got)
	}

	// Once unlocked, a hint is the caller's: the read-only key reads it
	// again (an unlock that records nothing), and a same-site cookie
	// request unlocks too.
	itStatus(t, "unlock with a same-site cookie", itUnlock(s, "hinted", "1", cookie, "Origin: "+s.URL, "Sec-Fetch-Site: same-origin"), 200)
	itStatus(t, "read-only key, unlocked already", itUnlock(s, "hinted", "1", Bearer(s.ReadOnlyKey("erin"))), 200)
	itError(t, "read-only key, the next hint", itUnlock(s, "hinted", "2", Bearer(s.ReadOnlyKey("erin"))), 403)
	if got := itUnlocks(t, s, "erin", "hinted"); len(got) != 1 || len(got[1]) != 1 {
		t.Errorf("database: erin's unlocks %v, want hint 1 once", got)
	}
}

// TestIntegrationHintCostOnce: a hint unlocked twice before solving costs
// its cost once; one unlocked after solving costs nothing; another
// player's solve is not touched.
func TestIntegrationHintCostOnce(t *testing.T) {
	t.Parallel()
	s := itHintStart(t)
	erinKey, daveKey := s.Key("erin"), s.Key("dave")
	erin := Bearer(erinKey)
	daveBefore := itTotal(t, s, "dave", daveKey)

	want := `{"id": 1, "cost": 30, "unlocked": true, "content": "` + strings.ReplaceAll(itHintPadding, `"`, `\"`) + `", "requires": null}`
	first := itUnlock(s, "hinted", "1", erin)
	itStatus(t, "unlock", first, 200)
	itExact(t, "unlock", itDecode(t, "unlock", first.Body), want)
	// Idempotent: the same answer, with a body sent or not.
	again := s.Do("POST", "/api/public/challenges/hinted/hints/1/unlock", []byte(`{"ignored": true}`), erin, "Content-Type: application/json")
	itStatus(t, "unlock again", again, 200)
	if !bytes.Equal(first.Body, again.Body) {
		t.Errorf("unlock again: %s, want %s", again.Body, first.Body)
	}
	if c := first.Header.Get("Cache-Control"); c != "no-store" {
		t.Errorf("unlock: Cache-Control %q, want no-store", c)
	}
	list := s.Do("GET", "/api/public/challenges/hinted/hints", nil, erin)
	itMatch(t, "erin's hints", itDecode(t, "hints", list.Body), `{"hints": [
		{"id": 1, "unlocked": true, "content": "`+strings.ReplaceAll(itHintPadding, `"`, `\"`)+`"},
		{"id": 2, "unlocked": false, "content": null},
		{"id": 3, "unlocked": false, "content": null}]}`)
	itNoHintLeak(t, "erin's hints", list.Body, itHintPadding)
	// Another player still sees it locked.
	itExact(t, "dave's hints", itGet(t, s, "/api/public/challenges/hinted/hints", Bearer(daveKey)), itHintsLocked)

	// The solve: 100 less the 30 of hint 1, counted once.
	r := itSubmit(s, "hinted", "flag{hinted}", erin)
	itStatus(t, "solve", r, 200)
	itMatch(t, "solve", itDecode(t, "solve", r.Body), `{"result": {"success": true, "points": 70}}`)
	if got := itTotal(t, s, "erin", erinKey); got != 70 {
		t.Errorf("erin's totalPoints %d after the solve, want 70", got)
	}

	// After the solve, unlocking costs nothing.
	r = itUnlock(s, "hinted", "2", erin)
	itStatus(t, "unlock after the solve", r, 200)
	itMatch(t, "unlock after the solve", itDecode(t, "unlock 2", r.Body), `{"id": 2, "cost": 20, "unlocked": true, "requires": 1}`)
	itStatus(t, "free hint after the solve", itUnlock(s, "hinted", "3", erin), 200)
	if got := itTotal(t, s, "erin", erinKey); got != 70 {
		t.Errorf("erin's totalPoints %d after unlocking after the solve, want 70", got)
	}
	unlocks := itUnlocks(t, s, "erin", "hinted")
	if len(unlocks) != 3 || len(unlocks[1]) != 1 || !unlocks[1][0].Charged || unlocks[2][0].Charged || unlocks[3][0].Charged {
		t.Errorf("database: erin's unlocks %v, want hints 1 (charged), 2 and 3 (not charged), once each", unlocks)
	}

	// dave solves without hints: the full 100.
	r = itSubmit(s, "hinted", "flag{hinted}", Bearer(daveKey))
	itMatch(t, "dave's solve", itDecode(t, "dave's solve", r.Body), `{"result": {"success": true, "points": 100}}`)
	if got := itTotal(t, s, "dave", daveKey); got != daveBefore+100 {
		t.Errorf("dave's totalPoints %d, want %d", got, daveBefore+100)
	}
	// The hot state rebuilt from the database says the same.
	s.Reload()
	if got := itTotal(t, s, "erin", erinKey); got != 70 {
		t.Errorf("after a reload: erin's totalPoints %d, want 70", got)
	}
	cxCheckLeaderboard(t, s)
}

// TestIntegrationHintUnlockSolveRace: one player unlocks a hint and sends
// the right flag many times at once: one unlock is recorded, one solve,
// and the total is what the solve answered (70 if the unlock came first,
// 100 if the solve did), live and after a rebuild.
func TestIntegrationHintUnlockSolveRace(t *testing.T) {
	t.Parallel()
	s := itHintStart(t)
	key := s.Key("erin")
	const n = 24
	exs := make([]cxExchange, n)
	cxRelease(n, func(i int) {
		if i%2 == 0 {
			exs[i] = cxSend(s, "POST", "/api/public/challenges/hinted/hints/1/unlock", nil, cxKeyHeader(key))
		} else {
			exs[i] = cxSend(s, "POST", "/api/public/challenges/hinted/submit", cxFlagBody("flag{hinted}"), cxJSONHeader(key))
		}
	})
	cxCheckExchanges(t, s, exs)
	solved := 0
	points := -1
	for i, ex := range exs {
		switch {
		case i%2 == 0 && ex.Status != 200:
			t.Errorf("unlock %d: %d %s, want 200", i, ex.Status, ex.Body)
		case i%2 == 1 && ex.Status == 200:
			solved++
			var r cxSubmit
			if err := json.Unmarshal(ex.Body, &r); err != nil {
				t.Fatal(err)
			}
			points = r.Result.Points
		case i%2 == 1 && ex.Status != http.StatusConflict:
			t.Errorf("submit %d: %d %s, want 200 or 409", i, ex.Status, ex.Body)
		}
	}
	if solved != 1 || (points != 70 && points != 100) {
		t.Fatalf("%d solves answered, points %d; want one, of 70 or 100", solved, points)
	}
	t.Logf("the solve answered %d points", points)
	unlocks := itUnlocks(t, s, "erin", "hinted")
	if len(unlocks) != 1 || len(unlocks[1]) != 1 || unlocks[1][0].Charged != (points == 70) {
		t.Errorf("database: erin's unlocks %v, want hint 1 once, charged as the solve's %d points say", unlocks, points)
	}
	check := func(when string) {
		t.Helper()
		itMatch(t, when+": hints", itGet(t, s, "/api/public/challenges/hinted/hints", Bearer(key)),
			`{"hints": [{"id": 1, "unlocked": true}, {"id": 2, "unlocked": false}, {"id": 3, "unlocked": false}]}`)
		if got := itTotal(t, s, "erin", key); got != points {
			t.Errorf("%s: erin's totalPoints %d, the solve answered %d", when, got, points)
		}
	}
	check("live")
	s.Reload()
	check("after a reload")
}
