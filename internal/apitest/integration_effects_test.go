package apitest

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// TestIntegrationSubmitEffects: a wrong flag counts an attempt and leaves
// the board alone; a right one shows at once on the board, the challenge
// counts, /me and the public profile; an admin's or a banned user's
// submissions count nowhere.
func TestIntegrationSubmitEffects(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	erin := Bearer(s.Key("erin"))
	erinID := itUID(t, s, "erin")
	board := func() Response {
		t.Helper()
		r := s.Do("GET", "/api/public/leaderboard", nil)
		itStatus(t, "leaderboard", r, 200)
		return r
	}
	lb0 := board()
	list0 := s.Do("GET", "/api/public/challenges", nil)

	// Wrong: lost-packets attempts 1 -> 2; the leaderboard does not change.
	itError(t, "wrong", itSubmit(s, "lost-packets", "flag{nope}", erin), 400)
	itWantCounts(t, "after wrong", s, "lost-packets", 2, 1)
	lb1 := board()
	if string(lb1.Body) != string(lb0.Body) || lb1.Header.Get("ETag") != lb0.Header.Get("ETag") || lb0.Header.Get("ETag") == "" {
		t.Errorf("a wrong flag changed the leaderboard (ETag %q -> %q)", lb0.Header.Get("ETag"), lb1.Header.Get("ETag"))
	}
	itStatus(t, "leaderboard revalidation after wrong", s.Do("GET", "/api/public/leaderboard", nil, "If-None-Match: "+lb0.Header.Get("ETag")), 304)
	list1 := s.Do("GET", "/api/public/challenges", nil)
	if list1.Header.Get("ETag") == list0.Header.Get("ETag") {
		t.Errorf("a recorded attempt left the list ETag unchanged")
	}

	// Right: 150 points, first solve of erin, forensics completed (1 of 1).
	before := time.Now().UTC().Truncate(time.Millisecond)
	r := itSubmit(s, "lost-packets", "flag{pcap}", erin)
	after := time.Now().UTC()
	itStatus(t, "right", r, 200)
	res := itDecode(t, "submit", r.Body)
	itMatch(t, "right", res, `{"result":{"success":true,"points":150}}`)
	if got := itBadgeIDs(t, "right", itAt(res, "result", "newBadges")); !reflect.DeepEqual(got, itSorted("first-solve", "category-forensics")) {
		t.Errorf("newBadges %v, want first-solve and category-forensics (carol drew first blood)", got)
	}
	// lost-packets: attempts 2 + 1 = 3, solves 1 + 1 = 2.
	itWantCounts(t, "after right", s, "lost-packets", 3, 2)

	me := itAt(itGet(t, s, "/api/public/me", erin), "profile")
	at, _ := itAt(me, "solvedChallenges", 0, "solvedAt").(string)
	if ts, err := time.Parse(time.RFC3339, at); err != nil || ts.Before(before) || ts.After(after) {
		t.Errorf("solvedAt %q, want between %v and %v", at, before, after)
	}
	// Board: alice 350, bob 350, carol 150 (01-12), dave 150 (01-12), erin 150
	// (now, later): erin is fifth, so her rank is 5.
	lb := itGet(t, s, "/api/public/leaderboard")
	itMatch(t, "leaderboard after solve", lb, fmt.Sprintf(`{"leaderboard":[{"username":"alice"},{"username":"bob"},{"username":"carol"},
		{"username":"dave"},{"id":%q,"name":"Erin","username":"erin","totalPoints":150,"totalSolves":1,"lastSolvedAt":%q,
		"solves":[{"solvedAt":%q,"points":150}]}]}`, erinID, at, at))
	if lb2 := board(); lb2.Header.Get("ETag") == lb0.Header.Get("ETag") {
		t.Errorf("a solve left the leaderboard ETag unchanged")
	}
	// top3Count 1: erin is the 2nd player solver of lost-packets (carol 1st).
	profile := fmt.Sprintf(`{"id":%q,"rank":5,"totalPoints":150,"firstBloodCount":0,"top3Count":1,
		"categoryCounts":{"forensics":1},"difficultyCounts":{"Medium":1},
		"solvedChallenges":[{"solvedAt":%q,"challenge":{"slug":"lost-packets","title":"Lost Packets","points":150,
		"categories":["forensics"],"difficulty":"Medium"}}]}`, erinID, at)
	itMatch(t, "/me after solve", me, profile)
	itBadgesHeld(t, "/me after solve", itAt(me, "badges"), "first-solve@"+at, "category-forensics@"+at)
	itMatch(t, "profile after solve", itAt(itGet(t, s, "/api/public/profiles/"+erinID), "profile"), profile)
	itMatch(t, "erin's list", itBySlug(itGet(t, s, "/api/public/challenges", erin))["lost-packets"], `{"solved":true}`)

	// An admin's solve and wrong attempt count nowhere.
	lbBody := string(board().Body)
	root := Bearer(s.Key("root"))
	itStatus(t, "admin solve", itSubmit(s, "lost-packets", "flag{pcap}", root), 200)
	itError(t, "admin wrong", itSubmit(s, "baby-rsa", "nope", root), 400)
	itWantCounts(t, "after admin", s, "lost-packets", 3, 2)
	itWantCounts(t, "after admin", s, "baby-rsa", 3, 3)
	if string(board().Body) != lbBody {
		t.Errorf("an admin's solve changed the leaderboard")
	}
	// A banned user: whatever the answer (not specified), never a 500 and
	// nothing counts.
	mal := Bearer(s.Key("mallory"))
	for _, f := range []string{"flag{warmup}", "nope"} {
		r := itSubmit(s, "warmup", f, mal)
		t.Logf("banned user's submit of %q: %d %s", f, r.Status, r.Body)
		if r.Status >= 500 {
			t.Errorf("banned user's submit: %d", r.Status)
		}
	}
	itWantCounts(t, "after banned", s, "warmup", 5, 3)
	if string(board().Body) != lbBody {
		t.Errorf("a banned user's submission changed the leaderboard")
	}
}

// TestIntegrationBadgesFirstSubmission: erin's first solve is kernel-panic,
// which no player has solved (root's admin solve does not count) and is
// Insane: first-solve, first-blood and first-insane at once. dave, who has
// solves already, then solves it second: only first-insane.
func TestIntegrationBadgesFirstSubmission(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	erin, dave := Bearer(s.Key("erin")), Bearer(s.Key("dave"))
	r := itSubmit(s, "kernel-panic", "flag{kernel}", erin)
	itStatus(t, "erin kernel-panic", r, 200)
	if got := itBadgeIDs(t, "erin", itAt(itDecode(t, "submit", r.Body), "result", "newBadges")); !reflect.DeepEqual(got, itSorted("first-solve", "first-blood", "first-insane")) {
		t.Errorf("erin's newBadges %v", got)
	}
	me := itAt(itGet(t, s, "/api/public/me", erin), "profile")
	at, _ := itAt(me, "solvedChallenges", 0, "solvedAt").(string)
	itBadgesHeld(t, "erin /me", itAt(me, "badges"), "first-solve@"+at, "first-blood@"+at, "first-insane@"+at)
	// kernel-panic: 2 wrong + erin = 3 attempts, 1 solve; erin has its first blood.
	itMatch(t, "erin /me", me, `{"firstBloodCount":1,"top3Count":1,"totalPoints":500,"rank":1}`)

	r = itSubmit(s, "kernel-panic", "flag{kernel}", dave)
	itStatus(t, "dave kernel-panic", r, 200)
	if got := itBadgeIDs(t, "dave", itAt(itDecode(t, "submit", r.Body), "result", "newBadges")); !reflect.DeepEqual(got, []string{"first-insane"}) {
		t.Errorf("dave's newBadges %v, want [first-insane]", got)
	}
	itWantCounts(t, "kernel-panic", s, "kernel-panic", 4, 2)
}

// TestIntegrationBadgesSequence: erin solves everything; each submission
// returns exactly the badges it earned, never one twice. Category totals:
// misc 1, forensics 1, crypto 2 (baby-rsa, web-login), web 1, pwn 2.
func TestIntegrationBadgesSequence(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	erin := Bearer(s.Key("erin"))
	steps := []struct {
		slug, flag string
		want       []string
	}{
		{"warmup", "flag{warmup}", []string{"first-solve", "category-misc"}},              // alice drew first blood
		{"lost-packets", "flag{pcap}", []string{"category-forensics"}},                    // no second first-solve
		{"kernel-panic", "flag{kernel}", []string{"first-blood", "first-insane"}},         // pwn 1 of 2
		{"baby-rsa", "FLAG{BABY-RSA}", []string{}},                                        // crypto 1 of 2
		{"web-login", "flag{backdoor}", []string{"category-web", "category-crypto", "*"}}, // 5th solve: + the 5-solves badge
		{"rop-chain", "flag{rop}", []string{"category-pwn"}},                              // first blood of rop-chain, but first-blood is held already
	}
	var held []string
	for _, st := range steps {
		r := itSubmit(s, st.slug, st.flag, erin)
		itStatus(t, st.slug, r, 200)
		got := itBadgeIDs(t, st.slug, itAt(itDecode(t, "submit", r.Body), "result", "newBadges"))
		want := itSorted(st.want...)
		if len(want) > 0 && want[0] == "*" { // one badge we do not name: the 5-solves one
			for _, g := range got {
				if !itContains(st.want, g) {
					want[0] = g
				}
			}
			want = itSorted(want...)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: newBadges %v, want %v", st.slug, got, st.want)
		}
		for _, g := range got {
			if itContains(held, g) {
				t.Errorf("%s: badge %s awarded twice", st.slug, g)
			}
		}
		held = append(held, got...)
	}
	// /me holds exactly the badges awarded, each once. erin drew first blood
	// on kernel-panic and rop-chain; top 3 of lost-packets (2nd), kernel-panic
	// (1st), web-login (3rd), rop-chain (1st) = 4 (4th on warmup and
	// baby-rsa); 50 + 150 + 500 + 100 + 200 + 300 = 1300 points, rank 1.
	me := itAt(itGet(t, s, "/api/public/me", erin), "profile")
	itMatch(t, "erin", me, `{"rank":1,"totalPoints":1300,"firstBloodCount":2,"top3Count":4}`)
	itExact(t, "erin categoryCounts", itAt(me, "categoryCounts"), `{"misc":1,"forensics":1,"pwn":2,"crypto":2,"web":1}`)
	itExact(t, "erin difficultyCounts", itAt(me, "difficultyCounts"), `{"Easy":2,"Medium":2,"Hard":1,"Insane":1}`)
	badges, _ := itAt(me, "badges").([]any)
	if len(badges) != len(held) {
		t.Errorf("/me has %d badges, the submissions awarded %d: %s", len(badges), len(held), itShow(badges))
	}
	for _, b := range badges {
		if id, _ := itAt(b, "badgeId").(string); !itContains(held, id) {
			t.Errorf("/me badge %s was never in newBadges", id)
		}
	}
}

func itContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
