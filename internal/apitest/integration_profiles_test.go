package apitest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/secret"
)

// itProfileChallenge is a ProfileChallenge as expected.
func itProfileChallenge(ids map[string]string, slug string) string {
	c := map[string]string{
		"lost-packets": `"title":"Lost Packets","points":150,"categories":["forensics"],"difficulty":"Medium","createdAt":"2026-01-04T10:00:00.000Z"`,
		"baby-rsa":     `"title":"Baby RSA","points":100,"categories":["crypto"],"difficulty":"Easy","createdAt":"2026-01-05T10:00:00.000Z"`,
		"warmup":       `"title":"Warmup","points":50,"categories":["misc"],"difficulty":"Easy","createdAt":"2026-01-05T10:00:00.000Z"`,
		"web-login":    `"title":"Web Login","points":200,"categories":["web","crypto"],"difficulty":"Medium","createdAt":"2026-01-06T10:00:00.000Z"`,
		"rop-chain":    `"title":"ROP Chain","points":300,"categories":["pwn"],"difficulty":"Hard","createdAt":"2026-01-07T10:00:00.000Z"`,
		"kernel-panic": `"title":"Kernel Panic","points":500,"categories":["pwn"],"difficulty":"Insane","createdAt":"2026-01-08T10:00:00.000Z"`,
	}[slug]
	return fmt.Sprintf(`{"id":%q,"slug":%q,%s}`, ids[slug], slug, c)
}

// itProfile is the expected part of a profile common to /me and
// /profiles/{id}. solved are "slug@time", newest first.
type itProfile struct {
	user, extra, cats, diffs string
	solved, created, badges  []string
}

var itProfiles = []itProfile{
	// alice: 350, rank 1; first blood on warmup and web-login (2); among the
	// first three of warmup, baby-rsa, web-login (3). web-login counts in web
	// and crypto. Created: baby-rsa (01-05), lost-packets (01-04); the hidden
	// draft is absent. Badges: warmup 01-10T10:00 gives first-solve,
	// first-blood, category-misc (1/1); web-login 12:00 completes web (1/1) and
	// crypto (baby-rsa + web-login, 2/2).
	{"alice", `"name":"Alice","createdAt":"2026-01-01T00:00:00.000Z","rank":1,"totalPoints":350,"firstBloodCount":2,"top3Count":3`,
		`{"misc":1,"crypto":2,"web":1}`, `{"Easy":2,"Medium":1}`,
		[]string{"web-login@2026-01-10T12:00:00.000Z", "baby-rsa@2026-01-10T11:00:00.000Z", "warmup@2026-01-10T10:00:00.000Z"},
		[]string{"baby-rsa", "lost-packets"},
		[]string{"first-solve@2026-01-10T10:00:00.000Z", "first-blood@2026-01-10T10:00:00.000Z", "category-misc@2026-01-10T10:00:00.000Z",
			"category-web@2026-01-10T12:00:00.000Z", "category-crypto@2026-01-10T12:00:00.000Z"}},
	// bob: 350, rank 2 (reached 350 later); first blood on baby-rsa (mallory's
	// earlier solve is a banned user's); top 3 of baby-rsa, warmup, web-login.
	{"bob", `"name":"Bob","rank":2,"totalPoints":350,"firstBloodCount":1,"top3Count":3`,
		`{"crypto":2,"misc":1,"web":1}`, `{"Easy":2,"Medium":1}`,
		[]string{"web-login@2026-01-11T10:00:00.000Z", "warmup@2026-01-10T13:00:00.000Z", "baby-rsa@2026-01-10T09:00:00.000Z"},
		[]string{"rop-chain"},
		[]string{"first-solve@2026-01-10T09:00:00.000Z", "first-blood@2026-01-10T09:00:00.000Z", "category-misc@2026-01-10T13:00:00.000Z",
			"category-web@2026-01-11T10:00:00.000Z", "category-crypto@2026-01-11T10:00:00.000Z"}},
	// carol: 150, rank 3 (tie with dave, username first); her hidden draft
	// solve is absent everywhere.
	{"carol", `"rank":3,"totalPoints":150,"firstBloodCount":1,"top3Count":1`, `{"forensics":1}`, `{"Medium":1}`,
		[]string{"lost-packets@2026-01-12T10:00:00.000Z"}, nil,
		[]string{"first-solve@2026-01-12T10:00:00.000Z", "first-blood@2026-01-12T10:00:00.000Z", "category-forensics@2026-01-12T10:00:00.000Z"}},
	// dave: 150, rank 4; third on warmup and baby-rsa.
	{"dave", `"name":"Dave","rank":4,"totalPoints":150,"firstBloodCount":0,"top3Count":2`, `{"misc":1,"crypto":1}`, `{"Easy":2}`,
		[]string{"baby-rsa@2026-01-12T10:00:00.000Z", "warmup@2026-01-12T09:00:00.000Z"}, nil,
		[]string{"first-solve@2026-01-12T09:00:00.000Z", "category-misc@2026-01-12T09:00:00.000Z"}},
	// erin: no solve: rank = 4 ranked players + 1 = 5.
	{"erin", `"name":"Erin","rank":5,"totalPoints":0,"firstBloodCount":0,"top3Count":0`, `{}`, `{}`, nil, nil, nil},
}

func itCheckProfile(t *testing.T, label string, s *Server, ids map[string]string, p any, want itProfile) {
	t.Helper()
	solved := []string{}
	for _, sv := range want.solved {
		slug, at, _ := strings.Cut(sv, "@")
		solved = append(solved, fmt.Sprintf(`{"solvedAt":%q,"challenge":%s}`, at, itProfileChallenge(ids, slug)))
	}
	created := []string{}
	for _, slug := range want.created {
		created = append(created, itProfileChallenge(ids, slug))
	}
	itMatch(t, label, p, fmt.Sprintf(`{"id":%q,"username":%q,"image":null,%s,"solvedChallenges":[%s],"createdChallenges":[%s]}`,
		itUID(t, s, want.user), want.user, want.extra, strings.Join(solved, ","), strings.Join(created, ",")))
	itExact(t, label+" categoryCounts", itAt(p, "categoryCounts"), want.cats)
	itExact(t, label+" difficultyCounts", itAt(p, "difficultyCounts"), want.diffs)
	itBadgesHeld(t, label, itAt(p, "badges"), want.badges...)
}

func itChallengeIDs(t *testing.T, s *Server) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for slug, c := range itBySlug(itGet(t, s, "/api/public/challenges")) {
		ids[slug], _ = c["id"].(string)
	}
	return ids
}

func TestIntegrationPublicProfiles(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	ids := itChallengeIDs(t, s)
	for _, want := range itProfiles {
		v := itGet(t, s, "/api/public/profiles/"+itUID(t, s, want.user))
		p, _ := itAt(v, "profile").(map[string]any)
		itCheckProfile(t, "profile of "+want.user, s, ids, p, want)
		for _, private := range []string{"email", "twoFactorEnabled", "mcpApiKeys"} {
			if _, ok := p[private]; ok {
				t.Errorf("public profile of %s has %q", want.user, private)
			}
		}
		// The same profile as its owner sees it.
		me := itAt(itGet(t, s, "/api/public/me", Bearer(s.Key(want.user))), "profile")
		itCheckProfile(t, "/me of "+want.user, s, ids, me, want)
		itMatch(t, "/me of "+want.user, me, fmt.Sprintf(`{"email":"%s@example.com","twoFactorEnabled":false}`, want.user))
	}
	// Admins and banned users have rank 0 and no podium counts.
	for _, u := range []string{"root", "mallory"} {
		itMatch(t, "profile of "+u, itGet(t, s, "/api/public/profiles/"+itUID(t, s, u)),
			`{"profile":{"rank":0,"firstBloodCount":0,"top3Count":0}}`)
	}
	itMatch(t, "root created", itGet(t, s, "/api/public/profiles/"+itUID(t, s, "root")),
		`{"profile":{"createdChallenges":[`+itProfileChallenge(ids, "kernel-panic")+`]}}`)
	// No profile: 200 {"profile": null}, also for a challenge's id.
	for _, id := range []string{"nope", ids["warmup"], "00000000-0000-7000-8000-000000000000"} {
		r := s.Do("GET", "/api/public/profiles/"+id, nil)
		itStatus(t, "unknown profile", r, 200)
		itExact(t, "unknown profile "+id, itDecode(t, "profile", r.Body), `{"profile":null}`)
	}
}

func TestIntegrationMe(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	ctx := context.Background()
	itError(t, "/me anonymous", s.Do("GET", "/api/public/me", nil), 401)
	d := func(v string) time.Time { t0, _ := time.Parse(time.RFC3339, v); return t0 }
	laptop, _ := itKey(t, s, "alice", "laptop", d("2026-01-02T00:00:00Z"))
	old, oldID := itKey(t, s, "alice", "old", d("2026-01-02T12:00:00Z"))
	spare, _ := itKey(t, s, "alice", "spare", d("2026-01-03T00:00:00Z"))
	if _, _, err := s.DB.Accounts().RevokeAPIKey(ctx, itUID(t, s, "alice"), oldID, d("2026-01-03T12:00:00Z"), nil); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	itError(t, "/me revoked key", s.Do("GET", "/api/public/me", nil, Bearer(old)), 401)
	before := time.Now().UTC().Truncate(time.Millisecond)
	r := s.Do("GET", "/api/public/me", nil, Bearer(laptop))
	after := time.Now().UTC()
	itStatus(t, "/me", r, 200)
	for _, k := range []string{laptop, old, spare} {
		_, sec, _ := strings.Cut(strings.TrimPrefix(k, secret.KeyPrefixTag), "_")
		if strings.Contains(string(r.Body), sec) || strings.Contains(string(r.Body), secret.HashToken(k)) {
			t.Errorf("/me shows a key's secret or hash: %s", r.Body)
		}
	}
	keys := map[string]map[string]any{}
	arr, _ := itAt(itDecode(t, "/me", r.Body), "profile", "mcpApiKeys").([]any)
	for _, k := range arr {
		m, _ := k.(map[string]any)
		name, _ := m["name"].(string)
		keys[name] = m
		if p, _ := m["keyPrefix"].(string); p == "" || !(strings.HasPrefix(laptop, p) || strings.HasPrefix(old, p) || strings.HasPrefix(spare, p)) {
			t.Errorf("key %s: keyPrefix %q is not a prefix of one of alice's keys", name, p)
		}
		if id, _ := m["id"].(string); id == "" {
			t.Errorf("key %s has no id", name)
		}
	}
	if len(keys) != 3 {
		t.Fatalf("mcpApiKeys %s, want laptop, old, spare", itShow(arr))
	}
	itMatch(t, "old", keys["old"], fmt.Sprintf(`{"id":%q,"createdAt":"2026-01-02T12:00:00.000Z","revokedAt":"2026-01-03T12:00:00.000Z"}`, oldID))
	itMatch(t, "spare", keys["spare"], `{"createdAt":"2026-01-03T00:00:00.000Z"}`)
	itNullish(t, "spare", keys["spare"], "lastUsedAt")
	itNullish(t, "spare", keys["spare"], "revokedAt")
	itNullish(t, "laptop", keys["laptop"], "revokedAt")
	itMatch(t, "laptop", keys["laptop"], `{"createdAt":"2026-01-02T00:00:00.000Z"}`)
	if used, _ := keys["laptop"]["lastUsedAt"].(string); used == "" {
		t.Errorf("laptop: lastUsedAt %v, want the time of this request", keys["laptop"]["lastUsedAt"])
	} else if ts := d(used); ts.Before(before) || ts.After(after) {
		t.Errorf("laptop: lastUsedAt %s, want between %v and %v", used, before, after)
	}
	if !strings.HasPrefix(laptop, keys["laptop"]["keyPrefix"].(string)) {
		t.Errorf("laptop keyPrefix %v is not the key's prefix", keys["laptop"]["keyPrefix"])
	}
}

// TestIntegrationKeyLastUsed: lastUsedAt is updated at most once a minute.
func TestIntegrationKeyLastUsed(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	var clock atomic.Int64
	clock.Store(t0.UnixNano())
	s := itStart(t, Options{Now: func() time.Time { return time.Unix(0, clock.Load()).UTC() }})
	key, _ := itKey(t, s, "erin", "k", t0.Add(-time.Hour))
	for _, step := range []struct {
		offset time.Duration
		want   string
	}{
		{0, "2026-02-01T10:00:00.000Z"},
		{30 * time.Second, "2026-02-01T10:00:00.000Z"}, // within the minute: not touched
		{61 * time.Second, "2026-02-01T10:01:01.000Z"},
	} {
		clock.Store(t0.Add(step.offset).UnixNano())
		itMatch(t, fmt.Sprint("lastUsedAt at +", step.offset), itGet(t, s, "/api/public/me", Bearer(key)),
			`{"profile":{"mcpApiKeys":[{"lastUsedAt":"`+step.want+`"}]}}`)
	}
}
