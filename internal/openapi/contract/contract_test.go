package contract

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Sample bodies. Each function returns a fresh, valid value.

const ts = "2026-01-05T10:00:00.000Z"

type obj = map[string]any
type arr = []any

func challengeSummary() obj {
	return obj{
		"id":            "0194a3b0-0000-7000-8000-000000000001",
		"slug":          "baby-rsa",
		"categories":    arr{"crypto"},
		"title":         "Baby RSA",
		"description":   "Decrypt the message.",
		"difficulty":    "Easy",
		"points":        100,
		"fileUrl":       "https://ctf.example.com/files/abc/handout.zip",
		"fileName":      "handout.zip",
		"hasInstance":   false,
		"dockerPort":    nil,
		"type":          "standard",
		"attemptsCount": 3,
		"createdAt":     ts,
		"creator":       obj{"id": "u1", "name": "Alice", "username": "alice"},
		"solved":        true,
		"solvesCount":   1,
		"avgStars":      4.5,
	}
}

func minimalChallengeSummary() obj {
	return obj{
		"id":            "c2",
		"slug":          "warmup",
		"categories":    arr{},
		"title":         "Warmup",
		"description":   "",
		"difficulty":    "Insane",
		"points":        0,
		"hasInstance":   true,
		"type":          "standard",
		"attemptsCount": 0,
		"createdAt":     ts,
		"solved":        false,
		"solvesCount":   0,
	}
}

func challengeDetail() obj {
	c := challengeSummary()
	c["unlocked"] = true
	c["submittedFlag"] = "flag{exact}"
	c["avgDifficulty"] = 3.25
	c["totalReviews"] = 2
	c["myReview"] = obj{"stars": 5, "difficulty": 3}
	return c
}

func anonymousChallengeDetail() obj {
	c := minimalChallengeSummary()
	c["unlocked"] = true
	c["submittedFlag"] = nil
	c["avgStars"] = nil
	c["avgDifficulty"] = nil
	c["totalReviews"] = 0
	c["myReview"] = nil
	c["creator"] = nil
	return c
}

func submitResult() obj {
	return obj{"result": obj{
		"success": true,
		"points":  100,
		"newBadges": arr{
			obj{"id": "first-solve", "title": "First solve", "icon": "🚩", "image": nil},
			obj{"id": "first-blood", "title": "First blood", "icon": "drop", "image": "https://ctf.example.com/b.png"},
		},
	}}
}

func writeups() obj {
	return obj{
		"challenge": obj{
			"id":         "c1",
			"title":      "Baby RSA",
			"categories": arr{"crypto"},
			"difficulty": "Easy",
			"points":     100,
		},
		"writeups": arr{
			obj{
				"id":          "w1",
				"userId":      "u1",
				"challengeId": "c1",
				"title":       "Small e",
				"content":     "Cube root.",
				"images":      arr{"https://ctf.example.com/i.png"},
				"status":      "approved",
				"createdAt":   ts,
				"updatedAt":   ts,
				"user":        obj{"username": "alice", "name": nil},
			},
			obj{"id": "w2", "status": "pending"},
		},
	}
}

func leaderboard() obj {
	return obj{"leaderboard": arr{
		obj{
			"id":           "u1",
			"name":         "Alice",
			"username":     "alice",
			"image":        nil,
			"totalPoints":  300,
			"totalSolves":  2,
			"lastSolvedAt": "2026-01-05T11:00:00.000Z",
			"solves": arr{
				obj{"solvedAt": ts, "points": 100},
				obj{"solvedAt": "2026-01-05T11:00:00.000Z", "points": 200},
			},
		},
		obj{
			"id":          "u2",
			"name":        "bob",
			"totalPoints": 100,
			"totalSolves": 1,
			"solves":      arr{obj{"solvedAt": ts, "points": 100}},
		},
	}}
}

func profileChallenge() obj {
	return obj{
		"id":         "c1",
		"slug":       "baby-rsa",
		"title":      "Baby RSA",
		"points":     100,
		"categories": arr{"crypto"},
		"difficulty": "Easy",
		"createdAt":  ts,
	}
}

func publicProfile() obj {
	return obj{
		"id":                "u1",
		"name":              "Alice",
		"username":          "alice",
		"image":             nil,
		"createdAt":         "2026-01-01T00:00:00.000Z",
		"solvedChallenges":  arr{obj{"solvedAt": ts, "challenge": profileChallenge()}},
		"createdChallenges": arr{obj{"id": "c9", "title": "Mine", "points": 50, "categories": arr{}, "difficulty": "Hard"}},
		"badges":            arr{obj{"badgeId": "first-solve", "awardedAt": ts}},
	}
}

func fullPublicProfile() obj {
	p := publicProfile()
	p["rank"] = 1
	p["totalPoints"] = 100
	p["firstBloodCount"] = 1
	p["top3Count"] = 1
	p["categoryCounts"] = obj{"crypto": 1}
	p["difficultyCounts"] = obj{"Easy": 1}
	return p
}

func myProfile() obj {
	p := fullPublicProfile()
	p["email"] = "alice@example.com"
	p["twoFactorEnabled"] = false
	p["mcpApiKeys"] = arr{
		obj{"id": "k1", "name": "laptop", "keyPrefix": "fsk_ab12", "createdAt": ts, "lastUsedAt": nil, "revokedAt": nil},
		obj{"id": "k2", "name": "old", "keyPrefix": "fsk_cd34", "createdAt": ts, "lastUsedAt": ts, "revokedAt": "2026-01-06T00:00:00.000Z"},
	}
	return p
}

func errBody(msg string) obj { return obj{"error": msg} }

// ---------------------------------------------------------------------------
// Mutations. Paths are dotted, with array indices: "challenges.0.points".

func clone(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// walk returns the container holding the last element of path, and that key.
func walk(root any, path string) (any, string) {
	parts := strings.Split(path, ".")
	cur := root
	for _, p := range parts[:len(parts)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			i, _ := strconv.Atoi(p)
			cur = c[i]
		default:
			panic("bad path " + path)
		}
	}
	return cur, parts[len(parts)-1]
}

func set(v any, path string, value any) any {
	out := clone(v)
	c, k := walk(out, path)
	switch c := c.(type) {
	case map[string]any:
		c[k] = value
	case []any:
		i, _ := strconv.Atoi(k)
		c[i] = value
	default:
		panic("bad path " + path)
	}
	return out
}

func del(v any, path string) any {
	out := clone(v)
	c, k := walk(out, path)
	m, ok := c.(map[string]any)
	if !ok {
		panic("bad path " + path)
	}
	if _, ok := m[k]; !ok {
		panic("no field " + path)
	}
	delete(m, k)
	return out
}

func wrap(key string, v any) obj { return obj{key: v} }

// raw is a body given as is.
type raw string

// ---------------------------------------------------------------------------

type exchange struct {
	name    string
	method  string
	path    string
	status  int
	header  http.Header // nil: Content-Type application/json; charset=utf-8
	body    any         // obj, arr, raw, []byte or nil (no body)
	wantErr string      // "" = must pass; else a substring of the error ("!" = any error)
}

// retryAfter is a JSON response's header with Retry-After.
func retryAfter(seconds string) http.Header {
	h := jsonHeader()
	h.Set("Retry-After", seconds)
	return h
}

func jsonHeader() http.Header {
	return http.Header{"Content-Type": {"application/json; charset=utf-8"}}
}

func (e exchange) bytes(t *testing.T) []byte {
	switch b := e.body.(type) {
	case nil:
		return nil
	case raw:
		return []byte(b)
	case []byte:
		return b
	default:
		out, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
}

func gzipped(v any) []byte {
	b, _ := json.Marshal(v)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func newValidator(t testing.TB) *Validator {
	t.Helper()
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func runExchanges(t *testing.T, v *Validator, cases []exchange) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.method+" "+c.path+" "+strconv.Itoa(c.status)+" "+c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, c.path, nil)
			header := c.header
			if header == nil {
				header = jsonHeader()
			}
			err := v.ValidateResponse(req, c.status, header, c.bytes(t))
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("want valid, got %v", err)
			case c.wantErr != "" && err == nil:
				t.Errorf("want an error (%s), got none", c.wantErr)
			case c.wantErr != "" && c.wantErr != "!" && !strings.Contains(err.Error(), c.wantErr):
				t.Errorf("want an error mentioning %q, got %v", c.wantErr, err)
			}
		})
	}
}

const (
	health      = "/api/public/health"
	challenges  = "/api/public/challenges"
	challenge   = "/api/public/challenges/baby-rsa"
	submit      = "/api/public/challenges/baby-rsa/submit"
	writeupsURL = "/api/public/challenges/baby-rsa/writeups"
	board       = "/api/public/leaderboard"
	me          = "/api/public/me"
	profile     = "/api/public/profiles/u1"
)

func TestHealth(t *testing.T) {
	v := newValidator(t)
	runExchanges(t, v, []exchange{
		{name: "ok", method: "GET", path: health, status: 200, body: obj{"ok": true}},
		{name: "ok false on 200", method: "GET", path: health, status: 200, body: obj{"ok": false}, wantErr: "ok"},
		{name: "unhealthy", method: "GET", path: health, status: 503, header: retryAfter("5"), body: obj{"ok": false}},
		{name: "unhealthy without Retry-After", method: "GET", path: health, status: 503, body: obj{"ok": false}, wantErr: "Retry-After"},
		{name: "ok true on 503", method: "GET", path: health, status: 503, header: retryAfter("5"), body: obj{"ok": true}, wantErr: "ok"},
		{name: "ok as string", method: "GET", path: health, status: 200, body: obj{"ok": "true"}, wantErr: "ok"},
		{name: "missing ok", method: "GET", path: health, status: 200, body: obj{}, wantErr: "ok"},
		{name: "extra field", method: "GET", path: health, status: 200, body: obj{"ok": true, "db": "up"}, wantErr: "db"},
		{name: "undeclared 500", method: "GET", path: health, status: 500, body: errBody("boom"), wantErr: "status 500 is not declared"},
		{name: "not modified", method: "GET", path: health, status: 304, header: http.Header{"Etag": {`"abc"`}}},
		{name: "bad api key", method: "GET", path: health, status: 401, body: errBody("invalid API key")},
	})
}

func TestChallengeList(t *testing.T) {
	v := newValidator(t)
	list := wrap("challenges", arr{challengeSummary(), minimalChallengeSummary()})
	get := func(name string, status int, body any, wantErr string) exchange {
		return exchange{name: name, method: "GET", path: challenges, status: status, body: body, wantErr: wantErr}
	}
	runExchanges(t, v, []exchange{
		get("valid", 200, list, ""),
		get("empty", 200, wrap("challenges", arr{}), ""),
		get("missing solvesCount", 200, del(list, "challenges.0.solvesCount"), "solvesCount"),
		get("missing solved", 200, del(list, "challenges.1.solved"), "solved"),
		get("missing type", 200, del(list, "challenges.0.type"), "type"),
		get("missing createdAt", 200, del(list, "challenges.0.createdAt"), "createdAt"),
		get("missing challenges", 200, obj{}, "challenges"),
		get("challenges null", 200, wrap("challenges", nil), "!"),
		get("points as string", 200, set(list, "challenges.0.points", "100"), "points"),
		get("points 1.5", 200, set(list, "challenges.0.points", 1.5), "points"),
		get("points 100.0 is an integer", 200, raw(strings.Replace(mustJSON(list), `"points":100`, `"points":100.0`, 1)), ""),
		get("title null", 200, set(list, "challenges.0.title", nil), "title"),
		get("description null", 200, set(list, "challenges.0.description", nil), "description"),
		get("extra field", 200, set(list, "challenges.0.flag", "flag{leak}"), "flag"),
		get("misspelled field", 200, del(set(list, "challenges.0.solveCount", 1), "challenges.0.solvesCount"), "!"),
		get("difficulty Trivial", 200, set(list, "challenges.0.difficulty", "Trivial"), "difficulty"),
		get("difficulty lowercase", 200, set(list, "challenges.0.difficulty", "easy"), "difficulty"),
		get("difficulty null", 200, set(list, "challenges.0.difficulty", nil), "difficulty"),
		get("categories not strings", 200, set(list, "challenges.0.categories", arr{1}), "categories"),
		get("categories null", 200, set(list, "challenges.0.categories", nil), "categories"),
		get("hasInstance as string", 200, set(list, "challenges.0.hasInstance", "false"), "hasInstance"),
		get("fileUrl null", 200, set(list, "challenges.0.fileUrl", nil), ""),
		get("fileUrl number", 200, set(list, "challenges.0.fileUrl", 5), "fileUrl"),
		get("dockerPort set", 200, set(list, "challenges.0.dockerPort", 1337), ""),
		get("dockerPort string", 200, set(list, "challenges.0.dockerPort", "1337"), "dockerPort"),
		get("attemptsCount negative", 200, set(list, "challenges.0.attemptsCount", -1), "attemptsCount"),
		get("avgStars null", 200, set(list, "challenges.0.avgStars", nil), ""),
		get("avgStars over 5", 200, set(list, "challenges.0.avgStars", 5.5), "avgStars"),
		get("avgStars string", 200, set(list, "challenges.0.avgStars", "4.5"), "avgStars"),
		get("creator null", 200, set(list, "challenges.0.creator", nil), ""),
		get("creator empty", 200, set(list, "challenges.0.creator", obj{}), ""),
		get("creator name null", 200, set(list, "challenges.0.creator.name", nil), ""),
		get("creator id null", 200, set(list, "challenges.0.creator.id", nil), "id"),
		get("creator extra", 200, set(list, "challenges.0.creator.email", "a@example.com"), "email"),
		get("creator string", 200, set(list, "challenges.0.creator", "alice"), "creator"),
		get("createdAt malformed", 200, set(list, "challenges.0.createdAt", "2026-01-05 10:00:00"), "createdAt"),
		get("createdAt not a date", 200, set(list, "challenges.0.createdAt", "yesterday"), "createdAt"),
		get("createdAt impossible month", 200, set(list, "challenges.0.createdAt", "2026-13-05T10:00:00.000Z"), "createdAt"),
		get("createdAt without milliseconds", 200, set(list, "challenges.0.createdAt", "2026-01-05T10:00:00Z"), "createdAt"),
		get("createdAt with offset", 200, set(list, "challenges.0.createdAt", "2026-01-05T10:00:00.000+01:00"), "createdAt"),
		get("createdAt nanoseconds", 200, set(list, "challenges.0.createdAt", "2026-01-05T10:00:00.123456789Z"), "createdAt"),
		get("createdAt epoch number", 200, set(list, "challenges.0.createdAt", 1767607200), "createdAt"),
		get("undeclared 418", 200+218, errBody("teapot"), "status 418 is not declared"),
		get("undeclared 404", 404, errBody("not found"), "status 404 is not declared"),
		get("500", 500, errBody("internal error"), ""),
		get("401", 401, errBody("invalid API key"), ""),
		get("500 empty error", 500, errBody(""), "error"),
		get("500 other shape", 500, obj{"message": "boom"}, "!"),
		get("500 extra field", 500, obj{"error": "boom", "code": 7}, "code"),
		get("500 error null", 500, errBody2(nil), "error"),
		get("304", 304, nil, ""),
		get("304 with body", 304, list, "no body"),
		get("body not JSON", 200, raw("<html>"), "not valid JSON"),
		get("trailing garbage", 200, raw(mustJSON(list)+"garbage"), "not valid JSON"),
		get("two JSON values", 200, raw(mustJSON(list)+mustJSON(list)), "not valid JSON"),
		get("empty body", 200, nil, "empty body"),
		get("array instead of object", 200, arr{challengeSummary()}, "!"),
	})

	// Headers.
	body := []byte(mustJSON(list))
	for _, c := range []struct {
		name    string
		header  http.Header
		body    []byte
		wantErr bool
	}{
		{"no charset", http.Header{"Content-Type": {"application/json"}}, body, false},
		{"charset upper case", http.Header{"Content-Type": {"application/json; charset=UTF-8"}}, body, false},
		{"missing Content-Type", http.Header{}, body, true},
		{"text/plain", http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, body, true},
		{"text/html", http.Header{"Content-Type": {"text/html"}}, body, true},
		{"latin-1", http.Header{"Content-Type": {"application/json; charset=iso-8859-1"}}, body, true},
		{"problem+json", http.Header{"Content-Type": {"application/problem+json"}}, body, true},
		{"gzip", http.Header{"Content-Type": {"application/json"}, "Content-Encoding": {"gzip"}}, gzipped(list), false},
		{"gzip of an invalid body", http.Header{"Content-Type": {"application/json"}, "Content-Encoding": {"gzip"}},
			gzipped(del(list, "challenges.0.solvesCount")), true},
		{"gzip header, plain body", http.Header{"Content-Type": {"application/json"}, "Content-Encoding": {"gzip"}}, body, true},
		{"nil header", nil, body, true},
	} {
		t.Run("header "+c.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", challenges, nil)
			err := v.ValidateResponse(req, 200, c.header, c.body)
			if (err != nil) != c.wantErr {
				t.Errorf("wantErr %v, got %v", c.wantErr, err)
			}
		})
	}
}

func errBody2(v any) obj { return obj{"error": v} }

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestChallengeDetail(t *testing.T) {
	v := newValidator(t)
	d := wrap("challenge", challengeDetail())
	get := func(name string, status int, body any, wantErr string) exchange {
		return exchange{name: name, method: "GET", path: challenge, status: status, body: body, wantErr: wantErr}
	}
	runExchanges(t, v, []exchange{
		get("valid", 200, d, ""),
		get("anonymous", 200, wrap("challenge", anonymousChallengeDetail()), ""),
		get("summary shape lacks unlocked", 200, wrap("challenge", challengeSummary()), "unlocked"),
		get("missing unlocked", 200, del(d, "challenge.unlocked"), "unlocked"),
		get("missing submittedFlag (required, nullable)", 200, del(d, "challenge.submittedFlag"), "submittedFlag"),
		get("submittedFlag null", 200, set(d, "challenge.submittedFlag", nil), ""),
		get("missing totalReviews", 200, del(d, "challenge.totalReviews"), "totalReviews"),
		get("missing myReview (optional)", 200, del(d, "challenge.myReview"), ""),
		get("missing avgDifficulty (optional)", 200, del(d, "challenge.avgDifficulty"), ""),
		get("missing solvesCount", 200, del(d, "challenge.solvesCount"), "solvesCount"),
		get("myReview stars 6", 200, set(d, "challenge.myReview.stars", 6), "stars"),
		get("myReview stars 0", 200, set(d, "challenge.myReview.stars", 0), "stars"),
		get("myReview stars 4.5", 200, set(d, "challenge.myReview.stars", 4.5), "stars"),
		get("myReview difficulty 11", 200, set(d, "challenge.myReview.difficulty", 11), "difficulty"),
		get("myReview difficulty 10", 200, set(d, "challenge.myReview.difficulty", 10), ""),
		get("myReview without difficulty", 200, del(d, "challenge.myReview.difficulty"), "difficulty"),
		get("myReview extra", 200, set(d, "challenge.myReview.comment", "nice"), "comment"),
		get("myReview empty", 200, set(d, "challenge.myReview", obj{}), "!"),
		get("avgDifficulty 11", 200, set(d, "challenge.avgDifficulty", 11), "avgDifficulty"),
		get("unlocked null", 200, set(d, "challenge.unlocked", nil), "unlocked"),
		get("extra field", 200, set(d, "challenge.flags", arr{"flag{x}"}), "flags"),
		get("title null", 200, set(d, "challenge.title", nil), "title"),
		get("challenge null", 200, wrap("challenge", nil), "!"),
		get("404", 404, errBody("challenge not found"), ""),
		get("401", 401, errBody("invalid API key"), ""),
		get("403 undeclared", 403, errBody("locked"), "status 403 is not declared"),
		get("304", 304, nil, ""),
	})
}

func TestSubmit(t *testing.T) {
	v := newValidator(t)
	r := submitResult()
	post := func(name string, status int, body any, wantErr string) exchange {
		return exchange{name: name, method: "POST", path: submit, status: status, body: body, wantErr: wantErr}
	}
	retry := func(value string) http.Header {
		h := jsonHeader()
		if value != "" {
			h.Set("Retry-After", value)
		}
		return h
	}
	cases := []exchange{
		post("valid", 200, r, ""),
		post("no new badge", 200, set(r, "result.newBadges", arr{}), ""),
		post("newBadges missing", 200, del(r, "result.newBadges"), "newBadges"),
		post("newBadges null", 200, set(r, "result.newBadges", nil), "newBadges"),
		post("success missing", 200, del(r, "result.success"), "success"),
		post("points as string", 200, set(r, "result.points", "100"), "points"),
		post("points 1.5", 200, set(r, "result.points", 1.5), "points"),
		post("badge image missing (required, nullable)", 200, del(r, "result.newBadges.0.image"), "image"),
		post("badge icon null", 200, set(r, "result.newBadges.0.icon", nil), "icon"),
		post("badge extra", 200, set(r, "result.newBadges.0.awardedAt", ts), "awardedAt"),
		post("result extra", 200, set(r, "result.correct", true), "correct"),
		post("result null", 200, wrap("result", nil), "!"),
		post("unwrapped result", 200, r["result"], "!"),
		post("400", 400, errBody("wrong flag"), ""),
		post("401", 401, errBody("authentication required"), ""),
		post("403 locked", 403, errBody("challenge is locked"), ""),
		post("404", 404, errBody("challenge not found"), ""),
		post("409", 409, errBody("challenge already solved"), ""),
		post("413", 413, errBody("request body too large"), ""),
		post("500", 500, errBody("internal error"), ""),
		post("422 undeclared", 422, errBody("nope"), "status 422 is not declared"),
		post("304 undeclared on POST", 304, nil, "status 304 is not declared"),
		{name: "429 with Retry-After", method: "POST", path: submit, status: 429, header: retry("30"), body: errBody("too many wrong submissions")},
		{name: "429 without Retry-After", method: "POST", path: submit, status: 429, header: retry(""), body: errBody("slow down"), wantErr: "Retry-After"},
		{name: "429 Retry-After not seconds", method: "POST", path: submit, status: 429, header: retry("soon"), body: errBody("slow down"), wantErr: "Retry-After"},
		{name: "429 bad body", method: "POST", path: submit, status: 429, header: retry("30"), body: obj{"retryAfter": 30}, wantErr: "!"},
	}
	runExchanges(t, v, cases)
}

func TestWriteups(t *testing.T) {
	v := newValidator(t)
	w := writeups()
	get := func(name string, status int, body any, wantErr string) exchange {
		return exchange{name: name, method: "GET", path: writeupsURL, status: status, body: body, wantErr: wantErr}
	}
	runExchanges(t, v, []exchange{
		get("valid", 200, w, ""),
		get("no writeups", 200, set(w, "writeups", arr{}), ""),
		get("empty writeup (no field required)", 200, set(w, "writeups.1", obj{}), ""),
		get("status draft", 200, set(w, "writeups.0.status", "draft"), "status"),
		get("status rejected", 200, set(w, "writeups.0.status", "rejected"), ""),
		get("writeup extra", 200, set(w, "writeups.0.votes", 3), "votes"),
		get("writeup title null", 200, set(w, "writeups.0.title", nil), "title"),
		get("images not strings", 200, set(w, "writeups.0.images", arr{obj{}}), "images"),
		get("user extra", 200, set(w, "writeups.0.user.email", "a@example.com"), "email"),
		get("user username null", 200, set(w, "writeups.0.user.username", nil), ""),
		get("updatedAt malformed", 200, set(w, "writeups.0.updatedAt", "2026-01-05"), "updatedAt"),
		get("writeups missing", 200, del(w, "writeups"), "writeups"),
		get("challenge missing points", 200, del(w, "challenge.points"), "points"),
		get("challenge difficulty bad", 200, set(w, "challenge.difficulty", "Trivial"), "difficulty"),
		get("challenge extra", 200, set(w, "challenge.slug", "baby-rsa"), "slug"),
		get("challenge missing", 200, del(w, "challenge"), "challenge"),
		get("401", 401, errBody("authentication required"), ""),
		get("403", 403, errBody("solve the challenge first"), ""),
		get("404", 404, errBody("challenge not found"), ""),
		get("500", 500, errBody("internal error"), ""),
		get("409 undeclared", 409, errBody("conflict"), "status 409 is not declared"),
		get("304", 304, nil, ""),
	})
}

func TestLeaderboard(t *testing.T) {
	v := newValidator(t)
	l := leaderboard()
	get := func(name string, status int, body any, wantErr string) exchange {
		return exchange{name: name, method: "GET", path: board, status: status, body: body, wantErr: wantErr}
	}
	runExchanges(t, v, []exchange{
		get("valid", 200, l, ""),
		get("empty", 200, wrap("leaderboard", arr{}), ""),
		get("lastSolvedAt null", 200, set(l, "leaderboard.0.lastSolvedAt", nil), ""),
		get("username null", 200, set(l, "leaderboard.0.username", nil), ""),
		get("name null", 200, set(l, "leaderboard.0.name", nil), "name"),
		get("name missing", 200, del(l, "leaderboard.0.name"), "name"),
		get("solves missing", 200, del(l, "leaderboard.1.solves"), "solves"),
		get("solve without solvedAt", 200, del(l, "leaderboard.0.solves.0.solvedAt"), "solvedAt"),
		get("solve extra", 200, set(l, "leaderboard.0.solves.0.challengeId", "c1"), "challengeId"),
		get("solve points string", 200, set(l, "leaderboard.0.solves.0.points", "100"), "points"),
		get("totalSolves string", 200, set(l, "leaderboard.0.totalSolves", "2"), "totalSolves"),
		get("totalPoints float", 200, set(l, "leaderboard.0.totalPoints", 300.5), "totalPoints"),
		get("entry extra", 200, set(l, "leaderboard.0.rank", 1), "rank"),
		get("lastSolvedAt malformed", 200, set(l, "leaderboard.0.lastSolvedAt", "05/01/2026"), "lastSolvedAt"),
		get("undeclared 418", 418, errBody("teapot"), "status 418 is not declared"),
		get("500", 500, errBody("internal error"), ""),
		get("304", 304, nil, ""),
	})
}

func TestMe(t *testing.T) {
	v := newValidator(t)
	p := wrap("profile", myProfile())
	get := func(name string, status int, body any, wantErr string) exchange {
		return exchange{name: name, method: "GET", path: me, status: status, body: body, wantErr: wantErr}
	}
	runExchanges(t, v, []exchange{
		get("valid", 200, p, ""),
		get("without optional fields", 200, del(del(del(p, "profile.mcpApiKeys"), "profile.categoryCounts"), "profile.difficultyCounts"), ""),
		get("without rank", 200, del(p, "profile.rank"), "rank"),
		get("without totalPoints", 200, del(p, "profile.totalPoints"), "totalPoints"),
		get("without firstBloodCount", 200, del(p, "profile.firstBloodCount"), "firstBloodCount"),
		get("without top3Count", 200, del(p, "profile.top3Count"), "top3Count"),
		get("rank null", 200, set(p, "profile.rank", nil), "rank"),
		get("rank 0 (admin)", 200, set(p, "profile.rank", 0), ""),
		get("without email (required, nullable)", 200, del(p, "profile.email"), "email"),
		get("email null", 200, set(p, "profile.email", nil), ""),
		get("email malformed", 200, set(p, "profile.email", "not an email"), "email"),
		get("without twoFactorEnabled", 200, del(p, "profile.twoFactorEnabled"), "twoFactorEnabled"),
		get("without badges", 200, del(p, "profile.badges"), "badges"),
		get("name null", 200, set(p, "profile.name", nil), ""),
		get("name missing", 200, del(p, "profile.name"), "name"),
		get("api key with secret", 200, set(p, "profile.mcpApiKeys.0.key", "fsk_secret"), "key"),
		get("api key without keyPrefix", 200, del(p, "profile.mcpApiKeys.0.keyPrefix"), "keyPrefix"),
		get("api key revokedAt malformed", 200, set(p, "profile.mcpApiKeys.1.revokedAt", "revoked"), "revokedAt"),
		get("api key lastUsedAt missing", 200, del(p, "profile.mcpApiKeys.0.lastUsedAt"), ""),
		get("categoryCounts string value", 200, set(p, "profile.categoryCounts.crypto", "1"), "crypto"),
		get("solved challenge bad difficulty", 200, set(p, "profile.solvedChallenges.0.challenge.difficulty", "Trivial"), "difficulty"),
		get("solved challenge without title", 200, del(p, "profile.solvedChallenges.0.challenge.title"), "title"),
		get("solved challenge without slug (optional)", 200, del(p, "profile.solvedChallenges.0.challenge.slug"), ""),
		get("solved challenge extra", 200, set(p, "profile.solvedChallenges.0.challenge.description", "x"), "description"),
		get("solve without solvedAt", 200, del(p, "profile.solvedChallenges.0.solvedAt"), "solvedAt"),
		get("badge without awardedAt", 200, del(p, "profile.badges.0.awardedAt"), "awardedAt"),
		get("badge extra", 200, set(p, "profile.badges.0.title", "First"), "title"),
		get("profile extra", 200, set(p, "profile.passwordHash", "x"), "passwordHash"),
		get("profile null", 200, wrap("profile", nil), "!"),
		get("401", 401, errBody("authentication required"), ""),
		get("500", 500, errBody("internal error"), ""),
		get("404 undeclared", 404, errBody("no such user"), "status 404 is not declared"),
		get("304", 304, nil, ""),
	})
}

func TestPublicProfile(t *testing.T) {
	v := newValidator(t)
	p := wrap("profile", publicProfile())
	full := wrap("profile", fullPublicProfile())
	get := func(name string, status int, body any, wantErr string) exchange {
		return exchange{name: name, method: "GET", path: profile, status: status, body: body, wantErr: wantErr}
	}
	runExchanges(t, v, []exchange{
		get("valid", 200, p, ""),
		get("valid with stats", 200, full, ""),
		get("profile null", 200, wrap("profile", nil), ""),
		{name: "profile null, other id", method: "GET", path: "/api/public/profiles/x", status: 200, body: wrap("profile", nil)},
		get("profile missing", 200, obj{}, "profile"),
		get("with email", 200, set(p, "profile.email", "alice@example.com"), "email"),
		get("with email null", 200, set(p, "profile.email", nil), "email"),
		get("with twoFactorEnabled", 200, set(p, "profile.twoFactorEnabled", false), "twoFactorEnabled"),
		get("with mcpApiKeys", 200, set(p, "profile.mcpApiKeys", arr{}), "mcpApiKeys"),
		get("name missing", 200, del(p, "profile.name"), "name"),
		get("name null", 200, set(p, "profile.name", nil), ""),
		get("image missing", 200, del(p, "profile.image"), "image"),
		get("id null", 200, set(p, "profile.id", nil), "id"),
		get("createdAt malformed", 200, set(p, "profile.createdAt", "2026-01-01"), "createdAt"),
		get("rank string", 200, set(full, "profile.rank", "1"), "rank"),
		get("rank negative", 200, set(full, "profile.rank", -1), "rank"),
		get("created challenge without difficulty", 200, del(p, "profile.createdChallenges.0.difficulty"), "difficulty"),
		get("500", 500, errBody("internal error"), ""),
		get("404 undeclared", 404, errBody("no such user"), "status 404 is not declared"),
		get("304", 304, nil, ""),
	})
}

func TestRouting(t *testing.T) {
	v := newValidator(t)
	allow := func(methods string) http.Header {
		h := jsonHeader()
		h.Set("Allow", methods)
		return h
	}
	runExchanges(t, v, []exchange{
		{name: "405 on POST leaderboard", method: "POST", path: board, status: 405, header: allow("GET, HEAD"), body: errBody("method not allowed")},
		{name: "405 on GET submit", method: "GET", path: submit, status: 405, header: allow("POST"), body: errBody("method not allowed")},
		{name: "405 on DELETE profile", method: "DELETE", path: profile, status: 405, header: allow("GET, HEAD"), body: errBody("method not allowed")},
		{name: "405 without Allow", method: "DELETE", path: board, status: 405, body: errBody("method not allowed"), wantErr: "Allow"},
		{name: "405 bad body", method: "DELETE", path: board, status: 405, header: allow("GET"), body: raw("Method Not Allowed"), wantErr: "!"},
		{name: "405 on a documented method is fine too", method: "GET", path: board, status: 405, header: allow("GET"), body: errBody("nope")},
		{name: "200 on an undocumented method", method: "DELETE", path: board, status: 200, body: leaderboard(), wantErr: "not in the OpenAPI document"},
		{name: "unknown route", method: "GET", path: "/api/public/nope", status: 404, body: errBody("not found"), wantErr: "not in the OpenAPI document"},
		{name: "trailing slash", method: "GET", path: "/api/public/leaderboard/", status: 200, body: leaderboard(), wantErr: "not in the OpenAPI document"},
		{name: "query string is ignored", method: "GET", path: board + "?page=2", status: 200, body: leaderboard()},
		{name: "HEAD", method: "HEAD", path: board, status: 200},
		{name: "HEAD 304", method: "HEAD", path: board, status: 304},
		{name: "HEAD with a body", method: "HEAD", path: board, status: 200, body: leaderboard(), wantErr: "no body"},
		{name: "HEAD undeclared status", method: "HEAD", path: board, status: 404, wantErr: "status 404 is not declared"},
		{name: "HEAD 405 on submit", method: "HEAD", path: submit, status: 405, header: allow("POST")},
		{name: "HEAD 405 without Allow", method: "HEAD", path: submit, status: 405, wantErr: "Allow"},
		{name: "HEAD 200 on submit", method: "HEAD", path: submit, status: 200, wantErr: "not in the OpenAPI document"},
		{name: "escaped slug", method: "GET", path: "/api/public/challenges/a%2Fb", status: 404, body: errBody("challenge not found")},
	})

	// The sentinel error.
	req := httptest.NewRequest("GET", "/api/public/nope", nil)
	err := v.ValidateResponse(req, 404, jsonHeader(), []byte(`{"error":"not found"}`))
	if !errors.Is(err, ErrUndocumentedRoute) {
		t.Errorf("unknown route: want ErrUndocumentedRoute, got %v", err)
	}

	// A client-side request, with an absolute URL.
	req, _ = http.NewRequest("GET", "http://127.0.0.1:8080"+health, nil)
	if err := v.ValidateResponse(req, 200, jsonHeader(), []byte(`{"ok":true}`)); err != nil {
		t.Errorf("absolute URL: %v", err)
	}
	if err := v.ValidateResponse(nil, 200, jsonHeader(), nil); err == nil {
		t.Error("nil request: want an error")
	}
}

func TestValidateRequest(t *testing.T) {
	v := newValidator(t)
	for _, c := range []struct {
		name    string
		method  string
		path    string
		ct      string
		body    string
		wantErr bool
	}{
		{"valid flag", "POST", submit, "application/json", `{"flag":"flag{x}"}`, false},
		{"with charset", "POST", submit, "application/json; charset=utf-8", `{"flag":"flag{x}"}`, false},
		{"one character", "POST", submit, "application/json", `{"flag":"x"}`, false},
		{"empty flag", "POST", submit, "application/json", `{"flag":""}`, true},
		{"no flag", "POST", submit, "application/json", `{}`, true},
		{"flag null", "POST", submit, "application/json", `{"flag":null}`, true},
		{"flag number", "POST", submit, "application/json", `{"flag":1}`, true},
		{"flag array", "POST", submit, "application/json", `{"flag":["x"]}`, true},
		{"not JSON", "POST", submit, "application/json", `flag{x}`, true},
		{"JSON array", "POST", submit, "application/json", `[{"flag":"x"}]`, true},
		{"no body", "POST", submit, "application/json", ``, true},
		{"form body", "POST", submit, "application/x-www-form-urlencoded", `flag=x`, true},
		{"GET without auth (security is not checked)", "GET", me, "", ``, false},
		{"GET list", "GET", challenges, "", ``, false},
		{"unknown route", "GET", "/api/public/nope", "", ``, true},
		{"wrong method", "GET", submit, "", ``, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var req *http.Request
			if c.body != "" || c.method == "POST" {
				req = httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
			} else {
				req = httptest.NewRequest(c.method, c.path, nil)
			}
			if c.ct != "" {
				req.Header.Set("Content-Type", c.ct)
			}
			err := v.ValidateRequest(req)
			if (err != nil) != c.wantErr {
				t.Errorf("wantErr %v, got %v", c.wantErr, err)
			}
		})
	}

	// The body stays readable.
	req := httptest.NewRequest("POST", submit, strings.NewReader(`{"flag":"flag{x}"}`))
	req.Header.Set("Content-Type", "application/json")
	if err := v.ValidateRequest(req); err != nil {
		t.Fatal(err)
	}
	var got struct{ Flag string }
	if err := json.NewDecoder(req.Body).Decode(&got); err != nil || got.Flag != "flag{x}" {
		t.Errorf("body after ValidateRequest: %+v, %v", got, err)
	}
	if err := v.ValidateRequest(httptest.NewRequest("GET", "/api/public/nope", nil)); !errors.Is(err, ErrUndocumentedRoute) {
		t.Errorf("unknown route: want ErrUndocumentedRoute, got %v", err)
	}
}

// ---------------------------------------------------------------------------
// The document itself.

func TestDocument(t *testing.T) {
	v := newValidator(t)
	doc := v.Document()
	if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if doc.Info == nil || doc.Info.Version != "1.0.0" {
		t.Errorf("info.version, want 1.0.0")
	}

	const (
		none     = "none"
		optional = "optional"
		required = "required"
	)
	// Statuses per operation: the contract's success and error statuses,
	// plus docs/product.md's (submit 403, 413, 429; health 503; 401 for a bad
	// API key everywhere; 304 on GETs; 405 everywhere), plus the
	// leaderboard's 400 for a bad limit or offset (an extension).
	want := map[string]struct {
		auth     string
		statuses []int
	}{
		"GET /api/public/health":                     {none, []int{200, 304, 401, 405, 503}},
		"GET /api/public/challenges":                 {optional, []int{200, 304, 401, 405, 500}},
		"GET /api/public/challenges/{slug}":          {optional, []int{200, 304, 401, 404, 405, 500}},
		"POST /api/public/challenges/{slug}/submit":  {required, []int{200, 400, 401, 403, 404, 405, 409, 413, 429, 500, 503}},
		"GET /api/public/challenges/{slug}/writeups": {required, []int{200, 304, 401, 403, 404, 405, 500}},
		"GET /api/public/leaderboard":                {none, []int{200, 304, 400, 401, 405, 500}},
		"GET /api/public/me":                         {required, []int{200, 304, 401, 405, 500}},
		"GET /api/public/profiles/{userId}":          {none, []int{200, 304, 401, 405, 500}},
	}
	// The contract's error statuses, which must all be declared.
	contractErrors := map[string][]int{
		"GET /api/public/challenges":                 {500},
		"GET /api/public/challenges/{slug}":          {404, 500},
		"POST /api/public/challenges/{slug}/submit":  {400, 401, 404, 409, 500},
		"GET /api/public/challenges/{slug}/writeups": {401, 403, 404, 500},
		"GET /api/public/leaderboard":                {500},
		"GET /api/public/me":                         {401, 500},
		"GET /api/public/profiles/{userId}":          {500},
		"GET /api/public/health":                     {},
	}

	if n := doc.Paths.Len(); n != 8 {
		t.Errorf("%d paths, want 8: %v", n, doc.Paths.InMatchingOrder())
	}
	seen := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + path
			seen[key] = true
			w, ok := want[key]
			if !ok {
				t.Errorf("unexpected operation %s", key)
				continue
			}
			var got []int
			for code := range op.Responses.Map() {
				n, err := strconv.Atoi(code)
				if err != nil {
					t.Errorf("%s: response %q is not a status code", key, code)
					continue
				}
				got = append(got, n)
			}
			sort.Ints(got)
			if !slices.Equal(got, w.statuses) {
				t.Errorf("%s: statuses %v, want %v", key, got, w.statuses)
			}
			for _, code := range contractErrors[key] {
				if !slices.Contains(got, code) {
					t.Errorf("%s: the contract's status %d is not declared", key, code)
				}
			}
			for _, code := range got {
				resp := op.Responses.Status(code).Value
				mt := resp.Content.Get("application/json")
				switch {
				case code == 304:
					if len(resp.Content) != 0 {
						t.Errorf("%s: 304 declares a body", key)
					}
				case mt == nil || mt.Schema == nil:
					t.Errorf("%s: %d declares no application/json body", key, code)
				case code >= 400 && !(key == "GET /api/public/health" && code == 503):
					if mt.Schema.Ref != "#/components/schemas/ErrorResponse" {
						t.Errorf("%s: %d body is %q, want ErrorResponse", key, code, mt.Schema.Ref)
					}
				}
			}
			for _, code := range []int{429, 503} {
				if !slices.Contains(got, code) {
					continue
				}
				if h := op.Responses.Status(code).Value.Headers["Retry-After"]; h == nil || !h.Value.Required {
					t.Errorf("%s: %d without a required Retry-After header", key, code)
				}
			}

			// Security.
			if op.Security == nil {
				t.Errorf("%s: no security declared", key)
				continue
			}
			sec := *op.Security
			hasEmpty := slices.ContainsFunc(sec, func(r openapi3.SecurityRequirement) bool { return len(r) == 0 })
			schemes := map[string]bool{}
			for _, r := range sec {
				for name := range r {
					schemes[name] = true
				}
			}
			switch w.auth {
			case none:
				if len(sec) != 0 {
					t.Errorf("%s: security %v, want none", key, sec)
				}
			case optional, required:
				if hasEmpty != (w.auth == optional) {
					t.Errorf("%s: empty requirement present = %v, want auth %s", key, hasEmpty, w.auth)
				}
				for _, s := range []string{"bearerAuth", "apiKeyAuth", "sessionCookie"} {
					if !schemes[s] {
						t.Errorf("%s: scheme %s not accepted", key, s)
					}
				}
			}
		}
	}
	for key := range want {
		if !seen[key] {
			t.Errorf("missing operation %s", key)
		}
	}

	// Security schemes.
	ss := doc.Components.SecuritySchemes
	if s := ss["bearerAuth"]; s == nil || s.Value.Type != "http" || s.Value.Scheme != "bearer" {
		t.Error("bearerAuth: want http bearer")
	}
	if s := ss["apiKeyAuth"]; s == nil || s.Value.Type != "apiKey" || s.Value.In != "header" || s.Value.Name != "X-API-Key" {
		t.Error("apiKeyAuth: want apiKey in header X-API-Key")
	}
	if s := ss["sessionCookie"]; s == nil || s.Value.Type != "apiKey" || s.Value.In != "cookie" || s.Value.Name != "flagship_session" {
		t.Error("sessionCookie: want apiKey in cookie flagship_session")
	}

	// Submit's request body.
	op := doc.Paths.Value("/api/public/challenges/{slug}/submit").Post
	if op.RequestBody == nil || !op.RequestBody.Value.Required {
		t.Fatal("submit: request body not required")
	}
	flag := op.RequestBody.Value.Content.Get("application/json").Schema.Value
	if !slices.Contains(flag.Required, "flag") || flag.Properties["flag"].Value.MinLength != 1 {
		t.Error("submit: want {flag: string, minLength 1} required")
	}

	// The contract's resources, strict where the contract defines them fully.
	schemas := doc.Components.Schemas
	for _, name := range []string{
		"ChallengeDifficulty", "ChallengeSummary", "ChallengeDetail", "ChallengeCreator",
		"ChallengeReview", "SubmitFlagResult", "BadgeAward", "LeaderboardEntry", "LeaderboardSolve",
		"PublicProfile", "MyProfile", "ProfileSolve", "ProfileChallenge", "ProfileBadge", "McpApiKey",
		"ChallengeWriteupsResponse", "Writeup", "ErrorResponse",
	} {
		ref := schemas[name]
		if ref == nil {
			t.Errorf("schema %s missing", name)
			continue
		}
		s := ref.Value
		if name == "ChallengeDifficulty" {
			if !slices.Equal(s.Enum, []any{"Easy", "Medium", "Hard", "Insane"}) {
				t.Errorf("ChallengeDifficulty enum %v", s.Enum)
			}
			continue
		}
		if !s.Type.Includes("object") {
			t.Errorf("schema %s: type %v, want object", name, s.Type)
		}
		if s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has {
			t.Errorf("schema %s: want additionalProperties: false", name)
		}
	}
	if !schemas["ChallengeCreator"].Value.Type.IncludesNull() {
		t.Error("ChallengeCreator: want object or null")
	}
	my := schemas["MyProfile"].Value
	for _, f := range []string{"rank", "totalPoints", "firstBloodCount", "top3Count", "email", "twoFactorEnabled"} {
		if !slices.Contains(my.Required, f) {
			t.Errorf("MyProfile: %s not required", f)
		}
	}
	if slices.Contains(schemas["PublicProfile"].Value.Required, "rank") {
		t.Error("PublicProfile: rank is optional")
	}
	if schemas["PublicProfile"].Value.Properties["email"] != nil {
		t.Error("PublicProfile: must not have email")
	}
}

func TestConcurrentUse(t *testing.T) {
	v := newValidator(t)
	body := []byte(mustJSON(leaderboard()))
	bad := []byte(mustJSON(del(leaderboard(), "leaderboard.0.name")))
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest("GET", board, nil)
			if err := v.ValidateResponse(req, 200, jsonHeader(), body); err != nil {
				t.Errorf("%d: %v", i, err)
			}
			if err := v.ValidateResponse(req, 200, jsonHeader(), bad); err == nil {
				t.Errorf("%d: want an error", i)
			}
		}()
	}
	wg.Wait()
}

// TestErrorMessage shows what a failure looks like, so that a test failing
// in another package points at the field at fault.
func TestErrorMessage(t *testing.T) {
	v := newValidator(t)
	req := httptest.NewRequest("GET", challenges, nil)
	body := mustJSON(del(wrap("challenges", arr{challengeSummary()}), "challenges.0.solvesCount"))
	err := v.ValidateResponse(req, 200, jsonHeader(), []byte(body))
	if err == nil {
		t.Fatal("want an error")
	}
	t.Log(err)
	for _, want := range []string{"GET /api/public/challenges", "200", "solvesCount"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestNullabilityBothValidators checks OpenAPI 3.1 nullability (type arrays
// with "null", anyOf with {"type": "null"}) on both validators kin-openapi
// uses for 3.1 documents (see the package comment).
func TestNullabilityBothValidators(t *testing.T) {
	v := newValidator(t)
	schemas := v.Document().Components.Schemas
	opts := []openapi3.SchemaValidationOption{openapi3.EnableJSONSchema2020(), openapi3.VisitAsResponse()}
	visit := func(name string, value any) error {
		return schemas[name].Value.VisitJSON(clone(value), opts...)
	}

	// ChallengeCreator has no $ref: JSON Schema 2020-12 validator.
	for _, c := range []struct {
		value any
		ok    bool
	}{
		{nil, true},
		{obj{}, true},
		{obj{"id": "u1", "name": nil, "username": nil}, true},
		{obj{"id": nil}, false},
		{obj{"name": 1}, false},
		{obj{"email": "x"}, false},
		{"alice", false},
	} {
		if err := visit("ChallengeCreator", c.value); (err == nil) != c.ok {
			t.Errorf("ChallengeCreator %s: ok %v, got %v", mustJSON(c.value), c.ok, err)
		}
	}
	// ChallengeSummary refers to other components: kin-openapi's validator.
	s := challengeSummary()
	for _, c := range []struct {
		value any
		ok    bool
	}{
		{s, true},
		{set(s, "fileUrl", nil), true},
		{set(s, "dockerPort", nil), true},
		{set(s, "avgStars", nil), true},
		{set(s, "creator", nil), true},
		{set(s, "title", nil), false},
		{set(s, "points", nil), false},
		{set(s, "difficulty", nil), false},
		{set(s, "createdAt", nil), false},
		{set(s, "categories", nil), false},
	} {
		if err := visit("ChallengeSummary", c.value); (err == nil) != c.ok {
			t.Errorf("ChallengeSummary %s: ok %v, got %v", mustJSON(c.value), c.ok, err)
		}
	}
	if err := visit("ChallengeSummary", nil); err == nil {
		t.Error("ChallengeSummary null: want an error")
	}
	// anyOf [$ref, null].
	for _, c := range []struct {
		value any
		ok    bool
	}{
		{wrap("profile", nil), true},
		{wrap("profile", publicProfile()), true},
		{wrap("profile", obj{}), false},
		{wrap("profile", "u1"), false},
	} {
		if err := visit("PublicProfileResponse", c.value); (err == nil) != c.ok {
			t.Errorf("PublicProfileResponse %s: ok %v, got %v", mustJSON(c.value), c.ok, err)
		}
	}
	props := schemas["ChallengeDetail"].Value.Properties
	for name, want := range map[string]bool{"fileUrl": true, "submittedFlag": true, "avgDifficulty": true, "title": false, "unlocked": false} {
		if got := props[name].Value.PermitsNull(openapi3.EnableJSONSchema2020()); got != want {
			t.Errorf("ChallengeDetail.%s PermitsNull = %v, want %v", name, got, want)
		}
	}
}
