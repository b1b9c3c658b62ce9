package transfer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
)

// scoringEvent has a dynamic challenge (three player solvers: worth
// 500 + (100 − 500)/4² × 2² = 400 each) with a costly hint, and a static
// one with a free hint and a costly one that requires it. alice unlocked
// both hints of static before solving it (charged, left out), bob its
// costly one after solving it (not charged, left out); carol is charged
// dyn's hint explicitly, bob is not although he unlocked it before
// solving.
const scoringEvent = `
users:
  - {username: alice, email: alice@example.com}
  - {username: bob, email: bob@example.com}
  - {username: carol, email: carol@example.com}
  - {username: root, email: root@example.com, role: admin}
challenges:
  - slug: dyn
    title: Dynamic
    categories: [web]
    scoring: {type: dynamic, initial: 500, minimum: 100, decay: 4}
    flags: ['flag{dyn}']
    hints: [{content: 'Look at the **template**.', cost: 100}]
    createdAt: 2026-01-01T00:00:00Z
  - slug: static
    title: Static
    categories: [crypto]
    points: 200
    flags: ['flag{static}']
    hints:
      - It is RSA.
      - {content: e is 3., cost: 50, requires: 1}
    createdAt: 2026-01-01T00:00:00Z
solves:
  - {user: alice, challenge: dyn, at: 2026-01-05T10:00:00Z, flag: 'flag{dyn}'}
  - {user: bob, challenge: dyn, at: 2026-01-05T10:05:00Z, flag: 'flag{dyn}'}
  - {user: carol, challenge: dyn, at: 2026-01-05T10:10:00Z, flag: 'flag{dyn}'}
  - {user: root, challenge: dyn, at: 2026-01-05T10:15:00Z, flag: 'flag{dyn}'}
  - {user: alice, challenge: static, at: 2026-01-05T11:00:00Z, flag: 'flag{static}'}
  - {user: bob, challenge: static, at: 2026-01-05T11:00:00Z, flag: 'flag{static}'}
hintUnlocks:
  - {user: alice, challenge: static, hint: 1, at: 2026-01-05T10:30:00Z}
  - {user: alice, challenge: static, hint: 2, at: 2026-01-05T10:31:00Z}
  - {user: bob, challenge: static, hint: 2, at: 2026-01-05T11:00:00Z}
  - {user: carol, challenge: dyn, hint: 1, at: 2026-01-05T12:00:00Z, charged: true}
  - {user: bob, challenge: dyn, hint: 1, at: 2026-01-05T09:00:00Z, charged: false}
`

// TestScoringAndHintsRoundTrip: a dataset with a dynamic challenge, a
// static one with hints and unlocks (charged and not, given and left out)
// loads on either engine, the hot state built from it gives each player the
// right total, and its dump loads into an empty database as the same dump.
func TestScoringAndHintsRoundTrip(t *testing.T) {
	db := openDB(t)
	rep := mustLoad(t, db, writeFile(t, t.TempDir(), "event.yaml", scoringEvent))
	if rep.Created["hintUnlocks"] != 5 {
		t.Errorf("created %v, want 5 hint unlocks", rep.Created)
	}
	first := dump(t, db)
	dyn, static := first.Challenges[0], first.Challenges[1]
	wantScoring := &dataset.Scoring{Type: ctf.DynamicScoring, Initial: 500, Minimum: 100, Decay: 4, Function: ctf.Logarithmic}
	if dyn.Points != 500 || *dyn.Scoring != *wantScoring || static.Scoring != nil || static.Points != 200 {
		t.Errorf("dumped scorings: dyn %d %+v, static %d %+v", dyn.Points, dyn.Scoring, static.Points, static.Scoring)
	}
	wantHints := []dataset.Hint{{ID: 1, Content: "It is RSA."}, {ID: 2, Content: "e is 3.", Cost: 50, Requires: 1}}
	if len(static.Hints) != 2 || static.Hints[0] != wantHints[0] || static.Hints[1] != wantHints[1] {
		t.Errorf("dumped hints %+v, want %+v", static.Hints, wantHints)
	}
	var got []string
	for _, h := range first.HintUnlocks {
		got = append(got, fmt.Sprintf("%s %s %d %s", h.User, h.Challenge, h.Hint, map[bool]string{true: "charged", false: "free"}[*h.Charged]))
	}
	want := []string{"bob dyn 1 free", "alice static 1 charged", "alice static 2 charged", "bob static 2 free", "carol dyn 1 charged"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("dumped unlocks (oldest first):\n%s\nwant\n%s", strings.Join(got, ", "), strings.Join(want, ", "))
	}

	// The hot state: dyn is worth 400 (three player solvers), less what
	// each was charged.
	totals := hotTotals(t, db)
	for user, want := range map[string]int{"alice": 400 + 200 - 50, "bob": 400 + 200, "carol": 400 - 100} {
		if totals[user] != want {
			t.Errorf("%s's total = %d, want %d", user, totals[user], want)
		}
	}

	for _, format := range []string{"yaml", "json"} {
		var buf bytes.Buffer
		if err := dataset.Encode(&buf, first, format); err != nil {
			t.Fatal(err)
		}
		again := openDB(t)
		mustLoad(t, again, writeFile(t, t.TempDir(), "dump."+format, buf.String()))
		sameDump(t, first, dump(t, again))
		rep, err := loadPaths(t, again, writeFile(t, t.TempDir(), "dump."+format, buf.String()))
		if err != nil || total(rep.Created) != 0 || total(rep.Updated) != 0 || rep.Unchanged["hintUnlocks"] != 5 {
			t.Errorf("%s dump loaded on itself: %+v, %v", format, rep, err)
		}
	}
}

// hotTotals builds the hot state from db and returns each user's total.
func hotTotals(t *testing.T, db *store.DB) map[string]int {
	t.Helper()
	r := live.New(db, live.Options{})
	if err := r.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, u := range dump(t, db).Users {
		if p := r.State().Profile(u.ID); p != nil {
			out[u.Username] = p.TotalPoints
		}
	}
	return out
}

// TestLoadKeepsUnlocksOfRemainingHints: loading a challenge again with a
// hint removed drops the unlocks of that hint and keeps the others, as a
// load keeps the challenge's solves; an unlock given again is updated in
// place, and one left out of the file stays.
func TestLoadKeepsUnlocksOfRemainingHints(t *testing.T) {
	db := openDB(t)
	mustLoad(t, db, writeFile(t, t.TempDir(), "event.yaml", scoringEvent))
	fewer := `
challenges:
  - {slug: static, title: Static, categories: [crypto], points: 200, flags: ['flag{static}'], hints: [It is RSA.],
     createdAt: 2026-01-01T00:00:00Z}
hintUnlocks:
  - {user: alice, challenge: static, hint: 1, charged: false}
`
	rep := mustLoad(t, db, writeFile(t, t.TempDir(), "fewer.yaml", fewer))
	if rep.Updated["challenges"] != 1 || rep.Updated["hintUnlocks"] != 1 {
		t.Errorf("report %+v: want the challenge and alice's unlock updated", rep)
	}
	var got []string
	for _, h := range dump(t, db).HintUnlocks {
		got = append(got, fmt.Sprintf("%s %s %d %s", h.User, h.Challenge, h.Hint, h.At.Format("15:04")))
	}
	// alice's unlock keeps its time (the file gives none); the unlocks of
	// hint 2 are gone; dyn's are not in the file and stay.
	if want := "bob dyn 1 09:00, alice static 1 10:30, carol dyn 1 12:00"; strings.Join(got, ", ") != want {
		t.Errorf("unlocks after the load: %s\nwant %s", strings.Join(got, ", "), want)
	}
	if totals := hotTotals(t, db); totals["alice"] != 400+200 {
		t.Errorf("alice's total %d, want 600: hint 2 is gone and hint 1 is free now", totals["alice"])
	}
}

// TestLoadHintUnlockErrors: an unlock naming a hint the challenge (of the
// database) does not have, or an unknown user or challenge, is refused
// naming the entry and the field.
func TestLoadHintUnlockErrors(t *testing.T) {
	db := openDB(t)
	mustLoad(t, db, writeFile(t, t.TempDir(), "event.yaml", scoringEvent))
	for _, tc := range []struct{ entry, field string }{
		{"{user: alice, challenge: static, hint: 3}", "hint"},
		{"{user: alice, challenge: dyn, hint: 2}", "hint"},
		{"{user: nobody, challenge: dyn, hint: 1}", "user"},
		{"{user: alice, challenge: nothing, hint: 1}", "challenge"},
	} {
		_, err := loadPaths(t, db, writeFile(t, t.TempDir(), "bad.yaml", "hintUnlocks:\n  - "+tc.entry+"\n"))
		var e *dataset.Error
		if !errors.As(err, &e) || e.Entry != "hintUnlocks[0]" || e.Field != tc.field {
			t.Errorf("%s: %v, want an error about hintUnlocks[0] %s", tc.entry, err, tc.field)
		}
	}
}
