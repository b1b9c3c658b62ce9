package ctf

import (
	"sort"
	"strings"
	"time"
)

// Badge is an entry of the built-in badge catalogue.
type Badge struct {
	ID    string
	Title string
	Icon  string
	Image *string
}

// Award is a badge a user holds, with the time of the solve that earned it.
type Award struct {
	Badge
	AwardedAt time.Time
}

// BadgeSolve is what the badge rules need to know about one solve.
type BadgeSolve struct {
	At         time.Time
	Categories []string
	Difficulty Difficulty
	FirstBlood bool // the first solve of the challenge among players
}

var countBadges = []struct {
	n int
	b Badge
}{
	{1, Badge{ID: "first-solve", Title: "First solve", Icon: "🚩"}},
	{5, Badge{ID: "solves-5", Title: "Five solves", Icon: "🖐️"}},
	{25, Badge{ID: "solves-25", Title: "Twenty-five solves", Icon: "🎯"}},
	{100, Badge{ID: "solves-100", Title: "A hundred solves", Icon: "💯"}},
}

var (
	firstBloodBadge = Badge{ID: "first-blood", Title: "First blood", Icon: "🩸"}
	insaneBadge     = Badge{ID: "first-insane", Title: "Insane solve", Icon: "🔥"}
)

// CategoryBadge is the badge for solving every challenge of category.
func CategoryBadge(category string) Badge {
	return Badge{ID: "category-" + category, Title: "Every " + category + " challenge solved", Icon: "🏆"}
}

// Badges computes the badges earned by a solve history. It is a pure
// function of the history (sorted here by time) and of the number of visible
// challenges per category, so replaying solves from a dataset awards what
// live play would have. Awards come oldest first; ties keep catalogue order.
func Badges(history []BadgeSolve, categoryTotals map[string]int) []Award {
	solves := make([]BadgeSolve, len(history))
	copy(solves, history)
	sort.SliceStable(solves, func(i, j int) bool { return solves[i].At.Before(solves[j].At) })

	var out []Award
	have := map[string]bool{}
	award := func(b Badge, at time.Time) {
		if !have[b.ID] {
			have[b.ID] = true
			out = append(out, Award{Badge: b, AwardedAt: at})
		}
	}
	perCategory := map[string]int{}
	for i, s := range solves {
		for _, cb := range countBadges {
			if i+1 == cb.n {
				award(cb.b, s.At)
			}
		}
		if s.FirstBlood {
			award(firstBloodBadge, s.At)
		}
		if s.Difficulty == Insane {
			award(insaneBadge, s.At)
		}
		for _, c := range s.Categories {
			perCategory[c]++
			if total := categoryTotals[c]; total > 0 && perCategory[c] == total {
				award(CategoryBadge(c), s.At)
			}
		}
	}
	return out
}

// NewBadges returns the awards in after whose badge is not in before.
func NewBadges(before, after []Award) []Award {
	had := make(map[string]bool, len(before))
	for _, a := range before {
		had[a.ID] = true
	}
	out := []Award{}
	for _, a := range after {
		if !had[a.ID] {
			out = append(out, a)
		}
	}
	return out
}

// BadgeByID finds a catalogue badge, including per-category ones.
func BadgeByID(id string) (Badge, bool) {
	for _, cb := range countBadges {
		if cb.b.ID == id {
			return cb.b, true
		}
	}
	switch id {
	case firstBloodBadge.ID:
		return firstBloodBadge, true
	case insaneBadge.ID:
		return insaneBadge, true
	}
	if c, ok := strings.CutPrefix(id, "category-"); ok && c != "" {
		return CategoryBadge(c), true
	}
	return Badge{}, false
}
