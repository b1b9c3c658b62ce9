package apitest

import (
	"bytes"
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/transfer"
)

const biYAML = `
users:
  - {username: player, name: Player One, email: player@example.com}
  - {username: second, email: second@example.com}
challenges:
  - {slug: target, title: Target, categories: [misc], difficulty: Easy, points: 100, flags: ['flag{target}']}
  - {slug: other, title: Other, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{other}']}
`

// biFixedNow pins the server clock so that the only write an authenticated
// read may make (an API key's lastUsedAt, at most once a minute) happens on
// the first request and never again during the test.
func biFixedNow() func() time.Time {
	at := time.Now().UTC().Truncate(time.Millisecond)
	return func() time.Time { return at }
}

// biWorld is what a request could change, as the API and the database see it.
type biWorld struct {
	target, other cxChallenge
	me            []byte // raw /me body
	dump          *dataset.Dataset
}

func biSnapshot(t *testing.T, s *Server, key string) biWorld {
	t.Helper()
	var w biWorld
	w.target = cxGetChallenge(t, s, "target", cxKeyHeader(key))
	w.other = cxGetChallenge(t, s, "other", cxKeyHeader(key))
	ex := cxSend(s, "GET", "/api/public/me", nil, cxKeyHeader(key))
	if ex.Err != nil || ex.Status != 200 {
		t.Fatalf("GET /me: %d %v", ex.Status, ex.Err)
	}
	w.me = ex.Body
	d, err := transfer.Dump(context.Background(), s.DB)
	if err != nil {
		t.Fatal(err)
	}
	w.dump = d
	return w
}

// biSameWorld reports what differs between two snapshots.
func biSameWorld(t *testing.T, what string, before, after biWorld) {
	t.Helper()
	if before.target.AttemptsCount != after.target.AttemptsCount || before.target.SolvesCount != after.target.SolvesCount ||
		before.other.AttemptsCount != after.other.AttemptsCount || before.other.SolvesCount != after.other.SolvesCount {
		t.Errorf("%s: counts changed: target %d/%d -> %d/%d, other %d/%d -> %d/%d (attempts/solves)", what,
			before.target.AttemptsCount, before.target.SolvesCount, after.target.AttemptsCount, after.target.SolvesCount,
			before.other.AttemptsCount, before.other.SolvesCount, after.other.AttemptsCount, after.other.SolvesCount)
	}
	if !bytes.Equal(before.me, after.me) {
		t.Errorf("%s: /me changed:\nbefore %s\nafter  %s", what, truncate(before.me), truncate(after.me))
	}
	if !reflect.DeepEqual(before.dump, after.dump) {
		t.Errorf("%s: the database changed: %d -> %d attempts, %d -> %d solves", what,
			len(before.dump.Attempts), len(after.dump.Attempts), len(before.dump.Solves), len(after.dump.Solves))
	}
}

// biCheckError checks a 4xx cxExchange: status, JSON error body, contract.
func biCheckError(t *testing.T, s *Server, what string, ex cxExchange, want ...int) string {
	t.Helper()
	if ex.Err != nil {
		t.Errorf("%s: %v", what, ex.Err)
		return ""
	}
	ok := false
	for _, w := range want {
		ok = ok || ex.Status == w
	}
	if !ok {
		t.Errorf("%s: status %d, want %v; body %s", what, ex.Status, want, truncate(ex.Body))
	}
	if ex.Status >= 500 {
		t.Errorf("%s: server error %d", what, ex.Status)
	}
	if ct := ex.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q, want JSON", what, ct)
	}
	msg, err := cxErrorMessage(ex.Body)
	if err != nil {
		t.Errorf("%s: %v", what, err)
	}
	if err := cxValidate(s, ex); err != nil {
		t.Errorf("%s: %v", what, err)
	}
	return msg
}

func biWithCT(h http.Header, ct string) http.Header {
	h = h.Clone()
	if ct == "" {
		h.Del("Content-Type")
	} else {
		h.Set("Content-Type", ct)
	}
	return h
}
