package httpx

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// PresentedKey modes: which headers a fuzzed request carries.
const (
	pkAuth      = 1 << iota // Authorization: auth
	pkX                     // X-API-Key: xkey
	pkAuthTwice             // a second Authorization header (value xkey)
	pkXTwice                // a second X-API-Key header (value auth)
)

// FuzzPresentedKey: PresentedKey never panics; without the headers the
// caller is anonymous; with any of them the key counts as presented, and it
// is either an Unauthorized error or a non-empty key without surrounding
// whitespace, taken from the headers.
func FuzzPresentedKey(f *testing.F) {
	const key = "fsk_abcdefgh_abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrstuvwxyz"
	seeds := []struct {
		auth, xkey string
		mode       byte
	}{
		{"Bearer " + key, "", pkAuth},
		{"bearer " + key, "", pkAuth},
		{"Bearer", "", pkAuth},
		{"Bearer  ", "", pkAuth},
		{"Bearer \t ", "", pkAuth},
		{"", "", pkAuth},
		{"Basic dXNlcjpwYXNz", "", pkAuth},
		{"Bearer " + key + " extra", "", pkAuth},
		{"Bearer sk_live_4eC39HqLyjWDarjtT1zdp7dc", "", pkAuth},
		{"Bearer \xff\xfe\xc3\xa9", "", pkAuth},
		{"Bearer\u00a0" + key, "", pkAuth},
		{"Bearer \u0085", "", pkAuth},
		{"Bearer " + strings.Repeat("k", 10<<10), "", pkAuth},
		{"", "", pkX},
		{"", "  " + key + " ", pkX},
		{"Bearer " + key, key, pkAuth | pkX},
		{"Bearer " + key, "other", pkAuth | pkX},
		{"Bearer " + key, "", pkAuth | pkX},
		{"Bearer " + key, "Bearer " + key, pkAuth | pkAuthTwice},
		{key, key, pkX | pkXTwice},
		{"", "", 0},
	}
	for _, s := range seeds {
		f.Add(s.auth, s.xkey, s.mode)
	}
	f.Fuzz(func(t *testing.T, auth, xkey string, mode byte) {
		r, err := http.NewRequest("GET", "http://flagship.test/api/public/me", nil)
		if err != nil {
			t.Fatal(err)
		}
		// Set the header map directly: the server may receive bytes a client
		// library would refuse to send.
		if mode&pkAuth != 0 {
			r.Header["Authorization"] = append(r.Header["Authorization"], auth)
		}
		if mode&pkX != 0 {
			r.Header["X-Api-Key"] = append(r.Header["X-Api-Key"], xkey)
		}
		if mode&pkAuthTwice != 0 {
			r.Header["Authorization"] = append(r.Header["Authorization"], xkey)
		}
		if mode&pkXTwice != 0 {
			r.Header["X-Api-Key"] = append(r.Header["X-Api-Key"], auth)
		}
		// Only Authorization values with the Bearer scheme present a key.
		var bearer []string
		for _, a := range r.Header["Authorization"] {
			if scheme, _, _ := strings.Cut(strings.TrimSpace(a), " "); strings.EqualFold(scheme, "Bearer") {
				bearer = append(bearer, a)
			}
		}
		hasAuth := len(bearer) > 0
		_, hasX := r.Header["X-Api-Key"]
		got, present, err := PresentedKey(r)
		if !hasAuth && !hasX {
			if got != "" || present || err != nil {
				t.Fatalf("no Bearer nor X-API-Key in %q: PresentedKey = %q, %v, %v; want anonymous", r.Header, got, present, err)
			}
			return
		}
		if !present {
			t.Fatalf("headers %q: present false; a presented key must never read as anonymous", r.Header)
		}
		if err != nil {
			var ce *ctf.Error
			if !errors.As(err, &ce) || ce.Code != ctf.Unauthorized || strings.TrimSpace(ce.Message) == "" {
				t.Fatalf("headers %q: error %T %v, want an Unauthorized *ctf.Error with a message", r.Header, err, err)
			}
			if got != "" {
				t.Fatalf("headers %q: key %q along with error %v", r.Header, got, err)
			}
			return
		}
		if got == "" {
			t.Fatalf("headers %q: empty key without error", r.Header)
		}
		if got != strings.TrimSpace(got) {
			t.Fatalf("headers %q: key %q has surrounding whitespace", r.Header, got)
		}
		if len(bearer) > 1 || len(r.Header["X-Api-Key"]) > 1 {
			t.Fatalf("headers %q: repeated header accepted as key %q", r.Header, got)
		}
		// Expectations come from the header values as sent (the mode may put
		// either fuzzed string in either header).
		if hasAuth {
			a := bearer[0]
			if _, _, ok := strings.Cut(strings.TrimSpace(a), " "); !ok {
				t.Fatalf("Authorization %q without a token accepted as key %q", a, got)
			}
			if !strings.HasSuffix(strings.TrimSpace(a), got) {
				t.Fatalf("Authorization %q: key %q is not its token", a, got)
			}
		}
		if hasX {
			if x := r.Header["X-Api-Key"][0]; got != strings.TrimSpace(x) {
				t.Fatalf("X-API-Key %q: key %q", x, got)
			}
		}
	})
}
