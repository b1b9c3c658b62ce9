package httpx

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCORS: every answer lets any origin read it (and the exposed
// headers); a preflight is answered whole where the door declares methods,
// and goes on to the handler where it does not.
func TestCORS(t *testing.T) {
	full := CORS{Expose: "ETag, Retry-After", Methods: "GET, HEAD, POST, OPTIONS", Headers: "Authorization, X-API-Key"}
	for _, tc := range []struct {
		name   string
		cors   CORS
		method string
		done   bool
		header http.Header
	}{
		{"a GET", full, "GET", false, http.Header{"Access-Control-Allow-Origin": {"*"}, "Access-Control-Expose-Headers": {"ETag, Retry-After"}}},
		{"a preflight", full, "OPTIONS", true, http.Header{"Access-Control-Allow-Origin": {"*"},
			"Access-Control-Expose-Headers": {"ETag, Retry-After"}, "Access-Control-Allow-Methods": {"GET, HEAD, POST, OPTIONS"},
			"Access-Control-Allow-Headers": {"Authorization, X-API-Key"}, "Access-Control-Max-Age": {"600"}}},
		{"origin only", CORS{}, "GET", false, http.Header{"Access-Control-Allow-Origin": {"*"}}},
		{"origin only, OPTIONS", CORS{}, "OPTIONS", false, http.Header{"Access-Control-Allow-Origin": {"*"}}},
	} {
		w := httptest.NewRecorder()
		done := tc.cors.Handle(w, httptest.NewRequest(tc.method, "/x", nil))
		if done != tc.done {
			t.Errorf("%s: done %v, want %v", tc.name, done, tc.done)
		}
		if tc.done && w.Code != http.StatusNoContent {
			t.Errorf("%s: status %d, want 204", tc.name, w.Code)
		}
		wantHeader(t, tc.name, w.Header(), tc.header)
	}
}
