package dataset

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestDecodeScoringAndHints: the forms a challenge's scoring and hints
// and the top-level hintUnlocks take, as Flagship writes them.
func TestDecodeScoringAndHints(t *testing.T) {
	dyn := func(initial, minimum, decay int, fn ctf.DecayFunc) *Scoring {
		return &Scoring{Type: ctf.DynamicScoring, Initial: initial, Minimum: minimum, Decay: decay, Function: fn}
	}
	for _, tc := range []struct {
		name, entry string
		points      int
		scoring     *Scoring
		hints       []Hint
	}{
		{"static by default", chal("x"), 100, nil, nil},
		{"static given", chal("x", "scoring: {type: static}"), 100, &Scoring{Type: ctf.StaticScoring}, nil},
		{"dynamic, points left out", chal("x", "points: DELETE", "scoring: {type: dynamic, initial: 500, minimum: 100, decay: 20}"),
			500, dyn(500, 100, 20, ""), nil},
		{"dynamic, initial left out", chal("x", "points: 300", "scoring: {type: Dynamic, minimum: 10, decay: 5, function: Linear}"),
			300, dyn(300, 10, 5, ctf.Linear), nil},
		{"dynamic, both the same", chal("x", "points: 500", "scoring: {type: dynamic, initial: 500, minimum: 100, decay: 20, function: logarithmic}"),
			500, dyn(500, 100, 20, ctf.Logarithmic), nil},
		{"hints: ids by position, a string is free", chal("x", "hints: ['Look **closer**.', {content: Costly, cost: 50, requires: 1}]"),
			100, nil, []Hint{{ID: 1, Content: "Look **closer**."}, {ID: 2, Content: "Costly", Cost: 50, Requires: 1}}},
		{"hints: ids given", chal("x", "hints: [{id: 10, content: A}, {id: 3, content: B, cost: 5, requires: 10}]"),
			100, nil, []Hint{{ID: 10, Content: "A"}, {ID: 3, Content: "B", Cost: 5, Requires: 10}}},
		{"no hints", chal("x", "hints: []"), 100, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decode([]byte("challenges:\n"+tc.entry), "event.yaml")
			if err != nil {
				t.Fatal(err)
			}
			c := d.Challenges[0]
			if c.Points != tc.points || !reflect.DeepEqual(c.Scoring, tc.scoring) || !reflect.DeepEqual(c.Hints, tc.hints) {
				t.Errorf("points %d, scoring %+v, hints %+v\nwant %d, %+v, %+v", c.Points, c.Scoring, c.Hints, tc.points, tc.scoring, tc.hints)
			}
		})
	}

	d, err := Decode([]byte("challenges:\n"+chal("x", "hints: [a, b]")+`hintUnlocks:
  - {user: alice, challenge: x, hint: 2, at: 2026-01-05T10:00:00Z, charged: false}
  - {user: alice, challenge: x, hint: 1}
  - {user: alice, challenge: elsewhere, hint: 9, charged: true}
`), "event.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []HintUnlock{
		{User: "alice", Challenge: "x", Hint: 2, At: ts("2026-01-05T10:00:00Z"), Charged: boolp(false), Source: Source{"event.yaml", 0}},
		{User: "alice", Challenge: "x", Hint: 1, Source: Source{"event.yaml", 1}},
		// A challenge of the database: the loader checks its hints.
		{User: "alice", Challenge: "elsewhere", Hint: 9, Charged: boolp(true), Source: Source{"event.yaml", 2}},
	}
	if !reflect.DeepEqual(d.HintUnlocks, want) {
		t.Errorf("hint unlocks %+v\nwant %+v", d.HintUnlocks, want)
	}
}

// TestScoringAndHintsErrors: each bad scoring, hint and unlock is refused
// naming the file, the entry and the field.
func TestScoringAndHintsErrors(t *testing.T) {
	x := `challenges[0] (slug "x")`
	one := func(lines ...string) []fixture {
		return []fixture{{"event.yaml", "challenges:\n" + chal("x", lines...)}}
	}
	unlocks := func(list string) []fixture {
		return []fixture{{"event.yaml", "challenges:\n" + chal("x", "hints: [a, {content: b, cost: 5}]") + "hintUnlocks:\n" + list}}
	}
	runErrorCases(t, []errorCase{
		{"points and initial differ", one("points: 400", "scoring: {type: dynamic, initial: 500, decay: 10}"), "event.yaml", x, "points"},
		{"neither points nor initial", one("points: DELETE", "scoring: {type: dynamic, decay: 10}"), "event.yaml", x, "points"},
		{"unknown type", one("scoring: {type: decaying, initial: 100, decay: 10}"), "event.yaml", x, "scoring.type"},
		{"static with a decay", one("scoring: {type: static, decay: 10}"), "event.yaml", x, "scoring"},
		{"no type", one("scoring: {initial: 100, decay: 10}"), "event.yaml", x, "scoring"},
		{"logarithmic decay 0", one("scoring: {type: dynamic, decay: 0}"), "event.yaml", x, "scoring.decay"},
		{"minimum above initial", one("scoring: {type: dynamic, minimum: 200, decay: 10}"), "event.yaml", x, "scoring.minimum"},
		{"unknown function", one("scoring: {type: dynamic, decay: 10, function: exponential}"), "event.yaml", x, "scoring.function"},
		{"unknown scoring key", one("scoring: {type: dynamic, decay: 10, minimun: 5}"), "event.yaml", x, "scoring.minimun"},
		{"scoring not a mapping", one("scoring: dynamic"), "event.yaml", x, "scoring"},
		{"decay not a number", one("scoring: {type: dynamic, decay: fast}"), "event.yaml", x, "scoring.decay"},
		{"scoring and extra", one("type: dynamic", "scoring: {type: dynamic, decay: 10}", "extra: {initial: 100, decay: 10}"),
			"event.yaml", x, "extra"},
		{"hint without content", one("hints: [{cost: 10}]"), "event.yaml", x, "hints[0].content"},
		{"blank hint", one("hints: ['  ']"), "event.yaml", x, "hints[0].content"},
		{"negative cost", one("hints: [{content: a, cost: -1}]"), "event.yaml", x, "hints[0].cost"},
		{"duplicate id", one("hints: [a, {id: 1, content: b}]"), "event.yaml", x, "hints[1].id"},
		{"id 0", one("hints: [{id: 0, content: a}]"), "event.yaml", x, "hints[0].id"},
		{"requires a later hint", one("hints: [{content: a, requires: 2}, b]"), "event.yaml", x, "hints[0].requires"},
		{"unknown hint key", one("hints: [{content: a, costs: 2}]"), "event.yaml", x, "hints[0].costs"},
		{"unlock of no hint", unlocks("  - {user: alice, challenge: x, hint: 3}\n"), "event.yaml", "hintUnlocks[0]", "hint"},
		{"unlock without a hint", unlocks("  - {user: alice, challenge: x}\n"), "event.yaml", "hintUnlocks[0]", "hint"},
		{"unlock without a user", unlocks("  - {challenge: x, hint: 1}\n"), "event.yaml", "hintUnlocks[0]", "user"},
		{"unlock twice", unlocks("  - {user: alice, challenge: x, hint: 2}\n  - {user: alice, challenge: x, hint: 2, charged: false}\n"),
			"event.yaml", "hintUnlocks[1]", "hint"},
		{"unlock charged not a boolean", unlocks("  - {user: alice, challenge: x, hint: 1, charged: sometimes}\n"),
			"event.yaml", "hintUnlocks[0]", "charged"},
		{"unknown unlock key", unlocks("  - {user: alice, challenge: x, hint: 1, cost: 5}\n"), "event.yaml", "hintUnlocks[0]", "cost"},
		{"ctfcli dynamic without decay", []fixture{{"c/challenge.yml", "name: D\ncategory: web\nvalue: 100\ntype: dynamic\nextra: {initial: 500}\nflags: [f]\n"}},
			"c/challenge.yml", "challenge", "extra.decay"},
		{"ctfcli dynamic minimum above initial", []fixture{{"c/challenge.yml",
			"name: D\ncategory: web\ntype: dynamic\nextra: {initial: 50, minimum: 100, decay: 5}\nflags: [f]\n"}},
			"c/challenge.yml", "challenge", "extra.minimum"},
		{"ctfcli dynamic without a value", []fixture{{"c/challenge.yml", "name: D\ncategory: web\ntype: dynamic\nextra: {decay: 5}\nflags: [f]\n"}},
			"c/challenge.yml", "challenge", "value"},
		{"ctfcli hint cost not a number", []fixture{{"c/challenge.yml", "name: D\ncategory: web\nvalue: 1\nflags: [f]\nhints: [{content: a, cost: ten}]\n"}},
			"c/challenge.yml", "challenge", "hints[0].cost"},
	})
}

// TestCtfcliScoringAndHints reads challenge.yml files in ctfcli's forms
// (see testdata/ctfcli): a dynamic challenge's extra and its hints, as
// ctfcli's specification writes them and as its mirror command does.
func TestCtfcliScoringAndHints(t *testing.T) {
	for _, tc := range []struct {
		dir     string
		points  int
		scoring *Scoring
		hints   []Hint
	}{
		// CTFd sets a dynamic challenge's value to its initial one: value
		// is not read.
		{"spec", 500, &Scoring{Type: ctf.DynamicScoring, Initial: 500, Minimum: 50, Decay: 100},
			[]Hint{{ID: 1, Content: "Count the bytes up to the return address.", Cost: 10}, {ID: 2, Content: "The binary has no canary."}}},
		// mirror writes CTFd's current value as value.
		{"mirror", 500, &Scoring{Type: ctf.DynamicScoring, Initial: 500, Minimum: 100, Decay: 20},
			[]Hint{{ID: 1, Content: "Look at the cookies."}, {ID: 2, Content: "The session is a JWT.", Cost: 25}}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			d, err := ReadPaths([]string{filepath.Join("testdata", "ctfcli", tc.dir)})
			if err != nil {
				t.Fatal(err)
			}
			c := d.Challenges[0]
			if c.Type != "dynamic" || c.Points != tc.points || !reflect.DeepEqual(c.Scoring, tc.scoring) || !reflect.DeepEqual(c.Hints, tc.hints) {
				t.Errorf("type %q, points %d, scoring %+v, hints %+v\nwant dynamic, %d, %+v, %+v",
					c.Type, c.Points, c.Scoring, c.Hints, tc.points, tc.scoring, tc.hints)
			}
		})
	}

	// CTFd's function, when extra gives it; a standard challenge's extra
	// only gives the points a missing value leaves out.
	for _, tc := range []struct {
		name, yml string
		points    int
		scoring   *Scoring
	}{
		{"linear", "type: dynamic\nextra: {initial: 300, decay: 15, minimum: 30, function: linear}\n", 300,
			&Scoring{Type: ctf.DynamicScoring, Initial: 300, Minimum: 30, Decay: 15, Function: ctf.Linear}},
		{"initial from value", "value: 250\ntype: dynamic\nextra: {decay: 15}\n", 250,
			&Scoring{Type: ctf.DynamicScoring, Initial: 250, Decay: 15}},
		{"standard with extra", "type: standard\nextra: {initial: 300, decay: 15}\n", 300, nil},
		{"standard value wins", "value: 10\nextra: {initial: 300}\n", 10, nil},
		{"dynamic without extra", "value: 10\ntype: dynamic\n", 10, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := DecodeCtfcli([]byte("name: C\ncategory: misc\nflags: [f]\n"+tc.yml), "c/challenge.yml")
			if err != nil {
				t.Fatal(err)
			}
			if c.Points != tc.points || !reflect.DeepEqual(c.Scoring, tc.scoring) {
				t.Errorf("points %d, scoring %+v; want %d, %+v", c.Points, c.Scoring, tc.points, tc.scoring)
			}
		})
	}
}
