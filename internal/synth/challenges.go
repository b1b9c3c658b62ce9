package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The challenges of a generated event, and how activity spreads over them.

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
		if g.cfg.Dynamic {
			c.Scoring = ctf.Scoring{Type: ctf.DynamicScoring, Initial: c.Points, Minimum: c.Points / 5,
				Decay: max(1, g.cfg.Players/10), Function: ctf.Logarithmic}
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
