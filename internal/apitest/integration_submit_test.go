package apitest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// TestIntegrationSubmitOrderOfChecks walks the order of checks of docs/product.md#submitting-a-flag:
// 401 -> 404 -> 400 body -> 403 locked -> 409 solved -> (429, below) -> 400
// wrong flag -> 200, each refusal recording nothing.
func TestIntegrationSubmitOrderOfChecks(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	erin, alice, carol := Bearer(s.Key("erin")), Bearer(s.Key("alice")), Bearer(s.Key("carol"))
	unknown, _, _ := secret.NewAPIKey() // well-formed, never stored
	revoked := Bearer(itRevokedKey(t, s, "erin"))

	// Start: warmup 5 attempts / 3 solves, web-login 3 / 2 (see the list test).
	unchanged := func(label string) {
		t.Helper()
		itWantCounts(t, label, s, "warmup", 5, 3)
		itWantCounts(t, label, s, "web-login", 3, 2)
	}

	// 401 comes first: even for an unknown slug and a bad body.
	for _, hdr := range []string{"", Bearer("not-a-key"), Bearer(unknown), revoked, "Authorization: Basic ZXJpbjpwdw==", "X-API-Key: nope"} {
		var h []string
		if hdr != "" {
			h = append(h, hdr)
		}
		label := "submit with auth " + strings.SplitN(hdr, ":", 2)[0]
		itError(t, label+" (unknown slug, bad body)", s.Do("POST", "/api/public/challenges/nope/submit", []byte(`{}`), h...), 401)
		itError(t, label+" (correct flag)", itSubmit(s, "warmup", "flag{warmup}", h...), 401)
	}
	unchanged("after 401s")

	// 404: unknown and hidden, before the body is looked at; carol solved the
	// hidden draft, still 404 (not 409).
	itError(t, "unknown slug, bad body", s.Do("POST", "/api/public/challenges/nope/submit", []byte(`garbage`), erin), 404)
	itError(t, "hidden slug", itSubmit(s, "draft", "flag{draft}", erin), 404)
	itError(t, "hidden slug solved", itSubmit(s, "draft", "flag{draft}", carol), 404)

	// 400 invalid body comes before 403 locked (erin on web-login) and 409
	// solved (alice on warmup).
	bodies := []string{``, `{}`, `{"flag":""}`, `{"flag":"   \t\n"}`, `{"flag":null}`, `{"flag":5}`, `{"flag":["x"]}`,
		`not json`, `[]`, `"flag{backdoor}"`, `{"flag":"` + strings.Repeat("a", 1025) + `"}`}
	for _, b := range bodies {
		itError(t, "locked, body "+trunc(b), s.Do("POST", "/api/public/challenges/web-login/submit", []byte(b), erin, "Content-Type: application/json"), 400)
		itError(t, "solved, body "+trunc(b), s.Do("POST", "/api/public/challenges/warmup/submit", []byte(b), alice, "Content-Type: application/json"), 400)
	}
	unchanged("after invalid bodies")

	// 403 locked, whatever the flag.
	for _, f := range []string{"flag{backdoor}", "wrong"} {
		r := itSubmit(s, "web-login", f, erin)
		itStatus(t, "locked "+f, r, 403)
		if string(r.Body) != `{"error":"challenge is locked"}` {
			t.Errorf("locked: body %s, want {\"error\":\"challenge is locked\"}", r.Body)
		}
	}
	itError(t, "locked rop-chain", itSubmit(s, "rop-chain", "flag{rop}", erin), 403)
	// 409 already solved, even with a wrong flag.
	itError(t, "solved, wrong flag", itSubmit(s, "warmup", "nope", alice), 409)
	itError(t, "solved, right flag", itSubmit(s, "warmup", "flag{warmup}", alice), 409)
	unchanged("after 403 and 409")

	// 400 wrong flag: recorded. warmup attempts 5 -> 6.
	itError(t, "wrong flag", itSubmit(s, "warmup", "flag{nope}", erin), 400)
	itWantCounts(t, "after a wrong flag", s, "warmup", 6, 3)
	// 200: warmup attempts 6 -> 7, solves 3 -> 4.
	r := itSubmit(s, "warmup", "flag{warmup}", erin)
	itStatus(t, "correct flag", r, 200)
	itMatch(t, "correct flag", itDecode(t, "submit", r.Body), `{"result":{"success":true,"points":50}}`)
	itWantCounts(t, "after a solve", s, "warmup", 7, 4)
	// Having solved warmup, erin may now submit to web-login.
	itStatus(t, "unlocked now", itSubmit(s, "web-login", "flag{cafebabe}", erin), 200)
	itWantCounts(t, "web-login after erin's solve", s, "web-login", 4, 3)
	// rop-chain needs web-login and baby-rsa: one of two is not enough.
	itError(t, "half unlocked", itSubmit(s, "rop-chain", "flag{rop}", erin), 403)
	itMatch(t, "half unlocked", itGet(t, s, "/api/public/challenges/rop-chain", erin), `{"challenge":{"unlocked":false}}`)
	itStatus(t, "baby-rsa", itSubmit(s, "baby-rsa", "flag{baby-rsa}", erin), 200)
	itMatch(t, "unlocked", itGet(t, s, "/api/public/challenges/rop-chain", erin), `{"challenge":{"unlocked":true}}`)
	itStatus(t, "rop-chain", itSubmit(s, "rop-chain", "flag{rop}", erin), 200)
}

func trunc(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

// TestIntegrationSubmitFlags checks trimming, case rules, regex anchoring
// and multiple flags, and submittedFlag afterwards.
func TestIntegrationSubmitFlags(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	erin, carol, dave := Bearer(s.Key("erin")), Bearer(s.Key("carol")), Bearer(s.Key("dave"))
	steps := []struct {
		who, slug, flag string
		status          int
	}{
		// baby-rsa: static, case-insensitive; surrounding whitespace trimmed.
		{erin, "baby-rsa", "  flag{baby-rsa}\t\n", 200},
		// warmup: static, case-sensitive.
		{carol, "warmup", "FLAG{WARMUP}", 400},
		{carol, "warmup", " flag{warmup} ", 200},
		// web-login: regex flag\{[0-9a-f]{8}\}, anchored at both ends.
		{carol, "web-login", "flag{deadbeef}x", 400},
		{carol, "web-login", "xflag{deadbeef}", 400},
		{carol, "web-login", "flag{DEADBEEF}", 400},
		{carol, "web-login", "flag{deadbee}", 400},
		{carol, "web-login", "flag{deadbeef}\nflag{deadbeef}", 400},
		{carol, "web-login", "flag{0123abcd}", 200},
		// The second flag of web-login.
		{dave, "web-login", "flag{backdoor}", 200},
	}
	for _, st := range steps {
		r := itSubmit(s, st.slug, st.flag, st.who)
		if st.status == 200 {
			itStatus(t, fmt.Sprintf("%s %q", st.slug, st.flag), r, 200)
		} else {
			itError(t, fmt.Sprintf("%s %q", st.slug, st.flag), r, st.status)
		}
	}
	// Flags of 1024 bytes are checked (and recorded), longer ones are an
	// invalid body (not recorded). kernel-panic: 2 attempts before.
	itError(t, "1024-byte flag", itSubmit(s, "kernel-panic", strings.Repeat("k", 1024), erin), 400)
	itError(t, "1025-byte flag", itSubmit(s, "kernel-panic", strings.Repeat("k", 1025), erin), 400)
	itWantCounts(t, "kernel-panic", s, "kernel-panic", 3, 0)
	// web-login: 3 attempts + carol's 5 wrong + carol's and dave's solves = 10;
	// solves 2 + 2 = 4. warmup: 5 + carol wrong + carol solve = 7, solves 4.
	itWantCounts(t, "web-login", s, "web-login", 10, 4)
	itWantCounts(t, "warmup", s, "warmup", 7, 4)
	// submittedFlag is the accepted flag, trimmed, as the user sent it.
	for _, c := range []struct{ who, slug, flag string }{
		{erin, "baby-rsa", "flag{baby-rsa}"}, {carol, "warmup", "flag{warmup}"},
		{carol, "web-login", "flag{0123abcd}"}, {dave, "web-login", "flag{backdoor}"},
	} {
		itMatch(t, "submittedFlag "+c.slug, itGet(t, s, "/api/public/challenges/"+c.slug, c.who),
			fmt.Sprintf(`{"challenge":{"solved":true,"submittedFlag":%q}}`, c.flag))
	}
}

// TestIntegrationSubmitRateLimit uses a limit of 3 wrong submissions per
// user and challenge per minute.
func TestIntegrationSubmitRateLimit(t *testing.T) {
	t.Parallel()
	limit := store.RateLimit{Max: 3, Window: time.Minute}
	s := itStart(t, Options{RateLimit: limit})
	erin := Bearer(s.Key("erin"))
	// warmup: 5 attempts before (erin's 2 dataset attempts are from 2026-01-10,
	// outside the window). Three wrong: 400, recorded -> 8.
	for i := range 3 {
		itError(t, fmt.Sprintf("wrong %d", i+1), itSubmit(s, "warmup", fmt.Sprintf("wrong-%d", i), erin), 400)
	}
	itWantCounts(t, "after 3 wrong", s, "warmup", 8, 3)
	for _, f := range []string{"wrong-4", "flag{warmup}"} { // even the right flag
		r := itSubmit(s, "warmup", f, erin)
		itError(t, "rate limited "+f, r, 429)
		if n, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || n < 1 || n > 60 {
			t.Errorf("Retry-After %q, want an integer in 1..60", r.Header.Get("Retry-After"))
		}
	}
	// Earlier checks still win: 404, 400 invalid body.
	itError(t, "limited, unknown slug", itSubmit(s, "nope", "x", erin), 404)
	itError(t, "limited, bad body", s.Do("POST", "/api/public/challenges/warmup/submit", []byte(`{}`), erin), 400)
	itWantCounts(t, "429s record nothing", s, "warmup", 8, 3)
	// The limit is per challenge: lost-packets still checks flags.
	itError(t, "other challenge", itSubmit(s, "lost-packets", "nope", erin), 400)

	// 403 locked before 429: erin has 3 recent wrong attempts on the locked
	// web-login (loaded with the current time).
	ctx := context.Background()
	now := time.Now()
	var ds dataset.Dataset
	for i := range 3 {
		at := now.Add(-time.Duration(i) * time.Second)
		ds.Attempts = append(ds.Attempts, dataset.Attempt{User: "erin", Challenge: "web-login", At: &at, Flag: fmt.Sprint("x", i)})
	}
	if _, err := transfer.Load(ctx, s.DB, &ds); err != nil {
		t.Fatal(err)
	}
	s.Reload()
	itError(t, "locked and limited", itSubmit(s, "web-login", "flag{backdoor}", erin), 403)
	// 409 before 429: erin, limited on warmup, gets a solve of it.
	if _, err := transfer.Load(ctx, s.DB, &dataset.Dataset{Solves: []dataset.Solve{{User: "erin", Challenge: "warmup", At: &now}}}); err != nil {
		t.Fatal(err)
	}
	s.Reload()
	itError(t, "solved and limited", itSubmit(s, "warmup", "wrong-5", erin), 409)

	// Exact across replicas: a second service on the same database.
	replica := itReplica(t, s, limit)
	dave := Bearer(s.Key("dave"))
	// dave on lost-packets: 2 wrong here, 1 on the replica, then 429 on both.
	itError(t, "replica A 1", itSubmit(s, "lost-packets", "a1", dave), 400)
	itError(t, "replica B 1", itSubmit(replica, "lost-packets", "b1", dave), 400)
	itError(t, "replica A 2", itSubmit(s, "lost-packets", "a2", dave), 400)
	itError(t, "replica B limited", itSubmit(replica, "lost-packets", "b2", dave), 429)
	itError(t, "replica A limited", itSubmit(s, "lost-packets", "a3", dave), 429)
}

// TestIntegrationSubmitConcurrent: concurrent correct submissions of one
// user yield exactly one 200, the rest 409.
func TestIntegrationSubmitConcurrent(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	erin := Bearer(s.Key("erin"))
	const n = 12
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = itSubmit(s, "warmup", "flag{warmup}", erin).Status
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, st := range statuses {
		count[st]++
	}
	if count[200] != 1 || count[409] != n-1 {
		t.Errorf("statuses %v, want one 200 and %d 409", count, n-1)
	}
	// warmup: 5 + 1 = 6 attempts, 3 + 1 = 4 solves.
	itWantCounts(t, "after the race", s, "warmup", 6, 4)
}

// TestIntegrationSubmitContentTypes: curl -d sends a form content type, and
// scripts often send none; the body is JSON either way.
func TestIntegrationSubmitContentTypes(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	body := []byte(`{"flag":"flag{warmup}"}`)
	itStatus(t, "no Content-Type", s.Do("POST", "/api/public/challenges/warmup/submit", body, Bearer(s.Key("erin"))), 200)
	itStatus(t, "form Content-Type", s.Do("POST", "/api/public/challenges/warmup/submit", body, Bearer(s.Key("carol")),
		"Content-Type: application/x-www-form-urlencoded"), 200)
}

// TestIntegrationSubmitDefaultRateLimit: with the default limit (10 per
// minute), the 11th wrong submission is refused.
func TestIntegrationSubmitDefaultRateLimit(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	erin := Bearer(s.Key("erin"))
	for i := range 10 {
		itError(t, fmt.Sprint("wrong ", i+1), itSubmit(s, "kernel-panic", fmt.Sprint("w", i), erin), 400)
	}
	itError(t, "11th", itSubmit(s, "kernel-panic", "w10", erin), 429)
	// kernel-panic: 2 + 10 = 12 attempts.
	itWantCounts(t, "kernel-panic", s, "kernel-panic", 12, 0)
}

// TestIntegrationSubmitRateLimitWindow: with a clock under control, the
// limit (3 per minute) slides: Retry-After says when the oldest wrong
// submission leaves the window, and after that flags are checked again.
func TestIntegrationSubmitRateLimitWindow(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := t0
	set := func(d time.Duration) { mu.Lock(); now = t0.Add(d); mu.Unlock() }
	s := itStart(t, Options{RateLimit: store.RateLimit{Max: 3, Window: time.Minute},
		Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	erin := Bearer(s.Key("erin"))
	for i, d := range []time.Duration{0, 10 * time.Second, 20 * time.Second} {
		set(d)
		itError(t, fmt.Sprint("wrong ", i), itSubmit(s, "warmup", fmt.Sprint("w", i), erin), 400)
	}
	// At +30s the oldest (t0) leaves the window at +60s: 30 s to wait.
	set(30 * time.Second)
	r := itSubmit(s, "warmup", "w3", erin)
	itError(t, "limited", r, 429)
	if got := r.Header.Get("Retry-After"); got != "30" {
		t.Errorf("Retry-After %q, want 30 (t0 + 60s - (t0 + 30s))", got)
	}
	// At +61s only the +10s and +20s submissions are in the window.
	set(61 * time.Second)
	itError(t, "after the window", itSubmit(s, "warmup", "w4", erin), 400)
	itError(t, "full again", itSubmit(s, "warmup", "w5", erin), 429)
	set(81 * time.Second)
	r = itSubmit(s, "warmup", "flag{warmup}", erin)
	itStatus(t, "solve after the window", r, 200)
	// warmup: 5 + 4 wrong + 1 solve = 10 attempts, 4 solves.
	itWantCounts(t, "warmup", s, "warmup", 10, 4)
}

// TestIntegrationDatasetSolveFlagTrimmed: submittedFlag (docs/product.md#flags) is the
// flag "as accepted (trimmed)"; a solve loaded from a dataset carries its
// flag, which a live submission would have had trimmed.
//
// Regression test for a bug this suite found (failed on 3eda590, fixed by
// 9efaa66): the loader kept the dataset's flag verbatim, so submittedFlag
// was "  flag{warmup}\t" (internal/transfer/load_activity.go loadSolves).
func TestIntegrationDatasetSolveFlagTrimmed(t *testing.T) {
	t.Parallel()
	s := Start(t, `
users: [{username: ann}]
challenges:
  - {slug: warmup, title: Warmup, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{warmup}']}
solves:
  - {user: ann, challenge: warmup, at: 2026-01-10T10:00:00Z, flag: "  flag{warmup}\t"}
`)
	itMatch(t, "REGRESSION: submittedFlag of a loaded solve", itGet(t, s, "/api/public/challenges/warmup", Bearer(s.Key("ann"))),
		`{"challenge":{"solved":true,"submittedFlag":"flag{warmup}"}}`)
}
