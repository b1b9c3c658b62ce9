package httpx

import (
	"net/http/httptest"
	"testing"
)

// TestPresentedKey: a key comes as Authorization: Bearer or X-API-Key, or
// both when they agree; anything else that names a key is a refusal, never
// an anonymous caller; other Authorization schemes are not keys.
func TestPresentedKey(t *testing.T) {
	const key = "fsk_abcdefgh_abcdefghijklmnopqrstuvwxyz234567"
	for _, tc := range []struct {
		name    string
		auth    []string // Authorization values, in order
		xkey    []string // X-API-Key values, in order
		key     string
		present bool
		err     error
	}{
		{name: "nothing"},
		{name: "bearer", auth: []string{"Bearer " + key}, key: key, present: true},
		{name: "bearer in lower case", auth: []string{"bearer " + key}, key: key, present: true},
		{name: "bearer with spaces around", auth: []string{"  Bearer   " + key + "  "}, key: key, present: true},
		{name: "x-api-key", xkey: []string{key}, key: key, present: true},
		{name: "x-api-key with spaces around", xkey: []string{"  " + key + "\t"}, key: key, present: true},
		{name: "both, agreeing", auth: []string{"Bearer " + key}, xkey: []string{key}, key: key, present: true},
		{name: "basic is no key", auth: []string{"Basic dXNlcjpwYXNz"}},
		{name: "basic beside a key", auth: []string{"Basic dXNlcjpwYXNz", "Bearer " + key}, key: key, present: true},
		{name: "empty authorization", auth: []string{""}},
		{name: "bearer without a token", auth: []string{"Bearer"}, present: true, err: errBadHeader},
		{name: "bearer with blank token", auth: []string{"Bearer  \t "}, present: true, err: errBadHeader},
		{name: "two bearers", auth: []string{"Bearer " + key, "Bearer " + key}, present: true, err: errBadHeader},
		{name: "two x-api-keys", xkey: []string{key, key}, present: true, err: errBadHeader},
		{name: "empty x-api-key", xkey: []string{""}, present: true, err: ErrNoKey},
		{name: "blank x-api-key", xkey: []string{"   "}, present: true, err: ErrNoKey},
		{name: "both, differing", auth: []string{"Bearer " + key}, xkey: []string{"other"}, present: true, err: errTwoKeys},
		{name: "bearer and an empty x-api-key", auth: []string{"Bearer " + key}, xkey: []string{""}, present: true, err: errTwoKeys},
		{name: "a token with a space", auth: []string{"Bearer " + key + " extra"}, key: key + " extra", present: true},
	} {
		r := httptest.NewRequest("GET", "/api/public/me", nil)
		// Set the map directly: a server may receive what a client library
		// would refuse to send.
		if tc.auth != nil {
			r.Header["Authorization"] = tc.auth
		}
		if tc.xkey != nil {
			r.Header["X-Api-Key"] = tc.xkey
		}
		key, present, err := PresentedKey(r)
		if key != tc.key || present != tc.present || err != tc.err {
			t.Errorf("%s: PresentedKey = %q, %v, %v; want %q, %v, %v", tc.name, key, present, err, tc.key, tc.present, tc.err)
		}
	}
}
