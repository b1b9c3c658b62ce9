// Package synth generates a synthetic CTF event for benchmarks and load
// tests: deterministic for a seed (API key secrets aside), with the skew of a
// real event — a few strong players and a long tail, popular easy
// challenges and rarely solved insane ones, prerequisites, solves spread
// over 48 hours and wrong attempts by players on challenges they could see.
package synth

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
)

// Config sizes an event.
type Config struct {
	Players    int    // users who play (neither admin nor banned)
	Challenges int    // visible challenges
	Solves     int    // solves by players, exactly
	Attempts   int    // wrong submissions by players, exactly
	Seed       uint64 // same seed, same event
	Keys       int    // API keys for the first Keys players, secrets returned
}

// Default is the size of the performance bar.
func Default() Config {
	return Config{Players: 10_000, Challenges: 200, Solves: 200_000, Attempts: 2_000_000, Seed: 1}
}

// Scale returns c with its players, solves and attempts multiplied by f
// (at least a minimal event), for quick runs; the board keeps its
// challenges, so the event keeps its shape (solves per player).
func (c Config) Scale(f float64) Config {
	if f <= 0 || f == 1 {
		return c
	}
	s := func(n, least int) int { return max(least, int(math.Round(float64(n)*f))) }
	c.Players = s(c.Players, 10)
	c.Solves = s(c.Solves, 10)
	c.Attempts = s(c.Attempts, 10)
	return c
}

// Validate reports a size that cannot be generated.
func (c Config) Validate() error {
	switch {
	case c.Players < 1 || c.Challenges < 1:
		return errors.New("synth: need at least one player and one challenge")
	case c.Solves < 0 || c.Attempts < 0 || c.Keys < 0:
		return errors.New("synth: counts must not be negative")
	case c.Keys > c.Players:
		return fmt.Errorf("synth: %d keys for %d players: at most one key per player", c.Keys, c.Players)
	case float64(c.Solves) > 0.9*float64(activePlayers(c.Players))*float64(c.Challenges):
		return fmt.Errorf("synth: %d solves do not fit %d players × %d challenges (at most 90%% of the active players' pairs)",
			c.Solves, c.Players, c.Challenges)
	}
	return nil
}

// activePlayers is how many players have any solve or attempt: the rest
// registered and never played, as in every real event.
func activePlayers(players int) int { return max(1, players-players*8/100) }

// Key is an API key minted for a player.
type Key struct {
	UserID   string
	Username string
	Secret   string
}

// Target is a challenge a keyed player can submit to: visible, unlocked
// and not yet solved by them.
type Target struct {
	Key         string // the player's API key secret
	UserID      string
	Slug        string
	ChallengeID string
	Flag        string // a correct flag
}

// Event is a generated event.
type Event struct {
	Config     Config
	Start, End time.Time // the 48 hours of play
	Users      []ctf.User
	Challenges []ctf.Challenge
	Solves     []ctf.Solve // time order, every time distinct
	Reviews    []ctf.Review
	Writeups   []ctf.Writeup
	APIKeys    []ctf.APIKey
	Keys       []Key // secrets of APIKeys, the first Config.Keys players in order

	admins      int
	players     []*player
	chals       []*chal
	attemptPick alias // challenge weights for wrong attempts
}

type player struct {
	idx      int
	user     *ctf.User
	weight   float64 // activity: drives solves and attempts alike
	start    int64   // ms offset of the first activity
	solvedAt map[int]int64
	attempts int
}

type chal struct {
	idx      int
	c        *ctf.Challenge
	level    int // 0 Easy … 3 Insane
	pop      float64
	requires []int
	flag     string // a correct submission
}

// Start of the synthetic event: fixed, so the event is reproducible, and in
// the past, so a live server's rate-limit window never sees its attempts.
var defaultStart = time.Date(2025, 6, 6, 8, 0, 0, 0, time.UTC)

const eventMillis = int64(48 * time.Hour / time.Millisecond)

// Generate builds the event described by cfg.
func Generate(cfg Config) (*Event, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g := &gen{rng: rand.New(rand.NewPCG(cfg.Seed, 0x5eed_f1a9)), cfg: cfg}
	e := &Event{Config: cfg, Start: defaultStart, End: defaultStart.Add(48 * time.Hour)}
	g.e = e
	g.users()
	g.challenges()
	g.solves()
	g.reviewsAndWriteups()
	g.attemptCounts()
	g.keys()
	return e, nil
}

type gen struct {
	rng *rand.Rand
	cfg Config
	e   *Event
}

// newID makes a UUIDv7 for time t from the seeded generator, so ids are
// deterministic yet shaped like the platform's own.
func newID(rng *rand.Rand, t time.Time) string {
	var b [16]byte
	ms := uint64(t.UnixMilli())
	r1, r2 := rng.Uint64(), rng.Uint64()
	b[0], b[1], b[2], b[3], b[4], b[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	b[6] = 0x70 | byte(r1>>8)&0x0f
	b[7] = byte(r1)
	for i := 8; i < 16; i++ {
		b[i] = byte(r2 >> (8 * (i - 8)))
	}
	b[8] = b[8]&0x3f | 0x80
	return ctf.FormatUUID(b)
}

var firstNames = []string{"Alice", "Bob", "Carol", "Dave", "Eve", "Mallory", "Trent", "Peggy", "Victor", "Walter",
	"Yuki", "Amara", "Lukas", "Sofia", "Mateo", "Chen", "Priya", "Omar", "Ingrid", "Kofi", "Nadia", "Tomás", "Aiko", "Leila"}
var lastNames = []string{"Smith", "Nakamura", "García", "Okafor", "Müller", "Kowalski", "Singh", "Haddad", "Ivanova",
	"Larsen", "Costa", "Dubois", "Kim", "Novak", "Rossi", "Mensah", "O'Brien", "Yilmaz"}

func (g *gen) users() {
	e, rng := g.e, g.rng
	const admins = 4
	e.admins = admins
	e.Users = make([]ctf.User, 0, admins+g.cfg.Players)
	base := e.Start.Add(-30 * 24 * time.Hour)
	for i := 0; i < admins; i++ {
		at := base.Add(time.Duration(i) * time.Minute)
		e.Users = append(e.Users, ctf.User{ID: newID(rng, at), Username: fmt.Sprintf("organiser%d", i+1),
			Name: "Organiser " + firstNames[i], Email: fmt.Sprintf("organiser%d@example.org", i+1),
			Role: ctf.RoleAdmin, CreatedAt: at})
	}
	// Registration spreads over the four weeks before the start, most of
	// it in the last days.
	active := activePlayers(g.cfg.Players)
	inactive := make([]bool, g.cfg.Players)
	for _, i := range rng.Perm(g.cfg.Players)[:g.cfg.Players-active] {
		inactive[i] = true
	}
	offsets := make([]int64, g.cfg.Players)
	span := int64(28 * 24 * time.Hour / time.Millisecond)
	for i := range offsets {
		offsets[i] = span - int64(float64(span)*math.Pow(rng.Float64(), 3))
	}
	sort.Slice(offsets, func(i, j int) bool { return offsets[i] < offsets[j] })
	for i := 0; i < g.cfg.Players; i++ {
		at := base.Add(time.Duration(offsets[i]) * time.Millisecond).Add(time.Duration(i) * time.Millisecond)
		u := ctf.User{ID: newID(rng, at), Username: fmt.Sprintf("player%05d", i+1),
			Email: fmt.Sprintf("player%05d@example.org", i+1), Role: ctf.RolePlayer, CreatedAt: ctf.Millis(at)}
		if rng.IntN(10) < 7 {
			u.Name = firstNames[rng.IntN(len(firstNames))] + " " + lastNames[rng.IntN(len(lastNames))]
		}
		if rng.IntN(5) == 0 {
			u.Image = "https://avatars.example.org/" + u.Username + ".png"
		}
		e.Users = append(e.Users, u)
	}
	e.players = make([]*player, g.cfg.Players)
	for i := range e.players {
		p := &player{idx: i, user: &e.Users[admins+i], solvedAt: map[int]int64{}}
		if !inactive[i] {
			// Log-normal activity: a long tail of casual players and a few
			// who clear nearly the whole board.
			p.weight = math.Exp(0.85 * rng.NormFloat64())
			// Most start at the opening; latecomers trickle in.
			p.start = int64(float64(eventMillis) * 0.75 * math.Pow(rng.Float64(), 2.5))
		}
		e.players[i] = p
	}
}

var categories = []struct {
	name   string
	weight int
	nouns  []string
}{
	{"web", 25, []string{"Cookie Jar", "Session Fixation", "Template Trouble", "Blind Injection", "Upload Center", "SSRF Cafe", "Prototype Pollution", "JWT Bakery", "GraphQL Maze", "Cache Poisoner"}},
	{"crypto", 18, []string{"Baby RSA", "Padding Oracle", "Lattice Party", "Curve Ball", "Nonce Reuse", "Stream of Lies", "Hash Length", "Broken PRNG", "Xor Mania", "Signature Swap"}},
	{"pwn", 17, []string{"Stack Smash", "Heap Feng Shui", "Format Fun", "ROP Chain", "Use After Free", "Kernel Notes", "Seccomp Jail", "Tcache Dance", "Shellcode Golf", "Integer Wrap"}},
	{"reversing", 17, []string{"Crackme", "VM Escape", "Obfuscated Loader", "Packed Binary", "Rusty Keygen", "Go Maze", "WASM Lock", "Android Vault", "Firmware Dump", "Anti Debug"}},
	{"forensics", 13, []string{"Memory Dump", "PCAP Party", "Disk Image", "Stego Cat", "Log Hunt", "Deleted Files", "USB Keystrokes", "Registry Run", "Corrupted PNG", "Timeline"}},
	{"misc", 10, []string{"Sanity Check", "Python Jail", "OSINT Walk", "Trivia Night", "Esoteric Code", "Bash Golf", "Radio Waves", "QR Puzzle", "Discord Hunt", "Survey"}},
}

var adjectives = []string{"Tiny", "Lost", "Secret", "Broken", "Quantum", "Silent", "Rusty", "Hidden", "Frozen", "Crimson", "Endless", "Lazy"}

var difficulties = []struct {
	name   ctf.Difficulty
	weight int
	points []int
	pop    float64
}{
	{ctf.Easy, 32, []int{50, 100, 100, 150}, 10},
	{ctf.Medium, 35, []int{200, 250, 300}, 2.5},
	{ctf.Hard, 22, []int{350, 400, 450}, 0.6},
	{ctf.Insane, 11, []int{500}, 0.12},
}

var words = strings.Fields(`the server keeps a secret flag behind a login form that trusts its input a little too much
you get the source code a binary and a packet capture find what the developer forgot and read the flag the service
runs on an old kernel with a custom allocator the key is derived from a timestamp our intern wrote the protocol
nothing could possibly go wrong every byte counts and the checker is strict but fair hint think about what happens
when two requests race the admin bot visits every link you report the archive is password protected`)

func weighted[T any](rng *rand.Rand, items []T, weight func(T) int) T {
	total := 0
	for _, it := range items {
		total += weight(it)
	}
	r := rng.IntN(total)
	for _, it := range items {
		if r -= weight(it); r < 0 {
			return it
		}
	}
	return items[len(items)-1]
}

func (g *gen) challenges() {
	e, rng := g.e, g.rng
	n := g.cfg.Challenges
	e.Challenges = make([]ctf.Challenge, n)
	e.chals = make([]*chal, n)
	// Authors: the organisers and a few players.
	authors := []string{}
	for i := 0; i < e.admins; i++ {
		authors = append(authors, e.Users[i].ID)
	}
	for i := 0; i < min(6, g.cfg.Players); i++ {
		authors = append(authors, e.players[rng.IntN(len(e.players))].user.ID)
	}
	published := e.Start.Add(-3 * 24 * time.Hour)
	levelOf := map[ctf.Difficulty]int{}
	for i, d := range difficulties {
		levelOf[d.name] = i
	}
	for i := 0; i < n; i++ {
		cat := weighted(rng, categories, func(c struct {
			name   string
			weight int
			nouns  []string
		}) int {
			return c.weight
		})
		diff := weighted(rng, difficulties, func(d struct {
			name   ctf.Difficulty
			weight int
			points []int
			pop    float64
		}) int {
			return d.weight
		})
		if i == 0 {
			cat, diff = categories[5], difficulties[0] // every event opens with a sanity check
		}
		title := adjectives[rng.IntN(len(adjectives))] + " " + cat.nouns[rng.IntN(len(cat.nouns))]
		slug := strings.ToLower(strings.ReplaceAll(title, " ", "-")) + fmt.Sprintf("-%d", i+1)
		at := published.Add(time.Duration(i) * time.Minute)
		c := ctf.Challenge{ID: newID(rng, at), Slug: slug, Title: title, Categories: []string{cat.name},
			Difficulty: diff.name, Points: diff.points[rng.IntN(len(diff.points))], Type: "standard",
			AuthorID: authors[rng.IntN(len(authors))], CreatedAt: at, Tags: []string{cat.name, strings.ToLower(string(diff.name))}}
		if rng.IntN(12) == 0 {
			other := categories[rng.IntN(len(categories))].name
			if other != cat.name {
				c.Categories = append(c.Categories, other)
			}
		}
		var sb strings.Builder
		sb.WriteString("## " + title + "\n\n")
		for w, nw := 0, 30+rng.IntN(90); w < nw; w++ {
			if w > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(words[rng.IntN(len(words))])
		}
		sb.WriteString(".\n\nAuthor's note: the flag format is `flag{...}`.")
		c.Description = sb.String()
		switch {
		case cat.name == "pwn" || rng.IntN(8) == 0:
			c.ConnectionInfo = fmt.Sprintf("nc %s.chall.example.org %d", slug, 31000+i)
			if rng.IntN(3) == 0 {
				c.HasInstance, c.Type = true, "instance"
				port := 1337
				c.DockerPort = &port
			}
		}
		if rng.IntN(10) < 4 {
			c.FileName = strings.ReplaceAll(slug, "-", "_") + ".tar.gz"
			c.FileURL = "https://files.example.org/" + slug + "/" + c.FileName
		}
		secretPart := fmt.Sprintf("%08x", rng.Uint32())
		x := &chal{idx: i, level: levelOf[diff.name], pop: diff.pop * math.Exp(0.6*rng.NormFloat64())}
		switch r := rng.IntN(20); {
		case r == 0: // regex flag: per-player flags
			c.Flags = []ctf.Flag{{Kind: "regex", Content: `flag\{` + strings.ReplaceAll(slug, "-", "_") + `_[0-9a-f]{8}\}`}}
			x.flag = "flag{" + strings.ReplaceAll(slug, "-", "_") + "_" + secretPart + "}"
		case r <= 2:
			c.Flags = []ctf.Flag{{Kind: "static", Content: "FLAG{" + strings.ToUpper(secretPart) + "}", CaseInsensitive: true}}
			x.flag = "flag{" + secretPart + "}"
		default:
			x.flag = "flag{" + strings.ReplaceAll(slug, "-", "_") + "_" + secretPart + "}"
			c.Flags = []ctf.Flag{{Kind: "static", Content: x.flag}}
			if rng.IntN(10) == 0 { // an alternative accepted spelling
				c.Flags = append(c.Flags, ctf.Flag{Kind: "static", Content: "CTF{" + secretPart + "}"})
			}
		}
		e.Challenges[i] = c
		x.c = &e.Challenges[i]
		e.chals[i] = x
	}
	// Prerequisites: about one challenge in seven (never an easy one)
	// requires one or two earlier challenges of its category that require
	// nothing themselves, so unlocking is one level deep.
	for i := 1; i < n; i++ {
		x := e.chals[i]
		if x.level == 0 || rng.IntN(7) != 0 {
			continue
		}
		var cands []int
		for j := 0; j < i; j++ {
			y := e.chals[j]
			if len(y.requires) == 0 && y.c.Categories[0] == x.c.Categories[0] && y.level < x.level {
				cands = append(cands, j)
			}
		}
		if len(cands) == 0 {
			continue
		}
		want := 1
		if len(cands) > 1 && rng.IntN(4) == 0 {
			want = 2
		}
		rng.Shuffle(len(cands), func(a, b int) { cands[a], cands[b] = cands[b], cands[a] })
		for _, j := range cands[:want] {
			x.requires = append(x.requires, j)
			x.c.Requires = append(x.c.Requires, e.chals[j].c.ID)
		}
		// A locked challenge draws fewer solvers.
		x.pop *= 0.6
	}
	w := make([]float64, n)
	for i, x := range e.chals {
		w[i] = (1 + float64(x.level)*1.5) * math.Sqrt(x.pop)
	}
	e.attemptPick = newAlias(w)
}

// distribute splits total into per-item integers proportional to weights,
// each at most limit, summing to exactly total (total ≤ limit × items with
// positive weight is the caller's promise).
func distribute(rng *rand.Rand, weights []float64, total, limit int) []int {
	out := make([]int, len(weights))
	capped := make([]bool, len(weights))
	left := total
	for left > 0 {
		sum := 0.0
		for i, w := range weights {
			if !capped[i] {
				sum += w
			}
		}
		if sum == 0 {
			break
		}
		progress := false
		share := float64(left)
		for i, w := range weights {
			if capped[i] || w == 0 {
				continue
			}
			add := int(share * w / sum)
			if out[i]+add >= limit {
				add = limit - out[i]
				capped[i] = true
			}
			if add > 0 {
				out[i] += add
				left -= add
				progress = true
			}
		}
		if !progress {
			// The remainder is smaller than one unit per item: hand it out
			// one at a time, by weight.
			for left > 0 {
				i := pickWeighted(rng, weights, capped)
				if i < 0 {
					return out
				}
				out[i]++
				left--
				if out[i] >= limit {
					capped[i] = true
				}
			}
		}
	}
	return out
}

func pickWeighted(rng *rand.Rand, weights []float64, skip []bool) int {
	sum := 0.0
	for i, w := range weights {
		if !skip[i] {
			sum += w
		}
	}
	if sum <= 0 {
		return -1
	}
	r := rng.Float64() * sum
	last := -1
	for i, w := range weights {
		if skip[i] || w == 0 {
			continue
		}
		last = i
		if r -= w; r < 0 {
			return i
		}
	}
	return last
}

func (g *gen) solves() {
	e, rng := g.e, g.rng
	weights := make([]float64, len(e.players))
	for i, p := range e.players {
		weights[i] = p.weight
	}
	counts := distribute(rng, weights, g.cfg.Solves, len(e.chals))
	type pending struct {
		p  *player
		c  *chal
		at int64
	}
	all := make([]pending, 0, g.cfg.Solves)
	keys := make([]float64, len(e.chals))
	order := make([]int, len(e.chals))
	for pi, p := range e.players {
		n := counts[pi]
		if n == 0 {
			continue
		}
		// Weighted sampling without replacement (Efraimidis–Spirakis):
		// popular challenges first; stronger players reach further.
		reach := 1 + math.Log1p(p.weight)
		for i, x := range e.chals {
			pop := x.pop * math.Pow(reach, float64(x.level))
			keys[i] = math.Log(1-rng.Float64()) / pop
			order[i] = i
		}
		sort.Slice(order, func(a, b int) bool { return keys[order[a]] > keys[order[b]] })
		chosen := make([]bool, len(e.chals))
		for _, i := range order[:n] {
			chosen[i] = true
		}
		// Close the set under prerequisites: a challenge whose
		// prerequisite was not picked gives its place to that prerequisite
		// (prerequisites require nothing themselves, so one pass does).
		for i := range chosen {
			if !chosen[i] {
				continue
			}
			for _, r := range e.chals[i].requires {
				if !chosen[r] {
					chosen[i], chosen[r] = false, true
					break
				}
			}
		}
		// Order of play: easier first, with noise; a prerequisite before
		// what it unlocks.
		seq := make([]int, 0, n)
		rank := make(map[int]float64, n)
		for i, ok := range chosen {
			if ok {
				seq = append(seq, i)
				rank[i] = float64(e.chals[i].level) + 1.6*rng.Float64()
			}
		}
		for _, i := range seq {
			for _, r := range e.chals[i].requires {
				rank[i] = max(rank[i], rank[r]+0.01)
			}
		}
		sort.Slice(seq, func(a, b int) bool { return rank[seq[a]] < rank[seq[b]] })
		// Times: the player's session from their start, longer for the
		// strong, packed near the start (the rush of the easy ones).
		spanMs := int64(float64(eventMillis) * min(1, 0.15+0.25*math.Log1p(p.weight)+0.3*rng.Float64()))
		spanMs = max(1, min(spanMs, eventMillis-p.start))
		times := make([]int64, len(seq))
		for k := range times {
			times[k] = p.start + int64(float64(spanMs)*math.Pow(rng.Float64(), 1.4))
		}
		sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
		for k, i := range seq {
			all = append(all, pending{p: p, c: e.chals[i], at: times[k]})
		}
	}
	// Every solve at a distinct millisecond: order is never decided by a
	// tie, and bumping equal times keeps each player's order.
	sort.SliceStable(all, func(a, b int) bool { return all[a].at < all[b].at })
	for k := 1; k < len(all); k++ {
		if all[k].at <= all[k-1].at {
			all[k].at = all[k-1].at + 1
		}
	}
	e.Solves = make([]ctf.Solve, len(all))
	for k, s := range all {
		at := e.Start.Add(time.Duration(s.at) * time.Millisecond)
		e.Solves[k] = ctf.Solve{Seq: int64(k + 1), ID: newID(rng, at), UserID: s.p.user.ID, ChallengeID: s.c.c.ID,
			Flag: s.c.flag, At: at}
		s.p.solvedAt[s.c.idx] = s.at
	}
}

func (g *gen) reviewsAndWriteups() {
	e, rng := g.e, g.rng
	byID := map[string]*chal{}
	for _, x := range e.chals {
		byID[x.c.ID] = x
	}
	quality := make([]float64, len(e.chals))
	for i := range quality {
		quality[i] = 2.5 + 2*rng.Float64()
	}
	usernames := map[string]*ctf.User{}
	for i := range e.Users {
		usernames[e.Users[i].ID] = &e.Users[i]
	}
	for _, s := range e.Solves {
		x := byID[s.ChallengeID]
		if rng.IntN(20) == 0 {
			stars := int(math.Round(quality[x.idx] + rng.NormFloat64()*0.8))
			diff := int(math.Round(2.5*float64(x.level) + 2 + rng.NormFloat64()*1.2))
			e.Reviews = append(e.Reviews, ctf.Review{ID: newID(rng, s.At), UserID: s.UserID, ChallengeID: s.ChallengeID,
				Stars: min(5, max(1, stars)), Difficulty: min(10, max(1, diff)),
				CreatedAt: s.At.Add(time.Duration(1+rng.IntN(600)) * time.Second)})
		}
		if rng.IntN(100) == 0 {
			at := s.At.Add(time.Duration(10+rng.IntN(600)) * time.Minute)
			status := ctf.WriteupApproved
			switch r := rng.IntN(10); {
			case r < 3:
				status = ctf.WriteupPending
			case r < 4:
				status = ctf.WriteupRejected
			}
			var sb strings.Builder
			sb.WriteString("# How I solved " + x.c.Title + "\n\n")
			for w, nw := 0, 80+rng.IntN(300); w < nw; w++ {
				if w > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteString(words[rng.IntN(len(words))])
			}
			e.Writeups = append(e.Writeups, ctf.Writeup{ID: newID(rng, at), UserID: s.UserID, ChallengeID: s.ChallengeID,
				Title: x.c.Title + " writeup", Content: sb.String(), Images: []string{}, Status: status,
				CreatedAt: at, UpdatedAt: at})
		}
	}
}

func (g *gen) attemptCounts() {
	e, rng := g.e, g.rng
	weights := make([]float64, len(e.players))
	for i, p := range e.players {
		if p.weight > 0 {
			weights[i] = (float64(len(p.solvedAt)) + 3) * math.Exp(0.5*rng.NormFloat64())
		}
	}
	counts := distribute(rng, weights, g.cfg.Attempts, math.MaxInt)
	for i, p := range e.players {
		p.attempts = counts[i]
	}
}

func (g *gen) keys() {
	e := g.e
	e.APIKeys = make([]ctf.APIKey, 0, g.cfg.Keys)
	e.Keys = make([]Key, 0, g.cfg.Keys)
	at := e.Start.Add(-time.Hour)
	for i := 0; i < g.cfg.Keys; i++ {
		u := e.players[i].user
		key, prefix, hash := secret.NewAPIKey()
		e.APIKeys = append(e.APIKeys, ctf.APIKey{ID: newID(g.rng, at), UserID: u.ID, Name: "synth", Prefix: prefix,
			Hash: hash, CreatedAt: at})
		e.Keys = append(e.Keys, Key{UserID: u.ID, Username: u.Username, Secret: key})
	}
}

// Attempts yields the event's wrong submissions, player by player; the
// sequence is the same on every iteration. Each is on a visible challenge
// that was unlocked for the player at the time, before they solved it.
func (e *Event) Attempts() iter.Seq[store.Attempt] {
	return func(yield func(store.Attempt) bool) {
		var buf []byte
		// Ids are minted in the order the rows are written, as a live
		// server mints them when it records an attempt, so the unique index
		// on them grows at its end instead of taking inserts everywhere
		// (that alone halves the time to write the event).
		idTime := e.Start
		for _, p := range e.players {
			if p.attempts == 0 {
				continue
			}
			rng := rand.New(rand.NewPCG(e.Config.Seed, 0xa77e_0000+uint64(p.idx)))
			for k := 0; k < p.attempts; k++ {
				x, lo, hi := e.attemptTarget(rng, p)
				at := e.Start.Add(time.Duration(lo+rng.Int64N(hi-lo)) * time.Millisecond)
				buf = append(buf[:0], "flag{"...)
				for n := 6 + rng.IntN(10); n > 0; n-- {
					buf = append(buf, "abcdefghijklmnopqrstuvwxyz0123456789_"[rng.IntN(37)])
				}
				buf = append(buf, '}')
				idTime = idTime.Add(time.Millisecond)
				if !yield(store.Attempt{ID: newID(rng, idTime), UserID: p.user.ID, ChallengeID: x.c.ID, Flag: string(buf), At: at}) {
					return
				}
			}
		}
	}
}

// attemptTarget picks the challenge of a wrong attempt and the window (ms
// offsets, lo < hi) it can fall in: after the player's start and their
// solves of its prerequisites, before their own solve of it.
func (e *Event) attemptTarget(rng *rand.Rand, p *player) (*chal, int64, int64) {
	for try := 0; ; try++ {
		x := e.chals[e.attemptPick.pick(rng)]
		if try > 50 {
			x = e.chals[0] // unlocked for everyone, from the start
		}
		lo, hi := p.start, eventMillis
		ok := true
		for _, r := range x.requires {
			t, solved := p.solvedAt[r]
			if !solved {
				ok = false
				break
			}
			lo = max(lo, t+1)
		}
		if t, solved := p.solvedAt[x.idx]; solved {
			hi = t
		}
		if ok && hi > lo {
			return x, lo, hi
		}
		if try > 50 {
			// The sanity check, solved at the player's very first
			// millisecond: attempt right after the start instead.
			return x, p.start, p.start + 1
		}
	}
}

// Bulk returns the event as rows for store.BulkLoad.
func (e *Event) Bulk() *store.Bulk {
	return &store.Bulk{Users: e.Users, Challenges: e.Challenges, Solves: e.Solves, Reviews: e.Reviews,
		Writeups: e.Writeups, APIKeys: e.APIKeys, Attempts: e.Attempts()}
}

// Write stores the event in an empty, migrated database.
func (e *Event) Write(ctx context.Context, db *store.DB) (store.BulkReport, error) {
	return db.BulkLoad(ctx, e.Bulk())
}

// Targets lists, for each keyed player in key order, up to perKey
// challenges they can submit to (visible, unlocked, unsolved), with a
// correct flag; interleaved by round so consecutive targets belong to
// different players.
func (e *Event) Targets(perKey int) []Target {
	lists := make([][]Target, len(e.Keys))
	for ki, k := range e.Keys {
		p := e.players[ki]
		for _, x := range e.chals {
			if len(lists[ki]) >= perKey {
				break
			}
			if _, solved := p.solvedAt[x.idx]; solved {
				continue
			}
			unlocked := true
			for _, r := range x.requires {
				if _, ok := p.solvedAt[r]; !ok {
					unlocked = false
				}
			}
			if unlocked {
				lists[ki] = append(lists[ki], Target{Key: k.Secret, UserID: k.UserID, Slug: x.c.Slug, ChallengeID: x.c.ID, Flag: x.flag})
			}
		}
	}
	var out []Target
	for round := 0; round < perKey; round++ {
		for _, l := range lists {
			if round < len(l) {
				out = append(out, l[round])
			}
		}
	}
	return out
}

// SolvedBy lists, for each keyed player in key order, the slugs of the
// challenges they solved.
func (e *Event) SolvedBy() [][]string {
	out := make([][]string, len(e.Keys))
	for ki := range e.Keys {
		p := e.players[ki]
		for _, x := range e.chals {
			if _, ok := p.solvedAt[x.idx]; ok {
				out[ki] = append(out[ki], x.c.Slug)
			}
		}
	}
	return out
}

// alias is Walker's alias table: O(1) weighted picks.
type alias struct {
	prob  []float64
	alias []int
}

func newAlias(w []float64) alias {
	n := len(w)
	a := alias{prob: make([]float64, n), alias: make([]int, n)}
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	scaled := make([]float64, n)
	var small, large []int
	for i, x := range w {
		scaled[i] = x * float64(n) / sum
		if scaled[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		a.prob[s], a.alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range append(small, large...) {
		a.prob[i], a.alias[i] = 1, i
	}
	return a
}

func (a alias) pick(rng *rand.Rand) int {
	i := rng.IntN(len(a.prob))
	if rng.Float64() < a.prob[i] {
		return i
	}
	return a.alias[i]
}
