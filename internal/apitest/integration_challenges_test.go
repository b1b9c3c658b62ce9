package apitest

import (
	"fmt"
	"reflect"
	"regexp"
	"testing"
)

func TestIntegrationHealth(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	itMatch(t, "health", itGet(t, s, "/api/public/health"), `{"ok":true}`)

	// docs/product.md#health: 503 {ok:false} when the database does not answer.
	down := itStart(t)
	down.DB.Close()
	r := down.Do("GET", "/api/public/health", nil)
	itStatus(t, "health with the database closed", r, 503)
	if r.Status == 503 {
		itMatch(t, "health with the database closed", itDecode(t, "health", r.Body), `{"ok":false}`)
	}
}

// itNullish checks that an optional field is null or absent.
func itNullish(t *testing.T, label string, m map[string]any, key string) {
	t.Helper()
	if v, ok := m[key]; ok && v != nil {
		t.Errorf("%s: %s = %s, want null or absent", label, key, itShow(v))
	}
}

var itOpaqueID = regexp.MustCompile(`^[0-9]+$`)

func TestIntegrationChallengeListAnonymous(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	list := itGet(t, s, "/api/public/challenges")
	if got := itSlugs(list); !reflect.DeepEqual(got, listOrder) {
		t.Fatalf("slugs %v, want %v (createdAt asc then slug; hidden draft absent)", got, listOrder)
	}
	creator := func(user, name string) string {
		return fmt.Sprintf(`{"id":%q,"name":%q,"username":%q}`, itUID(t, s, user), name, user)
	}
	// attemptsCount = players' wrong attempts + players' solves; admin root
	// and banned mallory excluded. avgStars = mean of stars, 2 decimals.
	want := map[string]string{
		// wrong 0 + solves carol 1 (mallory's excluded) = 1; stars 5/1 = 5.
		"lost-packets": `{"title":"Lost Packets","description":"A capture file went missing.","categories":["forensics"],
			"difficulty":"Medium","points":150,"type":"standard","hasInstance":false,"creator":` + creator("alice", "Alice") + `,
			"attemptsCount":1,"solvesCount":1,"avgStars":5,"createdAt":"2026-01-04T10:00:00.000Z","solved":false}`,
		// wrong 0 + solves bob, alice, dave = 3 (mallory's excluded); stars (3+4)/2 = 3.5.
		"baby-rsa": `{"title":"Baby RSA","description":"Small numbers, big trouble.","categories":["crypto"],"difficulty":"Easy",
			"points":100,"type":"standard","hasInstance":false,"fileUrl":"` + s.URL + `/files/` + handoutSHA + `/handout.txt",
			"fileName":"handout.txt","creator":` + creator("alice", "Alice") + `,"attemptsCount":3,"solvesCount":3,"avgStars":3.5,
			"createdAt":"2026-01-05T10:00:00.000Z","solved":false}`,
		// wrong erin 2 (root's 1 and mallory's 3 excluded) + solves alice, bob, dave 3 (root's excluded) = 5;
		// stars (5+4+4)/3 = 4.333 -> 4.33.
		"warmup": `{"title":"Warmup","categories":["misc"],"difficulty":"Easy","points":50,"type":"standard","hasInstance":false,
			"fileUrl":"https://files.example.com/warmup.pdf","fileName":"warmup.pdf","attemptsCount":5,"solvesCount":3,
			"avgStars":4.33,"createdAt":"2026-01-05T10:00:00.000Z","solved":false}`,
		// wrong bob 1 + solves alice, bob 2 = 3; stars 2/1 = 2.
		"web-login": `{"title":"Web Login","categories":["web","crypto"],"difficulty":"Medium","points":200,"type":"container",
			"hasInstance":true,"dockerPort":8080,"attemptsCount":3,"solvesCount":2,"avgStars":2,
			"createdAt":"2026-01-06T10:00:00.000Z","solved":false}`,
		"rop-chain": `{"title":"ROP Chain","categories":["pwn"],"difficulty":"Hard","points":300,"type":"standard","hasInstance":false,
			"creator":` + creator("bob", "Bob") + `,"attemptsCount":0,"solvesCount":0,"avgStars":null,
			"createdAt":"2026-01-07T10:00:00.000Z","solved":false}`,
		// wrong dave 2 + solves 0 (root's excluded) = 2.
		"kernel-panic": `{"title":"Kernel Panic","categories":["pwn"],"difficulty":"Insane","points":500,"type":"standard",
			"hasInstance":false,"creator":` + creator("root", "Root") + `,"attemptsCount":2,"solvesCount":0,"avgStars":null,
			"createdAt":"2026-01-08T10:00:00.000Z","solved":false}`,
	}
	by := itBySlug(list)
	seen := map[string]bool{}
	for _, slug := range listOrder {
		c := by[slug]
		itMatch(t, "list "+slug, c, want[slug])
		id, _ := c["id"].(string)
		if id == "" || seen[id] || itOpaqueID.MatchString(id) {
			t.Errorf("list %s: id %q must be a unique opaque string", slug, id)
		}
		seen[id] = true
	}
	for _, slug := range []string{"lost-packets", "web-login", "rop-chain", "kernel-panic"} {
		itNullish(t, slug, by[slug], "fileUrl")
		itNullish(t, slug, by[slug], "fileName")
	}
	for _, slug := range []string{"lost-packets", "baby-rsa", "warmup", "rop-chain", "kernel-panic"} {
		itNullish(t, slug, by[slug], "dockerPort")
	}
	for _, slug := range []string{"warmup", "web-login"} {
		itNullish(t, slug, by[slug], "creator")
	}
}

func TestIntegrationChallengeListAuthenticated(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	anon := itBySlug(itGet(t, s, "/api/public/challenges"))
	// solved is true exactly on the caller's own solves (a hidden one
	// cannot show: carol's draft solve).
	solved := map[string][]string{
		"alice":   {"baby-rsa", "warmup", "web-login"},
		"bob":     {"baby-rsa", "warmup", "web-login"},
		"carol":   {"lost-packets"},
		"dave":    {"baby-rsa", "warmup"},
		"erin":    {},
		"root":    {"warmup", "kernel-panic"},
		"mallory": {"lost-packets", "baby-rsa"},
	}
	for user, mine := range solved {
		list := itGet(t, s, "/api/public/challenges", Bearer(s.Key(user)))
		if got := itSlugs(list); !reflect.DeepEqual(got, listOrder) {
			t.Errorf("%s: slugs %v, want %v", user, got, listOrder)
		}
		by := itBySlug(list)
		for _, slug := range listOrder {
			want := false
			for _, m := range mine {
				want = want || m == slug
			}
			c := by[slug]
			if c["solved"] != want {
				t.Errorf("%s: %s solved = %v, want %v", user, slug, c["solved"], want)
			}
			// Everything else is what anyone sees.
			for k, v := range anon[slug] {
				if k != "solved" && !reflect.DeepEqual(c[k], v) {
					t.Errorf("%s: %s %s = %s, anonymous sees %s", user, slug, k, itShow(c[k]), itShow(v))
				}
			}
		}
	}
}

func TestIntegrationChallengeDetail(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	anonList := itBySlug(itGet(t, s, "/api/public/challenges"))
	keys := map[string]string{"": ""}
	for _, u := range []string{"alice", "bob", "carol", "dave", "erin", "root"} {
		keys[u] = Bearer(s.Key(u))
	}
	// avgDifficulty: warmup (2+3+3)/3 = 2.667 -> 2.67; baby-rsa (5+6)/2 = 5.5;
	// web-login 7; lost-packets 4; no reviews -> null.
	const (
		stats = `"avgDifficulty":%s,"totalReviews":%d`
	)
	common := map[string]string{
		"lost-packets": fmt.Sprintf(stats, "4", 1), "baby-rsa": fmt.Sprintf(stats, "5.5", 2), "warmup": fmt.Sprintf(stats, "2.67", 3),
		"web-login": fmt.Sprintf(stats, "7", 1), "rop-chain": fmt.Sprintf(stats, "null", 0), "kernel-panic": fmt.Sprintf(stats, "null", 0),
	}
	cases := []struct {
		user, slug, state string // state: unlocked, solved, submittedFlag, myReview
	}{
		// Anonymous: solved false, submittedFlag null, myReview null;
		// unlocked only without prerequisites.
		{"", "lost-packets", `"unlocked":true,"solved":false,"submittedFlag":null,"myReview":null`},
		{"", "baby-rsa", `"unlocked":true,"solved":false,"submittedFlag":null,"myReview":null`},
		{"", "warmup", `"unlocked":true,"solved":false,"submittedFlag":null,"myReview":null`},
		{"", "web-login", `"unlocked":false,"solved":false,"submittedFlag":null,"myReview":null`},
		{"", "rop-chain", `"unlocked":false,"solved":false,"submittedFlag":null,"myReview":null`},
		{"", "kernel-panic", `"unlocked":true,"solved":false,"submittedFlag":null,"myReview":null`},
		{"alice", "warmup", `"unlocked":true,"solved":true,"submittedFlag":"flag{warmup}","myReview":{"stars":5,"difficulty":2}`},
		{"alice", "baby-rsa", `"unlocked":true,"solved":true,"submittedFlag":"FLAG{Baby-RSA}","myReview":{"stars":3,"difficulty":5}`},
		{"alice", "web-login", `"unlocked":true,"solved":true,"submittedFlag":"flag{deadbeef}","myReview":{"stars":2,"difficulty":7}`},
		{"alice", "rop-chain", `"unlocked":true,"solved":false,"submittedFlag":null,"myReview":null`}, // alice solved web-login
		{"bob", "baby-rsa", `"unlocked":true,"solved":true,"submittedFlag":"FLAG{BABY-RSA}","myReview":{"stars":4,"difficulty":6}`},
		{"bob", "web-login", `"unlocked":true,"solved":true,"submittedFlag":"flag{backdoor}","myReview":null`},
		{"dave", "baby-rsa", `"unlocked":true,"solved":true,"submittedFlag":null,"myReview":null`}, // solve loaded without a flag
		{"dave", "warmup", `"unlocked":true,"solved":true,"submittedFlag":"flag{warmup}","myReview":{"stars":4,"difficulty":3}`},
		{"dave", "web-login", `"unlocked":true,"solved":false,"submittedFlag":null,"myReview":null`}, // dave solved warmup
		{"dave", "rop-chain", `"unlocked":false,"solved":false,"submittedFlag":null,"myReview":null`},
		{"carol", "web-login", `"unlocked":false,"solved":false,"submittedFlag":null,"myReview":null`},
		{"carol", "lost-packets", `"unlocked":true,"solved":true,"submittedFlag":"flag{pcap}","myReview":{"stars":5,"difficulty":4}`},
		{"erin", "warmup", `"unlocked":true,"solved":false,"submittedFlag":null,"myReview":null`},
		{"erin", "web-login", `"unlocked":false,"solved":false,"submittedFlag":null,"myReview":null`},
		{"root", "web-login", `"unlocked":true,"solved":false,"submittedFlag":null,"myReview":null`},
	}
	for _, c := range cases {
		label := fmt.Sprintf("detail %s as %q", c.slug, c.user)
		var hdr []string
		if c.user != "" {
			hdr = append(hdr, keys[c.user])
		}
		d := itAt(itGet(t, s, "/api/public/challenges/"+c.slug, hdr...), "challenge")
		itMatch(t, label, d, "{"+c.state+","+common[c.slug]+"}")
		// Every summary field is the list's (solved aside).
		m, _ := d.(map[string]any)
		for k, v := range anonList[c.slug] {
			if k != "solved" && !reflect.DeepEqual(m[k], v) {
				t.Errorf("%s: %s = %s, the list says %s", label, k, itShow(m[k]), itShow(v))
			}
		}
	}
	for _, slug := range []string{"draft", "nope"} {
		for _, hdr := range [][]string{nil, {keys["carol"]}} { // carol solved the hidden draft
			itError(t, "detail "+slug, s.Do("GET", "/api/public/challenges/"+slug, nil, hdr...), 404)
		}
	}
}

func TestIntegrationWriteups(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	key := map[string]string{}
	for _, u := range []string{"alice", "bob", "carol", "dave", "erin", "root"} {
		key[u] = Bearer(s.Key(u))
	}
	// Order of checks: 401 -> 404 -> 403.
	for _, slug := range []string{"warmup", "nope", "draft"} {
		itError(t, "writeups "+slug+" without auth", s.Do("GET", "/api/public/challenges/"+slug+"/writeups", nil), 401)
		itError(t, "writeups "+slug+" revoked key", s.Do("GET", "/api/public/challenges/"+slug+"/writeups", nil,
			Bearer(itRevokedKey(t, s, "alice"))), 401)
	}
	itError(t, "writeups unknown", s.Do("GET", "/api/public/challenges/nope/writeups", nil, key["erin"]), 404)
	itError(t, "writeups hidden (solved by carol)", s.Do("GET", "/api/public/challenges/draft/writeups", nil, key["carol"]), 404)
	itError(t, "writeups hidden (unsolved)", s.Do("GET", "/api/public/challenges/draft/writeups", nil, key["erin"]), 404)
	itError(t, "writeups not solved", s.Do("GET", "/api/public/challenges/warmup/writeups", nil, key["erin"]), 403)
	itError(t, "writeups not solved (carol)", s.Do("GET", "/api/public/challenges/warmup/writeups", nil, key["carol"]), 403)

	warmupID, _ := itChal(t, s, "warmup")["id"].(string)
	header := fmt.Sprintf(`"challenge":{"id":%q,"title":"Warmup","categories":["misc"],"difficulty":"Easy","points":50}`, warmupID)
	w := func(user, name, title, content, status, images, created string) string {
		return fmt.Sprintf(`{"userId":%q,"challengeId":%q,"title":%q,"content":%q,"status":%q,"images":%s,"createdAt":%q,"user":{"username":%q,"name":%q}}`,
			itUID(t, s, user), warmupID, title, content, status, images, created, user, name)
	}
	bob := w("bob", "Bob", "Bob reads the rules", "Just read them.", "approved", `["https://img.example.com/bob.png"]`, "2026-01-11T09:00:00.000Z")
	alice := w("alice", "Alice", "Alice reads faster", "Ctrl-F flag.", "approved", `[]`, "2026-01-11T10:00:00.000Z")
	dave := w("dave", "Dave", "Dave WIP", "Work in progress.", "pending", `[]`, "2026-01-12T11:00:00.000Z")
	root := w("root", "Root", "Admin notes", "The intended path.", "rejected", `[]`, "2026-01-09T12:00:00.000Z")
	// Approved oldest first (bob 01-11T09:00, alice 01-11T10:00), plus the
	// caller's own in any status, never twice; others' pending/rejected absent.
	cases := map[string]string{
		"alice": "[" + bob + "," + alice + "]", // own approved listed once
		"bob":   "[" + bob + "," + alice + "]",
		"dave":  "[" + bob + "," + alice + "," + dave + "]", // own pending
		"root":  "[" + root + "," + bob + "," + alice + "]", // own rejected, oldest
	}
	for user, list := range cases {
		v := itGet(t, s, "/api/public/challenges/warmup/writeups", key[user])
		itMatch(t, "warmup writeups as "+user, v, "{"+header+`,"writeups":`+list+"}")
		arr, _ := itAt(v, "writeups").([]any)
		for i, wr := range arr {
			if id, _ := itAt(wr, "id").(string); id == "" {
				t.Errorf("warmup writeups as %s: writeup %d has no id", user, i)
			}
			if itAt(wr, "user", "username") == "bob" {
				itMatch(t, "bob's writeup updatedAt", wr, `{"updatedAt":"2026-01-11T09:30:00.000Z"}`)
			}
		}
	}
	// baby-rsa: bob's writeup is rejected, so only bob sees it.
	itMatch(t, "baby-rsa writeups as alice", itGet(t, s, "/api/public/challenges/baby-rsa/writeups", key["alice"]), `{"writeups":[]}`)
	itMatch(t, "baby-rsa writeups as bob", itGet(t, s, "/api/public/challenges/baby-rsa/writeups", key["bob"]),
		`{"writeups":[{"title":"RSA notes","status":"rejected","user":{"username":"bob","name":"Bob"}}]}`)
}

// TestIntegrationReviewAggregatesCountPlayersOnly: like solves, the reviews
// of admins and banned users count in no public aggregate (review finding
// 6), while their authors still see their own.
func TestIntegrationReviewAggregatesCountPlayersOnly(t *testing.T) {
	t.Parallel()
	s := Start(t, `
users:
  - {username: pam, email: pam@example.com}
  - {username: pat, email: pat@example.com}
  - {username: root, email: root@example.com, role: admin}
  - {username: mal, email: mal@example.com, banned: true}
challenges:
  - {slug: c, title: C, categories: [misc], difficulty: Easy, points: 10, flags: ['flag{c}']}
solves:
  - {user: pam, challenge: c}
  - {user: pat, challenge: c}
  - {user: root, challenge: c}
  - {user: mal, challenge: c}
reviews:
  - {user: pam, challenge: c, stars: 5, difficulty: 2}
  - {user: pat, challenge: c, stars: 4, difficulty: 3}
  - {user: root, challenge: c, stars: 1, difficulty: 10}
  - {user: mal, challenge: c, stars: 1, difficulty: 10}
`)
	want := `{"challenge":{"avgStars":4.5,"avgDifficulty":2.5,"totalReviews":2,"solvesCount":2}}`
	itMatch(t, "anonymous detail", itDecode(t, "detail", s.Do("GET", "/api/public/challenges/c", nil).Body), want)
	list := itDecode(t, "list", s.Do("GET", "/api/public/challenges", nil).Body)
	itMatch(t, "list", list, `{"challenges":[{"slug":"c","avgStars":4.5}]}`)
	for _, who := range []string{"root", "mal"} {
		r := s.Do("GET", "/api/public/challenges/c", nil, Bearer(s.Key(who)))
		itMatch(t, who+"'s detail", itDecode(t, who, r.Body),
			`{"challenge":{"avgStars":4.5,"totalReviews":2,"myReview":{"stars":1,"difficulty":10}}}`)
	}
}
