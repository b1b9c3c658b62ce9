package demo

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
)

// The two days of play: every solve and attempt falls inside.
var (
	playStart = time.Date(2026, 11, 10, 9, 0, 0, 0, time.UTC)
	playEnd   = time.Date(2026, 11, 12, 9, 0, 0, 0, time.UTC)
)

var difficultyRank = map[ctf.Difficulty]int{ctf.Easy: 1, ctf.Medium: 2, ctf.Hard: 3, ctf.Insane: 4}

// event is the decoded demo dataset with the lookups every check needs.
type event struct {
	dataset.Dataset
	users      map[string]dataset.User
	challenges map[string]dataset.Challenge
	solvedAt   map[[2]string]time.Time // (username, slug) -> solve time
}

func load(t *testing.T) *event {
	t.Helper()
	// The loader's own reader: a misspelt key fails, and a dynamic
	// challenge's points are its initial value.
	d, err := dataset.Decode(Dataset, "demo.yaml")
	if err != nil {
		t.Fatalf("decode demo.yaml: %v", err)
	}
	ds := *d
	e := &event{Dataset: ds, users: map[string]dataset.User{}, challenges: map[string]dataset.Challenge{}, solvedAt: map[[2]string]time.Time{}}
	for _, u := range ds.Users {
		e.users[u.Username] = u
	}
	for _, c := range ds.Challenges {
		e.challenges[c.Slug] = c
	}
	for _, s := range ds.Solves {
		if s.At != nil {
			e.solvedAt[[2]string{s.User, s.Challenge}] = *s.At
		}
	}
	return e
}

// accepts reports whether flag is accepted by one of flags, as docs/product.md#flags
// defines matching: static exact (or case-insensitive), regex anchored.
func accepts(t *testing.T, flags []dataset.Flag, flag string) bool {
	t.Helper()
	for _, f := range flags {
		switch f.Type {
		case "static":
			if f.Content == flag || f.Data == "case_insensitive" && strings.EqualFold(f.Content, flag) {
				return true
			}
		case "regex":
			if regexp.MustCompile(`^(?:` + f.Content + `)$`).MatchString(flag) {
				return true
			}
		default:
			t.Fatalf("unknown flag type %q", f.Type)
		}
	}
	return false
}

// The demo user is a player in addition to the 20 regulars: 21 players and 1 admin.
func TestUsers(t *testing.T) {
	e := load(t)
	if len(e.users) != len(e.Users) {
		t.Fatal("duplicate username")
	}
	handle := regexp.MustCompile(`^[A-Za-z0-9_.-]{3,32}$`)
	emails := map[string]bool{}
	var players, admins, named int
	for _, u := range e.Users {
		if !handle.MatchString(u.Username) {
			t.Errorf("bad username %q", u.Username)
		}
		email := strings.ToLower(u.Email)
		if !strings.HasSuffix(email, "@example.com") || emails[email] {
			t.Errorf("%s: bad or duplicate email %q", u.Username, u.Email)
		}
		emails[email] = true
		if u.CreatedAt == nil || u.CreatedAt.Before(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) || !u.CreatedAt.Before(time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("%s: createdAt %v outside 2026-11-01..09", u.Username, u.CreatedAt)
		}
		if u.Banned || u.ID != "" || u.PasswordHash != "" {
			t.Errorf("%s: banned, id or passwordHash set", u.Username)
		}
		if (u.Password != "") != (u.Username == DemoUsername) {
			t.Errorf("%s: only the demo user has a password", u.Username)
		}
		switch u.Role {
		case ctf.RolePlayer:
			players++
			if u.Name != "" {
				named++
			}
		case ctf.RoleAdmin:
			admins++
		default:
			t.Errorf("%s: role %q", u.Username, u.Role)
		}
	}
	if players != 21 || admins != 1 || named < 15 {
		t.Errorf("players=%d admins=%d named=%d, want 21 (20 + demo), 1, most named", players, admins, named)
	}
	if o := e.users["organiser"]; o.Role != ctf.RoleAdmin || o.Name != "Event Organiser" {
		t.Errorf("organiser = %+v", o)
	}
	if d := e.users[DemoUsername]; d.Role != ctf.RolePlayer || d.Password != DemoPassword || d.Name != "Demo Player" || d.Email != "demo@example.com" {
		t.Errorf("demo user = %+v", d)
	}
	var demoSolves []string
	for _, s := range e.Solves {
		if s.User == DemoUsername {
			demoSolves = append(demoSolves, s.Challenge)
			if e.challenges[s.Challenge].Difficulty != ctf.Easy {
				t.Errorf("demo solved non-Easy %s", s.Challenge)
			}
		}
	}
	if len(demoSolves) != 2 {
		t.Errorf("demo solves = %v, want 2", demoSolves)
	}
}

func TestChallenges(t *testing.T) {
	e := load(t)
	if len(e.challenges) != len(e.Challenges) {
		t.Fatal("duplicate slug")
	}
	primary := map[string]int{}
	var hidden, insane, caseInsensitive, regex, twoFlags, instance, dynamic, required, byPlayers int
	for _, c := range e.Challenges {
		if c.Hidden {
			hidden++
		} else {
			primary[c.Categories[0]]++
		}
		if _, ok := difficultyRank[c.Difficulty]; !ok || c.Points < 100 || c.Points > 500 {
			t.Errorf("%s: difficulty %q, points %d", c.Slug, c.Difficulty, c.Points)
		}
		if c.Difficulty == ctf.Insane {
			insane++
		}
		if c.Title == "" || strings.Count(strings.TrimSpace(c.Description), "\n") < 1 || c.ID != "" {
			t.Errorf("%s: missing title or description, or id set", c.Slug)
		}
		if c.CreatedAt == nil || c.CreatedAt.Format(time.DateOnly) != "2026-11-09" {
			t.Errorf("%s: createdAt %v, want on 2026-11-09", c.Slug, c.CreatedAt)
		}
		if a, ok := e.users[c.Author]; !ok {
			t.Errorf("%s: unknown author %q", c.Slug, c.Author)
		} else if a.Role == ctf.RolePlayer {
			byPlayers++
		}
		// Handouts are served by Flagship (files_test.go solves them): a
		// link elsewhere would point at nothing.
		if c.File != nil && (c.File.Path != "" || c.File.URL != "" || c.File.ContentBase64 == "") {
			t.Errorf("%s: file must be stored in the dataset, got %s %s", c.Slug, c.File.Name, c.File.URL)
		}
		if c.HasInstance != (c.DockerPort != nil) {
			t.Errorf("%s: hasInstance without dockerPort or the reverse", c.Slug)
		}
		if c.HasInstance && *c.DockerPort == 31337 {
			instance++
		}
		if c.Type == "dynamic" {
			dynamic++
		} else if c.Type != "standard" {
			t.Errorf("%s: type %q", c.Slug, c.Type)
		}
		if len(c.Flags) == 0 {
			t.Errorf("%s: no flag", c.Slug)
		} else if len(c.Flags) == 2 {
			twoFlags++
		}
		for _, f := range c.Flags {
			if f.Type == "regex" {
				regex++
				regexp.MustCompile(f.Content)
			}
			if f.Data == "case_insensitive" {
				caseInsensitive++
			}
		}
		for _, r := range c.Requires {
			req, ok := e.challenges[r]
			if !ok || req.Hidden || req.Categories[0] != c.Categories[0] || difficultyRank[req.Difficulty] >= difficultyRank[c.Difficulty] {
				t.Errorf("%s requires %q: want an easier visible challenge of its category", c.Slug, r)
			}
			required++
		}
	}
	want := map[string]int{"web": 2, "crypto": 2, "pwn": 2, "reversing": 2, "forensics": 2, "misc": 2}
	if len(e.Challenges) != 13 || hidden != 1 || len(primary) != len(want) {
		t.Errorf("%d challenges, %d hidden, categories %v", len(e.Challenges), hidden, primary)
	}
	for cat, n := range want {
		if primary[cat] != n {
			t.Errorf("category %s: %d visible challenges, want %d", cat, primary[cat], n)
		}
	}
	if insane < 1 || caseInsensitive < 1 || regex < 1 || twoFlags < 1 || instance != 1 || dynamic != 1 || required < 2 || required > 3 || byPlayers != 2 {
		t.Errorf("insane=%d caseInsensitive=%d regex=%d twoFlags=%d instance=%d dynamic=%d requires=%d byPlayers=%d",
			insane, caseInsensitive, regex, twoFlags, instance, dynamic, required, byPlayers)
	}
	if f := e.challenges["packet-whisperer"].File; f == nil || f.Name != "capture.pcap" {
		t.Errorf("packet-whisperer file = %+v", f)
	}
}

// TestScoringAndHints: one challenge's points decay with its solves, and
// a few challenges have hints, each a free one and a costly one after it,
// that give nothing away; the unlocks are of free hints (the board is as
// without them), by players, before they solved the challenge.
func TestScoringAndHints(t *testing.T) {
	e := load(t)
	var dynamic []string
	hinted := 0
	for _, c := range e.Challenges {
		if c.Scoring.Of().IsDynamic() {
			dynamic = append(dynamic, c.Slug)
			if c.Type != "dynamic" || !strings.Contains(c.Description, "decay") {
				t.Errorf("%s: type %q, or its description does not say its points decay", c.Slug, c.Type)
			}
		}
		if len(c.Hints) == 0 {
			continue
		}
		hinted++
		free, costly := 0, 0
		for _, h := range c.Hints {
			if h.Cost == 0 {
				free++
			} else {
				costly++
			}
			for _, f := range c.Flags {
				if strings.Contains(strings.ToLower(h.Content), strings.ToLower(f.Content)) {
					t.Errorf("%s: hint %d gives the flag away", c.Slug, h.ID)
				}
			}
		}
		if len(c.Hints) > 1 && (free != 1 || costly != 1 || c.Hints[1].Requires != c.Hints[0].ID) {
			t.Errorf("%s: hints %+v, want a free one and a costly one that requires it", c.Slug, c.Hints)
		}
	}
	if len(dynamic) != 1 || dynamic[0] != "template-of-doom" || hinted < 2 || hinted > 3 {
		t.Errorf("dynamic %v, %d challenges with hints: want template-of-doom, and two or three", dynamic, hinted)
	}
	if c := e.challenges["template-of-doom"]; c.Points != 500 || c.Scoring.Of().Value(c.Points, 4) != 400 {
		t.Errorf("template-of-doom: %d points, worth %d with its four solvers; want 500 and 400", c.Points, c.Scoring.Of().Value(c.Points, 4))
	}
	if len(e.HintUnlocks) == 0 {
		t.Error("no hint unlocks")
	}
	for i, h := range e.HintUnlocks {
		free := false
		for _, x := range e.challenges[h.Challenge].Hints {
			free = free || x.ID == h.Hint && x.Cost == 0
		}
		solved, done := e.solvedAt[[2]string{h.User, h.Challenge}]
		switch {
		case !free:
			t.Errorf("unlock %d: hint %d of %s is not a free hint of it", i, h.Hint, h.Challenge)
		case e.users[h.User].Role != ctf.RolePlayer || h.At == nil || h.At.Before(playStart) || h.At.After(playEnd):
			t.Errorf("unlock %d: %s is not a player, or the time %v is outside play", i, h.User, h.At)
		case done && !h.At.Before(solved):
			t.Errorf("unlock %d: %s unlocked it after solving %s", i, h.User, h.Challenge)
		}
	}
}

func TestSolves(t *testing.T) {
	e := load(t)
	seen := map[[2]string]bool{}
	instants := map[int64]bool{} // UnixNano: time.Time keys would also compare locations
	var first, last time.Time
	for i, s := range e.Solves {
		key := [2]string{s.User, s.Challenge}
		u, okU := e.users[s.User]
		c, okC := e.challenges[s.Challenge]
		switch {
		case !okU || !okC || s.At == nil:
			t.Fatalf("solve %d: unknown user or challenge, or no time: %+v", i, s)
		case u.Role != ctf.RolePlayer:
			t.Errorf("solve %d: %s is not a player", i, s.User)
		case c.Hidden:
			t.Errorf("solve %d: hidden %s solved", i, s.Challenge)
		case c.Author == s.User:
			t.Errorf("solve %d: %s solved their own challenge", i, s.User)
		case seen[key]:
			t.Errorf("solve %d: %s solved %s twice", i, s.User, s.Challenge)
		case instants[s.At.UnixNano()]:
			t.Errorf("solve %d: two solves at %v", i, s.At)
		case s.At.Before(playStart) || s.At.After(playEnd):
			t.Errorf("solve %d: at %v outside the two days", i, s.At)
		case !accepts(t, c.Flags, s.Flag):
			t.Errorf("solve %d: flag %q not accepted by %s", i, s.Flag, s.Challenge)
		}
		seen[key], instants[s.At.UnixNano()] = true, true
		for _, r := range c.Requires {
			if at, ok := e.solvedAt[[2]string{s.User, r}]; !ok || !at.Before(*s.At) {
				t.Errorf("solve %d: %s solved %s before its prerequisite %s", i, s.User, s.Challenge, r)
			}
		}
		if first.IsZero() || s.At.Before(first) {
			first = *s.At
		}
		if s.At.After(last) {
			last = *s.At
		}
	}
	if n := len(e.Solves); n < 90 || n > 110 {
		t.Errorf("%d solves, want about 100", n)
	}
	if last.Sub(first) <= 24*time.Hour {
		t.Errorf("solves span %v, want more than 24h", last.Sub(first))
	}
}

// Attempts are wrong flags the platform would have recorded: on an unlocked,
// visible challenge, before the user solved it (after, it would be a 409).
func TestAttempts(t *testing.T) {
	e := load(t)
	if n := len(e.Attempts); n < 50 || n > 70 {
		t.Errorf("%d attempts, want about 60", n)
	}
	for i, a := range e.Attempts {
		c, okC := e.challenges[a.Challenge]
		if _, okU := e.users[a.User]; !okU || !okC || a.At == nil {
			t.Fatalf("attempt %d: unknown user or challenge, or no time: %+v", i, a)
		}
		if c.Hidden || accepts(t, c.Flags, a.Flag) || a.At.Before(playStart) || a.At.After(playEnd) {
			t.Errorf("attempt %d: hidden challenge, accepted flag or outside the two days: %+v", i, a)
		}
		if at, ok := e.solvedAt[[2]string{a.User, a.Challenge}]; ok && !a.At.Before(at) {
			t.Errorf("attempt %d: %s tried %s after solving it", i, a.User, a.Challenge)
		}
		for _, r := range c.Requires {
			if at, ok := e.solvedAt[[2]string{a.User, r}]; !ok || !at.Before(*a.At) {
				t.Errorf("attempt %d: %s tried %s while it was locked", i, a.User, a.Challenge)
			}
		}
	}
}

func TestWriteupsAndReviews(t *testing.T) {
	e := load(t)
	solvedBefore := func(user, slug string, at *time.Time) bool {
		solved, ok := e.solvedAt[[2]string{user, slug}]
		return ok && at != nil && at.After(solved)
	}
	status := map[ctf.WriteupStatus]int{}
	seen := map[[2]string]bool{}
	for i, w := range e.Writeups {
		key := [2]string{w.User, w.Challenge}
		if !solvedBefore(w.User, w.Challenge, w.CreatedAt) || seen[key] {
			t.Errorf("writeup %d: not by a solver after the solve, or a duplicate: %s on %s", i, w.User, w.Challenge)
		}
		seen[key] = true
		if w.Title == "" || w.Content == "" || w.UpdatedAt == nil || w.UpdatedAt.Before(*w.CreatedAt) || len(w.Images) > 1 {
			t.Errorf("writeup %d: title, content, updatedAt or images wrong", i)
		}
		for _, img := range w.Images {
			if !strings.HasPrefix(img, "https://") {
				t.Errorf("writeup %d: image %q", i, img)
			}
		}
		status[w.Status]++
	}
	if len(e.Writeups) != 8 || status[ctf.WriteupPending] != 1 || status[ctf.WriteupRejected] != 1 || status[ctf.WriteupApproved] != 6 {
		t.Errorf("%d writeups, statuses %v", len(e.Writeups), status)
	}

	clear(seen)
	for i, r := range e.Reviews {
		key := [2]string{r.User, r.Challenge}
		if !solvedBefore(r.User, r.Challenge, r.CreatedAt) || seen[key] {
			t.Errorf("review %d: not by a solver after the solve, or a duplicate: %s on %s", i, r.User, r.Challenge)
		}
		seen[key] = true
		if r.Stars < 1 || r.Stars > 5 || r.Difficulty < 1 || r.Difficulty > 10 {
			t.Errorf("review %d: stars %d, difficulty %d out of bounds", i, r.Stars, r.Difficulty)
		}
	}
	if n := len(e.Reviews); n < 20 || n > 30 {
		t.Errorf("%d reviews, want about 25", n)
	}
}

// TestLeaderboardTop3 pins the expected board so that other packages can
// assert it after loading the demo: points desc, then earliest last solve.
// A solve is worth its challenge's value (a dynamic one's with its player
// solvers) less the hints its solver unlocked before solving.
func TestLeaderboardTop3(t *testing.T) {
	e := load(t)
	type row struct {
		user   string
		points int
		last   time.Time
	}
	solvers := map[string]int{} // every solver is a player (TestSolves)
	for _, s := range e.Solves {
		solvers[s.Challenge]++
	}
	cost := map[[2]string]int{}
	for _, h := range e.HintUnlocks {
		key := [2]string{h.User, h.Challenge}
		if at, ok := e.solvedAt[key]; ok && !at.After(*h.At) {
			continue
		}
		for _, x := range e.challenges[h.Challenge].Hints {
			if x.ID == h.Hint {
				cost[key] += x.Cost
			}
		}
	}
	rows := map[string]*row{}
	for _, s := range e.Solves {
		r := rows[s.User]
		if r == nil {
			r = &row{user: s.User}
			rows[s.User] = r
		}
		c := e.challenges[s.Challenge]
		r.points += ctf.Worth(c.Scoring.Of().Value(c.Points, solvers[s.Challenge]), cost[[2]string{s.User, s.Challenge}])
		if s.At.After(r.last) {
			r.last = *s.At
		}
	}
	board := make([]row, 0, len(rows))
	for _, r := range rows {
		board = append(board, *r)
	}
	slices.SortFunc(board, func(a, b row) int {
		return cmp.Or(cmp.Compare(b.points, a.points), a.last.Compare(b.last), strings.Compare(a.user, b.user))
	})
	want := []struct {
		user   string
		points int
	}{{"n0ps1ed", 2500}, {"cipherpunk", 2200}, {"zer0day_zoe", 1950}}
	for i, w := range want {
		if board[i].user != w.user || board[i].points != w.points {
			t.Errorf("rank %d = %s with %d, want %s with %d", i+1, board[i].user, board[i].points, w.user, w.points)
		}
	}
	if len(board) != 21 {
		t.Errorf("%d ranked players, want all 21", len(board))
	}
}

// TestDatasetAtIsRecent: the demo `serve --demo` loads has its latest time
// in the hour before now, every gap between two times kept, and still
// decodes as a dataset.
func TestDatasetAtIsRecent(t *testing.T) {
	for _, now := range []time.Time{time.Date(2026, 11, 26, 15, 42, 7, 0, time.UTC), time.Date(2031, 2, 3, 0, 5, 0, 0, time.UTC)} {
		moved := DatasetAt(now)
		before, after := stamp.FindAll(Dataset, -1), stamp.FindAll(moved, -1)
		if len(before) < 100 || len(before) != len(after) {
			t.Fatalf("%v: %d times before, %d after", now, len(before), len(after))
		}
		var shift time.Duration
		latest := time.Time{}
		for i := range before {
			b, ok1 := parseStamp(before[i])
			a, ok2 := parseStamp(after[i])
			if !ok1 || !ok2 {
				t.Fatalf("%v: time %q or %q does not parse", now, before[i], after[i])
			}
			if i == 0 {
				shift = a.Sub(b)
			} else if a.Sub(b) != shift {
				t.Fatalf("%v: %s moved by %v, the first by %v", now, before[i], a.Sub(b), shift)
			}
			if a.After(latest) {
				latest = a
			}
		}
		if shift%time.Hour != 0 || latest.After(now) || now.Sub(latest) > 2*time.Hour {
			t.Errorf("%v: shifted by %v, latest time %v", now, shift, latest)
		}
		if _, err := dataset.Decode(moved, "demo.yaml"); err != nil {
			t.Errorf("%v: the moved demo does not decode: %v", now, err)
		}
	}
}
