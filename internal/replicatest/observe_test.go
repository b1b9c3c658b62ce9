package replicatest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// observation is everything the checks read from one replica.
type observation struct {
	Proc     *process
	Board    []byte            // GET /leaderboard
	List     []byte            // GET /challenges, anonymous
	Details  map[string][]byte // GET /challenges/{slug}, anonymous
	Profiles map[string][]byte // GET /profiles/{id}, by player id
	Me       map[string][]byte // GET /me with the player's key, by player id
}

// observe reads the whole public state of one replica.
func observe(ev *testEvent, proc *process) (*observation, error) {
	o := &observation{Proc: proc, Details: map[string][]byte{}, Profiles: map[string][]byte{}, Me: map[string][]byte{}}
	type job struct {
		path, key string
		put       func([]byte)
	}
	var mu sync.Mutex
	jobs := []job{
		{"/api/public/leaderboard", "", func(b []byte) { o.Board = b }},
		{"/api/public/challenges", "", func(b []byte) { o.List = b }},
	}
	for _, c := range ev.Challenges {
		jobs = append(jobs, job{"/api/public/challenges/" + c.Slug, "", func(b []byte) { o.Details[c.Slug] = b }})
	}
	for _, p := range ev.Players {
		jobs = append(jobs,
			job{"/api/public/profiles/" + p.ID, "", func(b []byte) { o.Profiles[p.ID] = b }},
			job{"/api/public/me", p.Key, func(b []byte) { o.Me[p.ID] = b }})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ch := make(chan job)
	errs := make(chan error, len(jobs))
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				r := do(ctx, "GET", proc.URL+j.path, j.key, nil)
				if r.Err != nil || r.Status != 200 {
					errs <- fmt.Errorf("GET %s on %s: %v %d %s", j.path, proc, r.Err, r.Status, clip(r.Body, 300))
					continue
				}
				mu.Lock()
				j.put(r.Body)
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
	close(errs)
	for err := range errs {
		return nil, err
	}
	return o, nil
}

// converge waits until every live replica serves the same leaderboard and
// challenge list, polling for up to limit; it returns how long that took.
func converge(cl *cluster, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		var boards, lists [][]byte
		var err error
		for _, p := range cl.live() {
			b := do(context.Background(), "GET", p.URL+"/api/public/leaderboard", "", nil)
			l := do(context.Background(), "GET", p.URL+"/api/public/challenges", "", nil)
			if b.Err != nil || l.Err != nil || b.Status != 200 || l.Status != 200 {
				err = fmt.Errorf("%s: leaderboard %v %d, challenges %v %d", p, b.Err, b.Status, l.Err, l.Status)
				break
			}
			boards, lists = append(boards, b.Body), append(lists, l.Body)
		}
		if err == nil && allEqual(boards) && allEqual(lists) {
			return time.Since(start), nil
		}
		if time.Since(start) > limit {
			if err == nil {
				err = fmt.Errorf("replicas still disagree after %v (leaderboards equal: %v, challenge lists equal: %v)",
					limit, allEqual(boards), allEqual(lists))
			}
			return time.Since(start), err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func allEqual(bs [][]byte) bool {
	for _, b := range bs[1:] {
		if !bytes.Equal(b, bs[0]) {
			return false
		}
	}
	return true
}

// firstDiff shows two bodies around their first difference.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	cut := func(p []byte) string {
		lo, hi := max(0, i-120), min(len(p), i+120)
		return "…" + string(p[lo:hi]) + "…"
	}
	return fmt.Sprintf("at byte %d:\n    %s\n    %s", i, cut(a), cut(b))
}

// The shapes the checks read (the contract's field names).
type boardView struct {
	Leaderboard []struct {
		ID           string  `json:"id"`
		Username     *string `json:"username"`
		TotalPoints  int     `json:"totalPoints"`
		TotalSolves  int     `json:"totalSolves"`
		LastSolvedAt *string `json:"lastSolvedAt"`
		Solves       []struct {
			SolvedAt string `json:"solvedAt"`
			Points   int    `json:"points"`
		} `json:"solves"`
	} `json:"leaderboard"`
}

type summaryView struct {
	Slug          string `json:"slug"`
	Points        int    `json:"points"`
	AttemptsCount int64  `json:"attemptsCount"`
	SolvesCount   int    `json:"solvesCount"`
}

type listView struct {
	Challenges []summaryView `json:"challenges"`
}

type detailView struct {
	Challenge summaryView `json:"challenge"`
}

type profileView struct {
	Profile *struct {
		ID               string `json:"id"`
		SolvedChallenges []struct {
			SolvedAt  string `json:"solvedAt"`
			Challenge struct {
				ID     string `json:"id"`
				Slug   string `json:"slug"`
				Points int    `json:"points"`
			} `json:"challenge"`
		} `json:"solvedChallenges"`
		Badges []struct {
			BadgeID   string `json:"badgeId"`
			AwardedAt string `json:"awardedAt"`
		} `json:"badges"`
		Rank            int `json:"rank"`
		TotalPoints     int `json:"totalPoints"`
		FirstBloodCount int `json:"firstBloodCount"`
		Top3Count       int `json:"top3Count"`
	} `json:"profile"`
}

// meWithoutKeys is a /me body without the API keys' metadata (lastUsedAt
// moves with use), so the rest can be compared byte for byte.
func meWithoutKeys(b []byte) []byte {
	var m struct {
		Profile map[string]json.RawMessage `json:"profile"`
	}
	if json.Unmarshal(b, &m) != nil || m.Profile == nil {
		return b
	}
	delete(m.Profile, "mcpApiKeys")
	out, _ := json.Marshal(m.Profile)
	return out
}
