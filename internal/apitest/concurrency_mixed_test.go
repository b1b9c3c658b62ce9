package apitest

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/store"
)

// TestConcurrentMixed: writers submit right and wrong flags across users and
// challenges while readers read every public view; afterwards the counts
// match the responses, the totals are consistent and nothing answered 5xx.
func TestConcurrentMixed(t *testing.T) {
	const (
		nUsers, nChals     = 16, 4
		writers, perWriter = 12, 20
		readers, maxReads  = 4, 400
	)
	var y strings.Builder
	y.WriteString("users:\n" + cxUsersYAML("mix", nUsers))
	y.WriteString("  - {username: boss, email: boss@example.com, role: admin}\n")
	y.WriteString("challenges:\n")
	for c := range nChals {
		fmt.Fprintf(&y, "  - {slug: mix-%d, title: Mix %d, categories: [c%d, shared], difficulty: Hard, points: %d, flags: ['flag{mix-%d}', {type: regex, content: 'alt\\{%d[0-9]+\\}'}]}\n",
			c, c, c%2, 10*(c+1), c, c)
	}
	s := Start(t, y.String(), Options{RateLimit: store.RateLimit{Max: 15, Window: time.Minute}})
	keys := make([]string, nUsers)
	for i := range keys {
		keys[i] = s.Key(fmt.Sprintf("mix%02d", i))
	}
	bossKey := s.Key("boss")
	users := map[string]string{} // key -> username
	for i, k := range keys {
		users[k] = fmt.Sprintf("mix%02d", i)
	}

	type sub struct {
		user, chal int
		admin      bool
		ex         cxExchange
	}
	var mu sync.Mutex
	var subs []sub
	var writing atomic.Int32
	writing.Store(writers)
	var reads atomic.Int64
	var bad []string
	badf := func(format string, args ...any) {
		mu.Lock()
		bad = append(bad, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	began := time.Now()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer writing.Add(-1)
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			<-start
			for range perWriter {
				u, c := rng.IntN(nUsers), rng.IntN(nChals)
				key, admin := keys[u], false
				if rng.IntN(20) == 0 {
					key, admin = bossKey, true
				}
				var flag string
				switch rng.IntN(12) {
				case 0:
					flag = fmt.Sprintf("flag{mix-%d}", c)
				case 1:
					flag = fmt.Sprintf("  alt{%d%d}\n", c, rng.IntN(1000))
				case 2:
					flag = fmt.Sprintf("flag{mix-%d}", (c+1)%nChals) // another challenge's flag
				default:
					flag = fmt.Sprintf("wrong-%d", rng.IntN(1e6))
				}
				ex := cxSend(s, "POST", fmt.Sprintf("/api/public/challenges/mix-%d/submit", c), cxFlagBody(flag), cxJSONHeader(key))
				if err := cxValidate(s, ex); err != nil {
					badf("%v", err)
				}
				mu.Lock()
				subs = append(subs, sub{user: u, chal: c, admin: admin, ex: ex})
				mu.Unlock()
			}
		}()
	}
	for rd := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(rd), 7))
			<-start
			for i := 0; i < maxReads && writing.Load() > 0; i++ {
				var path string
				var hdr http.Header
				switch rng.IntN(6) {
				case 0:
					path = "/api/public/leaderboard"
				case 1:
					path = "/api/public/challenges"
				case 2:
					path = "/api/public/challenges"
					hdr = cxKeyHeader(keys[rng.IntN(nUsers)])
				case 3:
					path = fmt.Sprintf("/api/public/challenges/mix-%d", rng.IntN(nChals))
					hdr = cxKeyHeader(keys[rng.IntN(nUsers)])
				case 4:
					path = "/api/public/me"
					hdr = cxKeyHeader(keys[rng.IntN(nUsers)])
				case 5:
					path = fmt.Sprintf("/api/public/challenges/mix-%d", rng.IntN(nChals))
				}
				ex := cxSend(s, "GET", path, nil, hdr)
				reads.Add(1)
				if ex.Err != nil || ex.Status != 200 {
					badf("GET %s: %d %v %s", path, ex.Status, ex.Err, truncate(ex.Body))
					continue
				}
				if err := cxValidate(s, ex); err != nil {
					badf("%v", err)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	t.Logf("%d submissions and %d reads in %v", len(subs), reads.Load(), time.Since(began))
	for _, b := range bad {
		t.Error(b)
	}

	ok := make([]int, nChals)    // 200s by players
	wrong := make([]int, nChals) // wrong-flag 400s by players
	points := map[string]int{}   // username -> points from 200s
	solvedBy := map[[2]int]int{} // (user, chal) -> number of 200s
	statuses := map[int]int{}
	for _, sb := range subs {
		ex := sb.ex
		statuses[ex.Status]++
		if ex.Err != nil || ex.Status >= 500 {
			t.Errorf("submit mix-%d: %d %v %s", sb.chal, ex.Status, ex.Err, truncate(ex.Body))
			continue
		}
		if ex.Status >= 400 {
			msg, err := cxErrorMessage(ex.Body)
			if err != nil {
				t.Errorf("submit mix-%d %d: %v", sb.chal, ex.Status, err)
			}
			if ex.Status == 400 && msg != "wrong flag" {
				t.Errorf("submit mix-%d: 400 %q, want only wrong-flag 400s (every body is valid)", sb.chal, msg)
			}
		}
		if sb.admin {
			continue // an admin's submissions count in no public aggregate
		}
		switch ex.Status {
		case 200:
			ok[sb.chal]++
			solvedBy[[2]int{sb.user, sb.chal}]++
			points[users[keys[sb.user]]] += 10 * (sb.chal + 1)
		case 400:
			wrong[sb.chal]++
		case 409, 429:
		default:
			t.Errorf("submit mix-%d: unexpected status %d %s", sb.chal, ex.Status, ex.Body)
		}
	}
	t.Logf("statuses: %v", statuses)
	for k, n := range solvedBy {
		if n > 1 {
			t.Errorf("user %d got %d × 200 on mix-%d", k[0], n, k[1])
		}
	}

	check := func(when string) {
		t.Helper()
		list := cxGetChallengeList(t, s)
		for c := range nChals {
			slug := fmt.Sprintf("mix-%d", c)
			got := list[slug]
			if got.AttemptsCount != ok[c]+wrong[c] {
				t.Errorf("%s: %s attemptsCount %d, want %d (200s) + %d (wrong-flag 400s) = %d",
					when, slug, got.AttemptsCount, ok[c], wrong[c], ok[c]+wrong[c])
			}
			if got.SolvesCount != ok[c] {
				t.Errorf("%s: %s solvesCount %d, want %d (200s)", when, slug, got.SolvesCount, ok[c])
			}
			if d := cxGetChallenge(t, s, slug, nil); d.AttemptsCount != got.AttemptsCount || d.SolvesCount != got.SolvesCount {
				t.Errorf("%s: %s detail says %d/%d, list %d/%d", when, slug, d.AttemptsCount, d.SolvesCount, got.AttemptsCount, got.SolvesCount)
			}
		}
		lb, _ := cxCheckLeaderboard(t, s)
		total := 0
		for _, e := range lb {
			total += e.TotalSolves
			if e.TotalPoints != points[e.Username] {
				t.Errorf("%s: leaderboard %s has %d points, the 200s gave %d", when, e.Username, e.TotalPoints, points[e.Username])
			}
			if e.Username == "boss" {
				t.Errorf("%s: the admin is on the leaderboard", when)
			}
		}
		want := 0
		for _, n := range ok {
			want += n
		}
		if total != want {
			t.Errorf("%s: leaderboard totalSolves sum to %d, want %d", when, total, want)
		}
		for i, k := range keys {
			me := cxGetMe(t, s, k)
			if me.TotalPoints != points[me.Username] {
				t.Errorf("%s: /me of user %d: %d points, the 200s gave %d", when, i, me.TotalPoints, points[me.Username])
			}
		}
	}
	check("live")
	s.Reload()
	check("after reload")
}
