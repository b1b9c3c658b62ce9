package apitest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

const itJSONType = "application/json; charset=utf-8"

// TestIntegrationHeaders: JSON content type, CORS without credentials, on
// successes and errors alike.
func TestIntegrationHeaders(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	alice := Bearer(s.Key("alice"))
	reqs := []struct {
		method, path string
		body         string
		auth         bool
		status       int
	}{
		{"GET", "/api/public/health", "", false, 200},
		{"GET", "/api/public/challenges", "", false, 200},
		{"GET", "/api/public/challenges", "", true, 200},
		{"GET", "/api/public/challenges/warmup", "", true, 200},
		{"GET", "/api/public/challenges/warmup/writeups", "", true, 200},
		{"GET", "/api/public/leaderboard", "", false, 200},
		{"GET", "/api/public/me", "", true, 200},
		{"GET", "/api/public/profiles/" + itUID(t, s, "bob"), "", false, 200},
		{"POST", "/api/public/challenges/rop-chain/submit", `{"flag":"flag{rop}"}`, true, 200},
		{"GET", "/api/public/me", "", false, 401},
		{"GET", "/api/public/challenges/nope", "", false, 404},
		{"POST", "/api/public/challenges/warmup/submit", `{"flag":"x"}`, true, 409},
	}
	for _, q := range reqs {
		h := []string{"Origin: https://app.example"}
		if q.auth {
			h = append(h, alice)
		}
		var body []byte
		if q.body != "" {
			body = []byte(q.body)
		}
		r := s.Do(q.method, q.path, body, h...)
		label := q.method + " " + q.path
		itStatus(t, label, r, q.status)
		if ct := r.Header.Get("Content-Type"); ct != itJSONType {
			t.Errorf("%s: Content-Type %q, want %q", label, ct, itJSONType)
		}
		if o := r.Header.Get("Access-Control-Allow-Origin"); o != "*" {
			t.Errorf("%s: Access-Control-Allow-Origin %q, want *", label, o)
		}
		if c := r.Header.Get("Access-Control-Allow-Credentials"); c != "" {
			t.Errorf("%s: Access-Control-Allow-Credentials %q, want none", label, c)
		}
	}
}

func TestIntegrationPreflight(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	for _, p := range []string{"/api/public/challenges/warmup/submit", "/api/public/me", "/api/public/challenges"} {
		r := s.DoRaw("OPTIONS", p, nil, "Origin: https://app.example", "Access-Control-Request-Method: POST",
			"Access-Control-Request-Headers: authorization, x-api-key, content-type")
		itStatus(t, "preflight "+p, r, 204)
		if o := r.Header.Get("Access-Control-Allow-Origin"); o != "*" {
			t.Errorf("preflight %s: Access-Control-Allow-Origin %q", p, o)
		}
		if r.Header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("preflight %s: allows credentials", p)
		}
		allowed := strings.ToLower(r.Header.Get("Access-Control-Allow-Headers"))
		for _, h := range []string{"authorization", "x-api-key", "content-type"} {
			if !strings.Contains(allowed, h) {
				t.Errorf("preflight %s: Access-Control-Allow-Headers %q lacks %s", p, allowed, h)
			}
		}
		if m := r.Header.Get("Access-Control-Allow-Methods"); !strings.Contains(m, "POST") || !strings.Contains(m, "GET") {
			t.Errorf("preflight %s: Access-Control-Allow-Methods %q", p, m)
		}
	}
}

// TestIntegrationETag: every GET carries an ETag; If-None-Match gives 304
// with an empty body; a stale tag gives the body.
func TestIntegrationETag(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	alice := Bearer(s.Key("alice"))
	for _, c := range []struct {
		path string
		auth bool
	}{
		{"/api/public/leaderboard", false}, {"/api/public/challenges", false}, {"/api/public/challenges", true},
		{"/api/public/challenges/warmup", false}, {"/api/public/challenges/warmup", true}, {"/api/public/me", true},
		{"/api/public/profiles/" + itUID(t, s, "alice"), false}, {"/api/public/challenges/warmup/writeups", true},
		{"/api/public/health", false},
	} {
		var h []string
		if c.auth {
			h = append(h, alice)
		}
		r := s.Do("GET", c.path, nil, h...)
		tag := r.Header.Get("ETag")
		if r.Status != 200 || tag == "" {
			t.Errorf("GET %s (auth %v): status %d, ETag %q", c.path, c.auth, r.Status, tag)
			continue
		}
		for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag} {
			nm := s.Do("GET", c.path, nil, append(h, "If-None-Match: "+inm)...)
			if nm.Status != 304 || len(nm.Body) != 0 || nm.Header.Get("ETag") != tag {
				t.Errorf("GET %s (auth %v) If-None-Match %s: status %d, %d bytes, ETag %q; want 304, empty, same ETag",
					c.path, c.auth, inm, nm.Status, len(nm.Body), nm.Header.Get("ETag"))
			}
		}
		if stale := s.Do("GET", c.path, nil, append(h, `If-None-Match: "stale"`)...); stale.Status != 200 || !bytes.Equal(stale.Body, r.Body) {
			t.Errorf("GET %s (auth %v) stale If-None-Match: status %d", c.path, c.auth, stale.Status)
		}
		// Go's transport asks for gzip on GET but not on HEAD; ask alike,
		// since each coding has its own tag.
		if head := s.Do("HEAD", c.path, nil, append(h, "Accept-Encoding: gzip")...); head.Status != 200 || len(head.Body) != 0 || head.Header.Get("ETag") != tag {
			t.Errorf("HEAD %s (auth %v): status %d, %d bytes, ETag %q want %q", c.path, c.auth, head.Status, len(head.Body), head.Header.Get("ETag"), tag)
		}
	}
	// The anonymous and alice's list differ, so must their tags.
	if a, b := s.Do("GET", "/api/public/challenges", nil).Header.Get("ETag"), s.Do("GET", "/api/public/challenges", nil, alice).Header.Get("ETag"); a == b {
		t.Errorf("anonymous and authenticated lists share ETag %s", a)
	}
}

func TestIntegrationGzip(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	alice := Bearer(s.Key("alice"))
	for _, h := range [][]string{nil, {alice}} {
		plain := s.Do("GET", "/api/public/challenges", nil, append(h, "Accept-Encoding: identity")...)
		if plain.Header.Get("Content-Encoding") != "" {
			t.Errorf("identity asked, got Content-Encoding %q", plain.Header.Get("Content-Encoding"))
		}
		gz := s.Do("GET", "/api/public/challenges", nil, append(h, "Accept-Encoding: gzip")...)
		if gz.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("list (%d bytes), gzip asked: Content-Encoding %q", len(plain.Body), gz.Header.Get("Content-Encoding"))
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz.Body))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(body, plain.Body) {
			t.Errorf("gzip body does not decompress to the plain body (err %v)", err)
		}
		if !strings.Contains(strings.Join(gz.Header.Values("Vary"), ","), "Accept-Encoding") {
			t.Errorf("gzip response without Vary: Accept-Encoding")
		}
		if r := s.Do("GET", "/api/public/challenges", nil, append(h, "Accept-Encoding: gzip;q=0")...); r.Header.Get("Content-Encoding") != "" {
			t.Errorf("gzip;q=0 asked, got Content-Encoding %q", r.Header.Get("Content-Encoding"))
		}
	}
}

func TestIntegrationRoutes(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	// Unknown routes under /api/public: 404 JSON (not in the document, so
	// checked without the validator).
	for _, p := range []string{"/api/public/nope", "/api/public/", "/api/public/challenges/warmup/solves", "/api/public/users/x"} {
		itError(t, "GET "+p, s.DoRaw("GET", p, nil), 404)
	}
	// Wrong methods: 405 JSON with Allow (validated: 405 is declared).
	for _, c := range []struct{ method, path, allow string }{
		{"DELETE", "/api/public/leaderboard", "GET"},
		{"POST", "/api/public/leaderboard", "GET"},
		{"GET", "/api/public/challenges/warmup/submit", "POST"},
		{"PUT", "/api/public/me", "GET"},
		{"POST", "/api/public/challenges", "GET"},
	} {
		r := s.Do(c.method, c.path, []byte(`{}`), "Content-Type: application/json")
		itError(t, c.method+" "+c.path, r, 405)
		if !strings.Contains(r.Header.Get("Allow"), c.allow) {
			t.Errorf("%s %s: Allow %q, want %s", c.method, c.path, r.Header.Get("Allow"), c.allow)
		}
	}
	// The served OpenAPI document.
	r := s.DoRaw("GET", "/api/public/openapi.json", nil)
	itStatus(t, "openapi.json", r, 200)
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil || doc.OpenAPI != "3.1.0" || doc.Paths["/api/public/leaderboard"] == nil {
		t.Errorf("openapi.json: openapi %q, %d paths, err %v", doc.OpenAPI, len(doc.Paths), err)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("openapi.json: Content-Type %q", ct)
	}
}

// TestIntegrationBadInput: odd input is answered by a declared 4xx, never a
// 500; bodies over 64 KiB are refused and record nothing.
func TestIntegrationBadInput(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	erin := Bearer(s.Key("erin"))
	for _, p := range []string{"/api/public/challenges/%00", "/api/public/challenges/" + strings.Repeat("a", 500),
		"/api/public/challenges/%E2%80%AE", "/api/public/profiles/%FF", "/api/public/profiles/" + strings.Repeat("x", 5000),
		"/api/public/challenges/..%2F..%2Fme"} {
		if r := s.DoRaw("GET", p, nil, erin); r.Status >= 500 || r.Header.Get("Content-Type") != itJSONType {
			t.Errorf("GET %s: %d %q", p, r.Status, r.Header.Get("Content-Type"))
		}
	}
	bodies := [][]byte{[]byte("\xff\xfe{\"flag\":1}"), []byte(`{"flag":"a"} {"flag":"b"}`), []byte(`{"flag":{"$ne":""}}`), []byte(strings.Repeat("[", 10000)), []byte(`{"flag":"` + strings.Repeat("x", 70<<10) + `"}`)}
	for _, b := range bodies {
		r := s.Do("POST", "/api/public/challenges/warmup/submit", b, erin, "Content-Type: application/json")
		if r.Status != 400 && r.Status != 413 {
			t.Errorf("body %q: status %d, want 400 or 413", trunc(string(b)), r.Status)
		}
	}
	r := s.Do("POST", "/api/public/challenges/warmup/submit", []byte(`<flag/>`), erin, "Content-Type: application/xml")
	itError(t, "XML body", r, 400)
	// warmup: 5 attempts, 3 solves, as loaded.
	itWantCounts(t, "after bad input", s, "warmup", 5, 3)
}

// TestIntegrationCachingByAudience: answers made for a signed-in caller
// (/me holds the email) are private and vary on every credential header,
// since HTTP's rule that shared caches keep no Authorization answers covers
// neither X-API-Key nor cookies; the anonymous answers of optional-auth
// endpoints vary on them too; answers that ignore credentials stay
// shareable. 304s carry the same headers.
func TestIntegrationCachingByAudience(t *testing.T) {
	t.Parallel()
	s := itStart(t)
	key := s.Key("alice")
	const private, shared = "private, no-cache", "no-cache"
	const credentials = "Authorization, X-API-Key, Cookie, Accept-Encoding"
	cases := []struct {
		name, path string
		headers    []string
		cc, vary   string
	}{
		{"list, anonymous", "/api/public/challenges", nil, shared, credentials},
		{"list, bearer", "/api/public/challenges", []string{Bearer(key)}, private, credentials},
		{"list, x-api-key", "/api/public/challenges", []string{"X-API-Key: " + key}, private, credentials},
		{"detail, anonymous", "/api/public/challenges/warmup", nil, shared, credentials},
		{"detail, x-api-key", "/api/public/challenges/warmup", []string{"X-API-Key: " + key}, private, credentials},
		{"me", "/api/public/me", []string{"X-API-Key: " + key}, private, credentials},
		{"writeups", "/api/public/challenges/warmup/writeups", []string{Bearer(key)}, private, credentials},
		{"leaderboard", "/api/public/leaderboard", []string{"X-API-Key: " + key}, shared, "Accept-Encoding"},
		{"profile", "/api/public/profiles/" + itUID(t, s, "bob"), []string{"X-API-Key: " + key}, shared, "Accept-Encoding"},
		{"health", "/api/public/health", nil, shared, "Accept-Encoding"},
	}
	for _, c := range cases {
		for _, gzip := range []bool{false, true} {
			h := c.headers
			if gzip {
				h = append(append([]string{}, h...), "Accept-Encoding: gzip")
			}
			r := s.DoRaw("GET", c.path, nil, h...)
			itStatus(t, c.name, r, 200)
			check := func(what string, r Response) {
				if got := r.Header.Get("Cache-Control"); got != c.cc {
					t.Errorf("%s %s: Cache-Control %q, want %q", c.name, what, got, c.cc)
				}
				if got := strings.Join(r.Header.Values("Vary"), ", "); got != c.vary {
					t.Errorf("%s %s: Vary %q, want %q", c.name, what, got, c.vary)
				}
			}
			check("200", r)
			again := s.DoRaw("GET", c.path, nil, append(h, "If-None-Match: "+r.Header.Get("ETag"))...)
			itStatus(t, c.name+" revalidated", again, 304)
			check("304", again)
		}
	}
}
