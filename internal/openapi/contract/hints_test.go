package contract

import (
	"net/http"
	"testing"
)

const (
	hintsURL  = "/api/public/challenges/baby-rsa/hints"
	unlockURL = "/api/public/challenges/baby-rsa/hints/2/unlock"
)

// hintList is a player's list: the first hint unlocked, the second locked
// behind it.
func hintList() obj {
	return obj{"hints": arr{
		obj{"id": 1, "cost": 30, "unlocked": true, "content": "Look at **e**.", "requires": nil},
		obj{"id": 2, "cost": 0, "unlocked": false, "content": nil, "requires": 1},
	}}
}

func TestHints(t *testing.T) {
	v := newValidator(t)
	l := hintList()
	get := func(name string, status int, body any, wantErr string) exchange {
		return exchange{name: name, method: "GET", path: hintsURL, status: status, body: body, wantErr: wantErr}
	}
	runExchanges(t, v, []exchange{
		get("valid", 200, l, ""),
		get("no hints", 200, obj{"hints": arr{}}, ""),
		get("hints null", 200, obj{"hints": nil}, "hints"),
		get("hints missing", 200, obj{}, "hints"),
		get("content missing (required, nullable)", 200, del(l, "hints.1.content"), "content"),
		get("requires missing (required, nullable)", 200, del(l, "hints.0.requires"), "requires"),
		get("cost negative", 200, set(l, "hints.0.cost", -1), "cost"),
		get("id 0", 200, set(l, "hints.0.id", 0), "id"),
		get("unlocked null", 200, set(l, "hints.0.unlocked", nil), "unlocked"),
		get("hint extra", 200, set(l, "hints.0.title", "x"), "title"),
		get("401", 401, errBody("invalid API key"), ""),
		get("404", 404, errBody("challenge not found"), ""),
		get("403 undeclared", 403, errBody("nope"), "status 403 is not declared"),
		get("304", 304, nil, ""),
	})
	h := l["hints"].(arr)[0]
	allow := http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Allow": {"POST"}}
	post := func(name string, status int, body any, wantErr string) exchange {
		return exchange{name: name, method: "POST", path: unlockURL, status: status, body: body, wantErr: wantErr}
	}
	runExchanges(t, v, []exchange{
		post("valid", 200, h, ""),
		post("wrapped", 200, obj{"hint": h}, "!"),
		post("401", 401, errBody("authentication required"), ""),
		post("403", 403, errBody("unlock hint 1 first: this hint requires it"), ""),
		post("404", 404, errBody("hint not found"), ""),
		{name: "404 for an id that is not a number", method: "POST", path: "/api/public/challenges/baby-rsa/hints/abc/unlock",
			status: 404, body: errBody("hint not found")},
		{name: "503", method: "POST", path: unlockURL, status: 503, header: retryAfter("5"), body: errBody("try again")},
		post("409 undeclared", 409, errBody("conflict"), "status 409 is not declared"),
		{name: "405 on GET", method: "GET", path: unlockURL, status: 405, header: allow, body: errBody("method not allowed")},
	})
}
