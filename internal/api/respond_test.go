package api

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

// TestSharedHeaderValues: the header values an answer is given as they
// are, shared by every answer, are what Header.Set would have written:
// the public CORS of an answer that is not a preflight, and the caching
// headers of each audience.
func TestSharedHeaderValues(t *testing.T) {
	t.Parallel()
	want, got := httptest.NewRecorder(), http.Header{}
	publicCORS.Handle(want, httptest.NewRequest(http.MethodGet, "/api/public/challenges", nil))
	setPublicCORS(got)
	if !reflect.DeepEqual(got, want.Header()) {
		t.Errorf("CORS headers %v, want %v", got, want.Header())
	}
	for a, w := range map[audience][2]string{
		anyone:    {"no-cache", "Accept-Encoding"},
		anonymous: {"no-cache", varyCredentials},
		caller:    {"private, no-cache", varyCredentials},
	} {
		got, want := http.Header{}, http.Header{}
		setCaching(got, a)
		want.Set("Cache-Control", w[0])
		want.Set("Vary", w[1])
		if !reflect.DeepEqual(got, want) {
			t.Errorf("audience %d: %v, want %v", a, got, want)
		}
	}
	// An Add after a shared value copies it: no other answer sees it.
	hd := http.Header{}
	setCaching(hd, anyone)
	hd.Add("Vary", "Origin")
	if len(varyEncoding) != 1 || varyEncoding[0] != "Accept-Encoding" {
		t.Errorf("an Add wrote into the shared value: %v", varyEncoding)
	}
}
