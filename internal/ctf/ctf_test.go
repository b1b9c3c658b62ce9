package ctf

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestFlagMatches(t *testing.T) {
	tests := []struct {
		name string
		flag Flag
		in   string
		want bool
	}{
		{"static exact", Flag{Kind: "static", Content: "flag{a}"}, "flag{a}", true},
		{"static is case-sensitive", Flag{Kind: "static", Content: "flag{a}"}, "FLAG{A}", false},
		{"static prefix is wrong", Flag{Kind: "static", Content: "flag{a}"}, "flag{", false},
		{"static longer is wrong", Flag{Kind: "static", Content: "flag{a}"}, "flag{a}x", false},
		{"case-insensitive", Flag{Kind: "static", Content: "FLAG{Any}", CaseInsensitive: true}, "flag{aNY}", true},
		{"case-insensitive still exact", Flag{Kind: "static", Content: "FLAG{Any}", CaseInsensitive: true}, "flag{any2}", false},
		{"regex", Flag{Kind: "regex", Content: `flag\{[0-9a-f]{8}\}`}, "flag{deadbeef}", true},
		{"regex anchored at the end", Flag{Kind: "regex", Content: `flag\{[0-9a-f]{8}\}`}, "flag{deadbeef}x", false},
		{"regex anchored at the start", Flag{Kind: "regex", Content: `flag\{[0-9a-f]{8}\}`}, "xflag{deadbeef}", false},
		{"regex alternation stays anchored", Flag{Kind: "regex", Content: `a|b`}, "ab", false},
		{"regex case-insensitive", Flag{Kind: "regex", Content: `flag\{x+\}`, CaseInsensitive: true}, "FLAG{XX}", true},
		{"unknown kind never matches", Flag{Kind: "magic", Content: "x"}, "x", false},
		{"regex anchors hold around (?m)", Flag{Kind: "regex", Content: `(?m)a$`}, "a\nb", false},
		{"regex literal \\Q stays inside", Flag{Kind: "regex", Content: `\Qa|b`}, "a|b", true},
		{"static case-insensitive of other length", Flag{Kind: "static", Content: "FLAG{A}", CaseInsensitive: true}, "flag{a}}", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.flag
			if got := f.Matches(tc.in); got != tc.want {
				t.Errorf("Matches(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestFlagCompileRejectsBadRegex(t *testing.T) {
	for _, f := range []Flag{{Kind: "regex", Content: "("}, {Kind: "regex", Content: `(?P<x`}, {Kind: "glob", Content: "*"},
		{Kind: "static", Content: " "}, {Kind: "static", Content: strings.Repeat("x", MaxFlagBytes+1)}} {
		if err := f.Compile(); err == nil {
			t.Errorf("Compile(%+v) accepted", f)
		} else if ErrorCode(err) != Invalid {
			t.Errorf("Compile(%+v): code %v, want Invalid", f, ErrorCode(err))
		}
	}
}

// TestRegexFlagCannotEscapeAnchors: content that closes the anchoring group
// early is refused, and no accepted pattern matches a
// string the organiser's expression does not match whole.
func TestRegexFlagCannotEscapeAnchors(t *testing.T) {
	for _, content := range []string{`flag\{a\})|(?:.*`, `a)|(.*`, `x)|(?:`, `a\`} {
		f := Flag{Kind: "regex", Content: content}
		if err := f.Compile(); err == nil {
			t.Errorf("Compile(%q) accepted a pattern that escapes its anchoring", content)
		}
		if f.Matches("anything at all") {
			t.Errorf("%q accepts any flag", content)
		}
		if err := ValidateFlag("regex", content); err == nil {
			t.Errorf("ValidateFlag(%q) accepted", content)
		}
	}
}

// TestStaticFlagComparesDigests: static flags are compared as fixed-size
// digests, so the comparison takes the same time whatever the lengths
// (subtle.ConstantTimeCompare returns at once on a length mismatch).
func TestStaticFlagComparesDigests(t *testing.T) {
	var lengths [][2]int
	old := digestsEqual
	digestsEqual = func(a, b []byte) bool {
		lengths = append(lengths, [2]int{len(a), len(b)})
		return old(a, b)
	}
	defer func() { digestsEqual = old }()
	f := Flag{Kind: "static", Content: "flag{exact}"}
	for _, in := range []string{"", "f", "flag{exact}", strings.Repeat("x", MaxFlagBytes)} {
		f.Matches(in)
	}
	if len(lengths) != 4 {
		t.Fatalf("compared %d times, want 4", len(lengths))
	}
	for _, l := range lengths {
		if l != [2]int{32, 32} {
			t.Errorf("compared inputs of lengths %v, want two 32-byte digests", l)
		}
	}
}

func TestCheckFlagAnyOfSeveral(t *testing.T) {
	c := Challenge{Flags: []Flag{{Kind: "static", Content: "one"}, {Kind: "regex", Content: "t[wo]+"}}}
	for in, want := range map[string]bool{"one": true, "two": true, "too": true, "three": false, "": false} {
		if got := c.CheckFlag(in); got != want {
			t.Errorf("CheckFlag(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestNormalizeFlag(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"  flag{x}\n", "flag{x}", true},
		{"", "", false},
		{" \t\r\n ", "", false},
		{strings.Repeat("a", MaxFlagBytes), strings.Repeat("a", MaxFlagBytes), true},
		{strings.Repeat("a", MaxFlagBytes+1), "", false},
		{" " + strings.Repeat("a", MaxFlagBytes) + " ", strings.Repeat("a", MaxFlagBytes), true},
	}
	for _, tc := range tests {
		got, err := NormalizeFlag(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("NormalizeFlag(%.20q) = %.20q, %v; want %.20q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && ErrorCode(err) != Invalid {
			t.Errorf("NormalizeFlag error code = %v, want Invalid", ErrorCode(err))
		}
	}
}

func at(h int) time.Time { return time.Date(2026, 1, 5, h, 0, 0, 0, time.UTC) }

func ids(awards []Award) []string {
	out := []string{}
	for _, a := range awards {
		out = append(out, a.ID+"@"+a.AwardedAt.Format("15"))
	}
	return out
}

func TestBadges(t *testing.T) {
	web := []string{"web"}
	totals := map[string]int{"web": 2, "crypto": 3}
	tests := []struct {
		name    string
		history []BadgeSolve
		want    []string
	}{
		{"none", nil, []string{}},
		{"first solve", []BadgeSolve{{At: at(1), Categories: []string{"crypto"}, Difficulty: Easy}}, []string{"first-solve@01"}},
		{"first blood and insane on one solve", []BadgeSolve{{At: at(2), Categories: []string{"crypto"}, Difficulty: Insane, FirstBlood: true}},
			[]string{"first-solve@02", "first-blood@02", "first-insane@02"}},
		{"category complete at the solve that completes it, in time order whatever the input order", []BadgeSolve{
			{At: at(5), Categories: web, Difficulty: Easy}, {At: at(3), Categories: web, Difficulty: Easy}},
			[]string{"first-solve@03", "category-web@05"}},
		{"two categories on one challenge count in both", []BadgeSolve{
			{At: at(1), Categories: []string{"web", "crypto"}}, {At: at(2), Categories: web}},
			[]string{"first-solve@01", "category-web@02"}},
		{"five solves", []BadgeSolve{{At: at(1)}, {At: at(2)}, {At: at(3)}, {At: at(4)}, {At: at(5)}, {At: at(6)}},
			[]string{"first-solve@01", "solves-5@05"}},
		{"an insane badge once", []BadgeSolve{{At: at(1), Difficulty: Insane}, {At: at(2), Difficulty: Insane}},
			[]string{"first-solve@01", "first-insane@01"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(Badges(tc.history, totals)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBadgesLargeCounts(t *testing.T) {
	var h []BadgeSolve
	for i := 0; i < 100; i++ {
		h = append(h, BadgeSolve{At: at(0).Add(time.Duration(i) * time.Minute)})
	}
	got := Badges(h, nil)
	want := []string{"first-solve", "solves-5", "solves-25", "solves-100"}
	var gotIDs []string
	for _, a := range got {
		gotIDs = append(gotIDs, a.ID)
	}
	if !reflect.DeepEqual(gotIDs, want) {
		t.Fatalf("got %v, want %v", gotIDs, want)
	}
	if !got[3].AwardedAt.Equal(h[99].At) {
		t.Errorf("solves-100 awarded at %v, want the 100th solve %v", got[3].AwardedAt, h[99].At)
	}
	for _, a := range got {
		if b, ok := BadgeByID(a.ID); !ok || b.Title == "" || b.Icon == "" {
			t.Errorf("BadgeByID(%q) = %+v, %v", a.ID, b, ok)
		}
	}
}

func TestNewBadges(t *testing.T) {
	before := []Award{{Badge: Badge{ID: "first-solve"}}}
	after := []Award{{Badge: Badge{ID: "first-solve"}}, {Badge: Badge{ID: "first-blood"}}}
	if got := NewBadges(before, after); len(got) != 1 || got[0].ID != "first-blood" {
		t.Errorf("NewBadges = %v", got)
	}
	if got := NewBadges(after, after); got == nil || len(got) != 0 {
		t.Errorf("NewBadges of equal sets = %#v, want empty non-nil", got)
	}
}

func TestRanksBefore(t *testing.T) {
	a := Standing{Username: "a", TotalPoints: 100, LastSolvedAt: at(2)}
	tests := []struct {
		name string
		x, y Standing
		want bool
	}{
		{"more points first", Standing{Username: "z", TotalPoints: 200, LastSolvedAt: at(9)}, a, true},
		{"fewer points after", Standing{Username: "a", TotalPoints: 50, LastSolvedAt: at(1)}, a, false},
		{"same points: earlier last solve first", Standing{Username: "z", TotalPoints: 100, LastSolvedAt: at(1)}, a, true},
		{"same points and time: username", Standing{Username: "b", TotalPoints: 100, LastSolvedAt: at(2)}, a, false},
		{"not before itself", a, a, false},
	}
	for _, tc := range tests {
		if got := RanksBefore(tc.x, tc.y); got != tc.want {
			t.Errorf("%s: got %v", tc.name, got)
		}
	}
}

func TestSolveBeforeBreaksTies(t *testing.T) {
	x, y := &Solve{At: at(1), Seq: 2}, &Solve{At: at(1), Seq: 1}
	if SolveBefore(x, y) || !SolveBefore(y, x) {
		t.Error("equal times must order by seq")
	}
}

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestNewIDIsUniqueOrderedUUIDv7(t *testing.T) {
	prev := ""
	seen := map[string]bool{}
	for i := 0; i < 10000; i++ {
		id := NewID()
		if !uuidV7.MatchString(id) {
			t.Fatalf("%q is not a UUIDv7", id)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		if id <= prev {
			t.Fatalf("ids not increasing: %q after %q", id, prev)
		}
		seen[id], prev = true, id
	}
}

func TestFormatTime(t *testing.T) {
	in := time.Date(2026, 1, 5, 11, 0, 0, 123456789, time.FixedZone("x", 3600))
	if got := FormatTime(in); got != "2026-01-05T10:00:00.123Z" {
		t.Errorf("FormatTime = %q", got)
	}
}

func TestSessionCookieName(t *testing.T) {
	for _, tc := range []struct {
		secure bool
		want   string
	}{{false, "flagship_session"}, {true, "__Host-flagship_session"}} {
		if got := SessionCookieName(tc.secure); got != tc.want {
			t.Errorf("SessionCookieName(%v) = %q, want %q", tc.secure, got, tc.want)
		}
	}
}
