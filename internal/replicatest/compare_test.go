package replicatest

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// checkAnnouncements checks the badges the 200s announced against each
// other.
func checkAnnouncements(t *testing.T, ev *testEvent, f *facts) {
	t.Helper()
	rep := newReport(t)
	// A badge is new once per player: after a 200 that announced it was
	// received, no later submission of that player may announce it again
	// (its state before includes the first). Two overlapping requests may
	// both see it as new; those are only noted.
	overlapping := map[string]int{}
	for _, p := range ev.Players {
		var mine []*submission
		for k, subs := range f.acked {
			if k.p == p {
				mine = append(mine, subs...)
			}
		}
		sort.Slice(mine, func(i, j int) bool { return mine[i].Sent.Before(mine[j].Sent) })
		for i, a := range mine {
			for _, b := range mine[i+1:] {
				for _, badge := range b.Badges {
					if !slices.Contains(a.Badges, badge) {
						continue
					}
					if b.Sent.After(a.Answered) {
						rep.add("badge announced again", "%s got %q with its 200 for %s (on %s), and again %v later for %s (on %s)",
							p.Username, badge, a.Chal.Slug, a.Proc, b.Sent.Sub(a.Answered).Round(time.Millisecond), b.Chal.Slug, b.Proc)
					} else {
						overlapping[badge]++
					}
				}
			}
		}
	}
	rep.flush("badges announced by the workload's 200s")
	solvedChallenges := map[*challenge]bool{}
	for k := range f.acked {
		solvedChallenges[k.c] = true
	}
	// For the record: with one first blood per challenge and the badge
	// given once per player, announcements can be fewer than solved
	// challenges (a player's second first blood announces nothing), never
	// more.
	t.Logf("%d 200s announced first-blood; %d challenges have an acknowledged solve", len(f.announcedFB), len(solvedChallenges))
	if len(overlapping) > 0 {
		t.Logf("note: badges announced twice to one player by overlapping requests (not a failure): %v", overlapping)
	}
}

// before reports whether entry a must be listed before entry b.
func before(aPts int, aLast *string, aName string, bPts int, bLast *string, bName string) bool {
	if aPts != bPts {
		return aPts > bPts
	}
	al, bl := deref(aLast), deref(bLast)
	if al != bl {
		return al < bl
	}
	return aName < bName
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func usernames(ps []*player) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Username)
	}
	return strings.Join(names, ",")
}

func procsOf(subs []*submission) []string {
	var out []string
	for _, s := range subs {
		out = append(out, s.Proc.String())
	}
	return out
}

// compareBodies fails on any difference between what the live replicas
// served and what fresh replicas rebuilt from the database serve.
func compareBodies(t *testing.T, before, after *observation, ev *testEvent) {
	t.Helper()
	rep := newReport(t)
	if !bytes.Equal(before.Board, after.Board) {
		rep.add("leaderboard changed", "%s", firstDiff(before.Board, after.Board))
	}
	if !bytes.Equal(before.List, after.List) {
		rep.add("challenge list changed", "%s", firstDiff(before.List, after.List))
	}
	for _, c := range ev.Challenges {
		if !bytes.Equal(before.Details[c.Slug], after.Details[c.Slug]) {
			rep.add("detail changed", "%s: %s", c.Slug, firstDiff(before.Details[c.Slug], after.Details[c.Slug]))
		}
	}
	for _, p := range ev.Players {
		if !bytes.Equal(before.Profiles[p.ID], after.Profiles[p.ID]) {
			rep.add("profile changed", "%s: %s", p.Username, firstDiff(before.Profiles[p.ID], after.Profiles[p.ID]))
		}
		if a, b := meWithoutKeys(before.Me[p.ID]), meWithoutKeys(after.Me[p.ID]); !bytes.Equal(a, b) {
			rep.add("/me changed", "%s: %s", p.Username, firstDiff(a, b))
		}
	}
	rep.flush("live replicas vs replicas rebuilt from the database")
}
