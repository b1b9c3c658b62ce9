package contract

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

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
