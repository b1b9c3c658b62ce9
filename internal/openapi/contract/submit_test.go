package contract

import (
	"net/http"
	"testing"
)

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
