package apitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
)

// The event's clock through the public API, on a pinned clock: before the
// start, running, a scheduled release, the freeze, the end with and
// without practice mode. Every status and body.

const evYAML = `
users:
  - {username: alice, email: alice@example.com, createdAt: 2026-03-01T00:00:00Z}
  - {username: bob, email: bob@example.com, createdAt: 2026-03-01T00:00:00Z}
  - {username: root, email: root@example.com, role: admin, createdAt: 2026-03-01T00:00:00Z}
challenges:
  - {slug: warmup, title: Warmup, categories: [misc], difficulty: Easy, points: 100, flags: ['flag{warm}'], createdAt: 2026-03-01T00:00:00Z}
`

// evT0 is the event's start.
var evT0 = time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)

// evClock is a settable clock.
type evClock struct{ ns atomic.Int64 }

func (c *evClock) set(t time.Time) { c.ns.Store(t.UnixNano()) }
func (c *evClock) now() time.Time  { return time.Unix(0, c.ns.Load()).UTC() }
func evAt(h, m int) time.Time {
	return evT0.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
}
func evPtr(t time.Time) *time.Time { return &t }
func evFlag(slug string) string    { return "flag{" + slug + "}" }
func evSlugs(list any) (out []string) {
	for _, c := range list.(map[string]any)["challenges"].([]any) {
		out = append(out, c.(map[string]any)["slug"].(string))
	}
	return out
}

// evStart serves evYAML on a pinned clock with the event set: start at
// evT0, end ten hours later, a freeze at eight hours, and a challenge
// released at two hours.
func evStart(t *testing.T) (*Server, *evClock) {
	t.Helper()
	clock := &evClock{}
	clock.set(evT0.Add(-time.Hour))
	s := Start(t, evYAML, Options{Now: clock.now})
	ctx := context.Background()
	if _, err := s.Svc.Event.Set(ctx, ctf.Operator, ctf.Event{Name: "Test CTF", Start: evPtr(evT0), End: evPtr(evAt(10, 0)),
		Freeze: evPtr(evAt(8, 0))}); err != nil {
		t.Fatal(err)
	}
	later := ctf.Challenge{ID: ctf.NewID(), Slug: "later", Title: "Later", Categories: []string{"misc"}, Difficulty: ctf.Easy,
		Points: 200, Type: "standard", Flags: []ctf.Flag{{Kind: "static", Content: evFlag("later")}},
		ReleaseAt: evPtr(evAt(2, 0)), CreatedAt: evT0.Add(-48 * time.Hour)}
	if _, err := s.DB.Content().PutChallenge(ctx, later, nil, nil); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	return s, clock
}

func TestIntegrationEventLifecycle(t *testing.T) {
	t.Parallel()
	s, clock := evStart(t)
	alice, bob, root := Bearer(s.Key("alice")), Bearer(s.Key("bob")), Bearer(s.Key("root"))
	notFound := `{"error":"challenge not found"}`
	over := `{"error":"the event is over"}`
	expect := func(label string, r Response, status int, body string) {
		t.Helper()
		if r.Status != status {
			t.Errorf("%s: status %d, want %d: %s", label, r.Status, status, r.Body)
			return
		}
		if body != "" {
			itMatch(t, label, itDecode(t, label, r.Body), body)
		}
	}

	// Before the start: no challenge exists for players or visitors;
	// admins see and test everything.
	clock.set(evAt(-1, 0))
	expect("visitor's list before the start", s.Do("GET", "/api/public/challenges", nil), 200, `{"challenges":[]}`)
	expect("player's list before the start", s.Do("GET", "/api/public/challenges", nil, alice), 200, `{"challenges":[]}`)
	if got := evSlugs(itGet(t, s, "/api/public/challenges", root)); fmt.Sprint(got) != "[warmup later]" {
		t.Errorf("admin's list before the start = %v, want both challenges", got)
	}
	expect("detail before the start", s.Do("GET", "/api/public/challenges/warmup", nil, alice), 404, notFound)
	expect("submit before the start", itSubmit(s, "warmup", evFlag("warm"), alice), 404, notFound)
	expect("writeups before the start", s.Do("GET", "/api/public/challenges/warmup/writeups", nil, alice), 404, notFound)
	expect("unknown slug before the start", itSubmit(s, "nope", "x", alice), 404, notFound)
	expect("no auth before the start", itSubmit(s, "warmup", "x"), 401, "")
	expect("admin's detail before the start", s.Do("GET", "/api/public/challenges/warmup", nil, root), 200, `{"challenge":{"slug":"warmup"}}`)
	expect("admin's test before the start", itSubmit(s, "warmup", evFlag("warm"), root), 200, `{"result":{"success":true,"points":100}}`)
	expect("leaderboard before the start", s.Do("GET", "/api/public/leaderboard", nil), 200, `{"leaderboard":[]}`)

	// Running: the scheduled challenge is 404 until its release.
	clock.set(evAt(1, 0))
	if got := evSlugs(itGet(t, s, "/api/public/challenges", alice)); fmt.Sprint(got) != "[warmup]" {
		t.Errorf("list before the release = %v, want [warmup]", got)
	}
	expect("scheduled detail", s.Do("GET", "/api/public/challenges/later", nil, alice), 404, notFound)
	expect("scheduled submit", itSubmit(s, "later", evFlag("later"), alice), 404, notFound)
	expect("alice solves warmup", itSubmit(s, "warmup", evFlag("warm"), alice), 200, `{"result":{"success":true,"points":100}}`)
	expect("bob's wrong flag", itSubmit(s, "warmup", "flag{no}", bob), 400, `{"error":"wrong flag"}`)

	// The release: no restart, no reload, just the clock.
	clock.set(evAt(2, 0))
	if got := evSlugs(itGet(t, s, "/api/public/challenges", alice)); fmt.Sprint(got) != "[warmup later]" {
		t.Errorf("list at the release = %v, want [later warmup]", got)
	}
	expect("alice solves later", itSubmit(s, "later", evFlag("later"), alice), 200, `{"result":{"success":true,"points":200}}`)

	// The freeze: bob's solve is his alone until the unfreeze.
	clock.set(evAt(8, 1))
	expect("bob solves during the freeze", itSubmit(s, "warmup", evFlag("warm"), bob), 200,
		`{"result":{"success":true,"points":100,"newBadges":[]}}`)
	frozenBoard := `{"leaderboard":[{"username":"alice","totalPoints":300,"totalSolves":2}]}`
	expect("frozen leaderboard", s.Do("GET", "/api/public/leaderboard", nil), 200, frozenBoard)
	expect("frozen solve count", s.Do("GET", "/api/public/challenges/warmup", nil), 200, `{"challenge":{"solvesCount":1}}`)
	expect("bob sees his solve", s.Do("GET", "/api/public/challenges/warmup", nil, bob), 200,
		`{"challenge":{"solved":true,"submittedFlag":"flag{warm}","solvesCount":1}}`)
	expect("bob's own profile lists it", s.Do("GET", "/api/public/me", nil, bob), 200,
		`{"profile":{"totalPoints":0,"solvedChallenges":[{"challenge":{"slug":"warmup"}}]}}`)
	bobID := itUID(t, s, "bob")
	expect("bob's public profile does not", s.Do("GET", "/api/public/profiles/"+bobID, nil), 200,
		`{"profile":{"solvedChallenges":[],"badges":[],"totalPoints":0}}`)
	if _, live, err := s.Svc.Scoreboard.LiveLeaderboardPageOf(ctf.Operator, live.Everyone, 0, 10, false); err != nil || len(live) != 2 {
		t.Errorf("admins' live standings during the freeze: %d entries (%v), want alice and bob", len(live), err)
	}

	// The end, without practice mode: 403 after the checks of the request.
	clock.set(evAt(10, 0))
	expect("submit after the end", itSubmit(s, "later", evFlag("later"), bob), 403, over)
	expect("solved, after the end", itSubmit(s, "warmup", evFlag("warm"), alice), 403, over)
	expect("unknown slug after the end", itSubmit(s, "nope", "x", bob), 404, notFound)
	expect("empty flag after the end", itSubmit(s, "later", " ", bob), 400, "")
	expect("still frozen after the end", s.Do("GET", "/api/public/leaderboard", nil), 200, frozenBoard)
	if err := s.Svc.Event.Unfreeze(context.Background(), ctf.Viewer{User: &ctf.User{ID: bobID, Role: ctf.RolePlayer}}); ctf.ErrorCode(err) != ctf.Forbidden {
		t.Errorf("a player's unfreeze: %v, want forbidden", err)
	}
	if err := s.Svc.Event.Unfreeze(context.Background(), ctf.Operator); err != nil {
		t.Fatal(err)
	}
	expect("unfrozen leaderboard", s.Do("GET", "/api/public/leaderboard", nil), 200,
		`{"leaderboard":[{"username":"alice","totalPoints":300},{"username":"bob","totalPoints":100}]}`)
	expect("unfrozen solve count", s.Do("GET", "/api/public/challenges/warmup", nil), 200, `{"challenge":{"solvesCount":2,"attemptsCount":3}}`)

	// Practice mode: right flags are answered and count for nothing public.
	ev := s.Svc.Event.Current().Event
	ev.Practice = true
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ev); err != nil {
		t.Fatal(err)
	}
	board := s.Do("GET", "/api/public/leaderboard", nil).Body
	expect("practice wrong flag", itSubmit(s, "later", "flag{no}", bob), 400, `{"error":"wrong flag"}`)
	expect("practice solve", itSubmit(s, "later", evFlag("later"), bob), 200, `{"result":{"success":true,"points":200,"newBadges":[]}}`)
	expect("practice solve again", itSubmit(s, "later", evFlag("later"), bob), 409, "")
	if got := s.Do("GET", "/api/public/leaderboard", nil).Body; !bytes.Equal(got, board) {
		t.Errorf("a practice solve moved the leaderboard:\n%s\nwas\n%s", got, board)
	}
	expect("practice counts nowhere", s.Do("GET", "/api/public/challenges/later", nil), 200,
		`{"challenge":{"solvesCount":1,"attemptsCount":1}}`)
	expect("bob sees his practice solve", s.Do("GET", "/api/public/challenges/later", nil, bob), 200,
		`{"challenge":{"solved":true,"solvesCount":1}}`)

	// What the replicas of a restarted cluster rebuild is the same.
	before := s.Do("GET", "/api/public/challenges", nil, bob).Body
	s.Reload()
	if got := s.Do("GET", "/api/public/challenges", nil, bob).Body; !bytes.Equal(got, before) {
		t.Errorf("after a rebuild the list differs:\n%s\nwas\n%s", got, before)
	}
}

// TestIntegrationEventReplicasSwitchTogether: two replicas on one database
// and one clock freeze and release at the same instant, with no message
// between them, and agree byte for byte.
func TestIntegrationEventReplicasSwitchTogether(t *testing.T) {
	t.Parallel()
	s, clock := evStart(t)
	b := s.Replica(store.RateLimit{Max: 10, Window: time.Minute})
	alice, bob := Bearer(s.Key("alice")), Bearer(s.Key("bob"))
	same := func(label, path string, headers ...string) []byte {
		t.Helper()
		ra, rb := s.Do("GET", path, nil, headers...), b.Do("GET", path, nil, headers...)
		if ra.Status != rb.Status || !bytes.Equal(ra.Body, rb.Body) {
			t.Errorf("%s: the replicas differ:\nA %d %s\nB %d %s", label, ra.Status, ra.Body, rb.Status, rb.Body)
		}
		return ra.Body
	}
	clock.set(evAt(1, 59))
	same("list before the release", "/api/public/challenges", alice)
	same("detail before the release", "/api/public/challenges/later", alice)
	clock.set(evAt(2, 0))
	if got := evSlugs(itDecode(t, "list", same("list at the release", "/api/public/challenges", alice))); fmt.Sprint(got) != "[warmup later]" {
		t.Errorf("list at the release = %v", got)
	}
	if r := b.Do("GET", "/api/public/challenges/later", nil, alice); r.Status != 200 {
		t.Errorf("B's detail at the release: %d", r.Status)
	}

	clock.set(evAt(7, 59))
	if r := itSubmit(s, "warmup", evFlag("warm"), alice); r.Status != 200 {
		t.Fatalf("alice's solve: %d %s", r.Status, r.Body)
	}
	clock.set(evAt(8, 0))
	if r := itSubmit(b, "warmup", evFlag("warm"), bob); r.Status != 200 {
		t.Fatalf("bob's solve on B: %d %s", r.Status, r.Body)
	}
	s.Sync()
	b.Sync()
	board := same("frozen leaderboard", "/api/public/leaderboard")
	itMatch(t, "frozen leaderboard", itDecode(t, "board", board), `{"leaderboard":[{"username":"alice"}]}`)
	same("frozen detail", "/api/public/challenges/warmup")
	same("bob's own view", "/api/public/challenges/warmup", bob)

	// An admin's unfreeze on A reaches B through the database.
	if err := s.Svc.Event.Unfreeze(context.Background(), ctf.Operator); err != nil {
		t.Fatal(err)
	}
	b.Sync()
	board = same("unfrozen leaderboard", "/api/public/leaderboard")
	itMatch(t, "unfrozen leaderboard", itDecode(t, "board", board), `{"leaderboard":[{"username":"alice"},{"username":"bob"}]}`)
}

// TestEventSettingsAreValidated: bad settings are refused whole.
func TestEventSettingsAreValidated(t *testing.T) {
	t.Parallel()
	s, _ := evStart(t)
	before := s.Svc.Event.Current().Event
	for _, c := range []struct {
		name  string
		ev    ctf.Event
		field string
	}{
		{"end before start", ctf.Event{Start: evPtr(evAt(2, 0)), End: evPtr(evAt(1, 0))}, "end"},
		{"freeze before start", ctf.Event{Start: evPtr(evAt(2, 0)), Freeze: evPtr(evAt(1, 0))}, "freeze"},
		{"freeze after end", ctf.Event{End: evPtr(evAt(2, 0)), Freeze: evPtr(evAt(3, 0))}, "freeze"},
		{"unfreeze at an end that is not set", ctf.Event{UnfreezeAtEnd: true}, "unfreezeAtEnd"},
		{"long name", ctf.Event{Name: string(bytes.Repeat([]byte("n"), 200))}, "name"},
	} {
		_, err := s.Svc.Event.Set(context.Background(), ctf.Operator, c.ev)
		var e *ctf.Error
		if ctf.ErrorCode(err) != ctf.Invalid || !errors.As(err, &e) || e.Field != c.field {
			t.Errorf("%s: %v, want invalid %s", c.name, err, c.field)
		}
	}
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Viewer{User: &ctf.User{ID: "x", Role: ctf.RolePlayer}}, ctf.Event{}); ctf.ErrorCode(err) != ctf.Forbidden {
		t.Errorf("a player's SetEvent: %v", err)
	}
	if got := s.Svc.Event.Current().Event; fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("refused settings changed the event: %+v, was %+v", got, before)
	}
}

// TestIntegrationReleaseAloneIsScheduled: a release time is an instant of
// the clock even in an event with no other time set, and a challenge
// edited to a later release goes back to pending.
func TestIntegrationReleaseAloneIsScheduled(t *testing.T) {
	t.Parallel()
	clock := &evClock{}
	clock.set(evT0)
	s := Start(t, evYAML, Options{Now: clock.now})
	ctx := context.Background()
	c := ctf.Challenge{ID: ctf.NewID(), Slug: "soon", Title: "Soon", Categories: []string{"misc"}, Difficulty: ctf.Easy,
		Points: 50, Type: "standard", Flags: []ctf.Flag{{Kind: "static", Content: evFlag("soon")}},
		ReleaseAt: evPtr(evAt(0, 30)), CreatedAt: evT0}
	if _, err := s.DB.Content().PutChallenge(ctx, c, nil, nil); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	if r := s.Do("GET", "/api/public/challenges/soon", nil); r.Status != 404 {
		t.Errorf("before its release: %d", r.Status)
	}
	clock.set(evAt(0, 30))
	if r := s.Do("GET", "/api/public/challenges/soon", nil); r.Status != 200 {
		t.Errorf("at its release: %d %s", r.Status, r.Body)
	}
	c.ReleaseAt = evPtr(evAt(5, 0))
	if _, err := s.DB.Content().PutChallenge(ctx, c, nil, nil); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	if r := s.Do("GET", "/api/public/challenges/soon", nil); r.Status != 404 {
		t.Errorf("after its release moved later: %d", r.Status)
	}
	clock.set(evAt(5, 0))
	if got := evSlugs(itGet(t, s, "/api/public/challenges")); fmt.Sprint(got) != "[warmup soon]" {
		t.Errorf("at the new release: %v", got)
	}
}
