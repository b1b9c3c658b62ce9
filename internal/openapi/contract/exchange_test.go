package contract

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

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
