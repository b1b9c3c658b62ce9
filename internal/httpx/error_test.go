package httpx

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestErrorBody: the error body's bytes, as every front door has sent
// them: compact, HTML characters escaped, invalid UTF-8 replaced.
func TestErrorBody(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"", `{"error":""}`},
		{"challenge not found", `{"error":"challenge not found"}`},
		{`say "hi"\now`, `{"error":"say \"hi\"\\now"}`},
		{"<b>&</b>", `{"error":"\u003cb\u003e\u0026\u003c/b\u003e"}`},
		{"tab\tline\n", `{"error":"tab\tline\n"}`},
		{"bad \xff byte", `{"error":"bad \ufffd byte"}`},
		{"é ü \u2028", `{"error":"é ü \u2028"}`},
	} {
		if got := string(ErrorBody(tc.msg)); got != tc.want {
			t.Errorf("ErrorBody(%q) = %s, want %s", tc.msg, got, tc.want)
		}
	}
}

// TestWriteError: the whole answer: status, headers, bytes.
func TestWriteError(t *testing.T) {
	w := httptest.NewRecorder()
	WriteError(w, http.StatusNotFound, "no such endpoint: /api/public/x")
	want := `{"error":"no such endpoint: /api/public/x"}`
	if w.Code != http.StatusNotFound || w.Body.String() != want {
		t.Errorf("%d %s, want 404 %s", w.Code, w.Body, want)
	}
	wantHeader(t, "WriteError", w.Header(), http.Header{
		"Content-Type":   {"application/json; charset=utf-8"},
		"Cache-Control":  {"no-store"},
		"Content-Length": {fmt.Sprint(len(want))},
	})
}

// TestFail: a domain error is answered with its status and message, a
// wait as Retry-After (rounded up), a 401 with the Bearer scheme; an
// internal error says nothing of itself to the client and is logged, as an
// unavailable database is (as a warning).
func TestFail(t *testing.T) {
	slow := ctf.Errorf(ctf.RateLimited, "too many wrong flags")
	slow.RetryAfter = 2500 * time.Millisecond
	down := &ctf.Error{Code: ctf.Unavailable, Message: "the database is unavailable", RetryAfter: 5 * time.Second, Cause: errors.New("dial tcp: refused")}
	for _, tc := range []struct {
		name   string
		err    error
		status int
		body   string
		header http.Header // beyond Content-Type, Cache-Control, Content-Length
		log    string      // what the log holds ("" nothing)
	}{
		{"not found", ctf.Errorf(ctf.NotFound, "challenge not found"), 404, `{"error":"challenge not found"}`, http.Header{}, ""},
		{"unauthorized", ctf.Errorf(ctf.Unauthorized, "unknown API key"), 401, `{"error":"unknown API key"}`,
			http.Header{"Www-Authenticate": {`Bearer realm="flagship"`}}, ""},
		{"rate limited", slow, 429, `{"error":"too many wrong flags"}`, http.Header{"Retry-After": {"3"}}, ""},
		{"unavailable", fmt.Errorf("submit: %w", down), 503, `{"error":"the database is unavailable"}`,
			http.Header{"Retry-After": {"5"}}, "level=WARN msg=\"database unavailable\" method=POST path=/api/public/x err=\"submit: the database is unavailable: dial tcp: refused\"\n"},
		{"internal", errors.New("secret detail"), 500, `{"error":"internal server error"}`, http.Header{},
			"level=ERROR msg=\"request failed\" method=POST path=/api/public/x err=\"secret detail\"\n"},
	} {
		var logged bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))
		w := httptest.NewRecorder()
		Fail(w, httptest.NewRequest("POST", "/api/public/x", nil), log, tc.err)
		if w.Code != tc.status || w.Body.String() != tc.body {
			t.Errorf("%s: %d %s, want %d %s", tc.name, w.Code, w.Body, tc.status, tc.body)
		}
		tc.header.Set("Content-Type", "application/json; charset=utf-8")
		tc.header.Set("Cache-Control", "no-store")
		tc.header.Set("Content-Length", fmt.Sprint(len(tc.body)))
		wantHeader(t, tc.name, w.Header(), tc.header)
		if logged.String() != tc.log {
			t.Errorf("%s: logged %q, want %q", tc.name, logged.String(), tc.log)
		}
	}
}

// wantHeader checks that got holds exactly want.
func wantHeader(t *testing.T, what string, got, want http.Header) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: header %v, want %v", what, got, want)
		return
	}
	for k, v := range want {
		if strings.Join(got[k], "\n") != strings.Join(v, "\n") {
			t.Errorf("%s: %s %q, want %q", what, k, got[k], v)
		}
	}
}
