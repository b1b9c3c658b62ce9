package ctf

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Hint is a hint of a challenge (issue 21): Markdown a player reads only
// after unlocking it. Its cost is taken from the challenge's value for a
// player who unlocked it before solving; unlocking after solving costs
// nothing. Requires, when not 0, is the id of an earlier hint of the same
// challenge that must be unlocked first.
type Hint struct {
	ID       int    `json:"id"`
	Content  string `json:"content"`
	Cost     int    `json:"cost"`
	Requires int    `json:"requires,omitempty"`
}

// HintUnlock is a player's unlock of a hint. Charged: the player had not
// solved the challenge when unlocking, so the hint's cost (as it is now:
// an organiser's correction applies to everyone) is taken from their solve.
type HintUnlock struct {
	UserID      string
	ChallengeID string
	HintID      int
	At          time.Time
	Charged     bool
}

// Bounds of a challenge's hints.
const (
	MaxHints           = 20
	MaxHintID          = 1_000_000
	MaxHintContentSize = 16 << 10 // bytes
)

// ValidateHints checks a challenge's hints: at most MaxHints, each with an
// id from 1 to MaxHintID unique in the challenge, content that is not
// blank and at most 16 KiB of UTF-8, a cost from 0 to MaxScoringPoints, and
// a requirement, if any, naming an earlier hint.
func ValidateHints(hints []Hint) error {
	if len(hints) > MaxHints {
		return FieldErrorf("hints", "must be at most %d hints", MaxHints)
	}
	seen := map[int]bool{}
	for i, h := range hints {
		field := func(name string) string { return "hints[" + strconv.Itoa(i) + "]." + name }
		switch {
		case h.ID < 1 || h.ID > MaxHintID:
			return FieldErrorf(field("id"), "must be a whole number from 1 to %d", MaxHintID)
		case seen[h.ID]:
			return FieldErrorf(field("id"), "%d is the id of an earlier hint: each hint's id is its own", h.ID)
		case strings.TrimSpace(h.Content) == "":
			return FieldErrorf(field("content"), "must not be empty")
		case len(h.Content) > MaxHintContentSize || !utf8.ValidString(h.Content):
			return FieldErrorf(field("content"), "must be UTF-8 text of at most %d KiB", MaxHintContentSize>>10)
		case h.Cost < 0 || h.Cost > MaxScoringPoints:
			return FieldErrorf(field("cost"), "must be a whole number of points from 0 to %d", MaxScoringPoints)
		case h.Requires != 0 && !seen[h.Requires]:
			return FieldErrorf(field("requires"), "must be the id of an earlier hint of the challenge, not %d", h.Requires)
		}
		seen[h.ID] = true
	}
	return nil
}

// HintByID returns the hint of c with that id.
func (c *Challenge) HintByID(id int) (Hint, bool) {
	for _, h := range c.Hints {
		if h.ID == id {
			return h, true
		}
	}
	return Hint{}, false
}

// Value is c's value with solvers player solvers: its points when static,
// its scoring's value when dynamic.
func (c *Challenge) Value(solvers int) int { return c.Scoring.Value(c.Points, solvers) }

// Worth is what a solve of c is worth with solvers player solvers to a
// player whose charged hints cost cost: the value less the cost, never
// below 0.
func Worth(value, cost int) int { return max(value-cost, 0) }

// HasCostlyHints reports whether a hint of c costs points.
func (c *Challenge) HasCostlyHints() bool {
	for _, h := range c.Hints {
		if h.Cost > 0 {
			return true
		}
	}
	return false
}
