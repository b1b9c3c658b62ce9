package synth

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
)

// What the players of a generated event did: solves, reviews, writeups,
// wrong attempts, API keys.

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
