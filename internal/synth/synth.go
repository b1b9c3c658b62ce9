// Package synth generates a synthetic CTF event for benchmarks and load
// tests: deterministic for a seed (API key secrets aside), with the skew of a
// real event — a few strong players and a long tail, popular easy
// challenges and rarely solved insane ones, prerequisites, solves spread
// over 48 hours and wrong attempts by players on challenges they could see.
package synth

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Config sizes an event.
type Config struct {
	Players    int    // users who play (neither admin nor banned)
	Challenges int    // visible challenges
	Solves     int    // solves by players, exactly
	Attempts   int    // wrong submissions by players, exactly
	Seed       uint64 // same seed, same event
	Keys       int    // API keys for the first Keys players, secrets returned
	// Dynamic makes every challenge dynamic (issue 21's rush): worth its
	// points down to a fifth of them, logarithmic, reaching the minimum
	// at a tenth of the players, so that most solves move the value of
	// every earlier solver of their challenge.
	Dynamic bool
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
