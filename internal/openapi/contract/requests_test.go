package contract

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

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
