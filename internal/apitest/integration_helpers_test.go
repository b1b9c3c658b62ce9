package apitest

// Helpers shared by the integration tests. Their names start with "it" so
// they cannot collide with other tests of the package.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/google/go-cmp/cmp"
)

// itYAML returns eventDataset with the testdata paths filled in (the
// harness decodes the dataset as if it lived in a temporary directory, so
// relative paths would not resolve).
func itYAML(t testing.TB) string {
	t.Helper()
	return strings.NewReplacer("@HANDOUT@", itTestdata(t, "handout.txt"), "@DRAFT@", itTestdata(t, "draft.txt")).Replace(eventDataset)
}

// itTestdata is the absolute path of a testdata file.
func itTestdata(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// itStart serves the hand-made event.
func itStart(t testing.TB, opts ...Options) *Server {
	t.Helper()
	return Start(t, itYAML(t), opts...)
}

// itDataset decodes the hand-made event, for tests that reload parts of it.
func itDataset(t testing.TB) *dataset.Dataset {
	t.Helper()
	ds, err := dataset.Decode([]byte(itYAML(t)), itTestdata(t, "event.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func itUID(t testing.TB, s *Server, username string) string {
	t.Helper()
	u, err := s.DB.Accounts().UserByUsername(context.Background(), username)
	if err != nil {
		t.Fatalf("user %s: %v", username, err)
	}
	return u.ID
}

// itKey stores a fresh API key for username and returns the secret and id.
func itKey(t testing.TB, s *Server, username, name string, created time.Time) (key, id string) {
	t.Helper()
	key, prefix, hash := secret.NewAPIKey()
	id = ctf.NewID()
	if _, err := s.DB.Accounts().CreateAPIKey(context.Background(), ctf.APIKey{ID: id, UserID: itUID(t, s, username), Name: name,
		Prefix: prefix, Hash: hash, CreatedAt: created}, nil); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	return key, id
}

// itRevokedKey stores a key for username and revokes it.
func itRevokedKey(t testing.TB, s *Server, username string) string {
	t.Helper()
	key, id := itKey(t, s, username, "revoked", time.Now())
	if _, _, err := s.DB.Accounts().RevokeAPIKey(context.Background(), itUID(t, s, username), id, time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	return key
}

// itSession stores a web session for username and returns the cookie header.
func itSession(t testing.TB, s *Server, username string, expires time.Time) string {
	t.Helper()
	token, hash := secret.NewSessionToken()
	if _, err := s.DB.Accounts().CreateSession(context.Background(), ctf.Session{IDHash: hash, UserID: itUID(t, s, username),
		CreatedAt: time.Now().Add(-time.Hour), ExpiresAt: expires, LastSeenAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	return "Cookie: flagship_session=" + token
}

func itDecode(t testing.TB, label string, body []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: body is not JSON: %v: %q", label, err, body)
	}
	itTimes(t, label, v)
	return v
}

// itGet GETs path through the validating client, requires 200 and returns
// the decoded body.
func itGet(t testing.TB, s *Server, path string, headers ...string) any {
	t.Helper()
	r := s.Do("GET", path, nil, headers...)
	if r.Status != 200 {
		t.Fatalf("GET %s: status %d, want 200: %s", path, r.Status, r.Body)
	}
	return itDecode(t, "GET "+path, r.Body)
}

// itSubmit posts {"flag": flag} to slug's submit endpoint.
func itSubmit(s *Server, slug, flag string, headers ...string) Response {
	s.T.Helper()
	body, _ := json.Marshal(map[string]string{"flag": flag})
	return s.Do("POST", "/api/public/challenges/"+slug+"/submit", body, append([]string{"Content-Type: application/json"}, headers...)...)
}

// itError checks an error response: the status and a JSON {error} body
// with a non-empty human sentence.
func itError(t testing.TB, label string, r Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Errorf("%s: status %d, want %d: %s", label, r.Status, status, r.Body)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("%s: Content-Type %q", label, ct)
	}
	var e map[string]any
	if err := json.Unmarshal(r.Body, &e); err != nil {
		t.Errorf("%s: error body is not JSON: %q", label, r.Body)
		return
	}
	if msg, ok := e["error"].(string); !ok || strings.TrimSpace(msg) == "" || len(e) != 1 {
		t.Errorf("%s: error body %s, want {\"error\": \"<sentence>\"}", label, r.Body)
	}
}

// itStatus checks a status.
func itStatus(t testing.TB, label string, r Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Errorf("%s: status %d, want %d: %s", label, r.Status, status, r.Body)
	}
}

// itMatch checks got against want, a JSON text: every key of a wanted
// object must be present in got with a matching value (extra keys in got
// are allowed), arrays must have the same length and match element-wise,
// scalars and null must be equal.
func itMatch(t testing.TB, label string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation %s: %v", label, want, err)
	}
	if diffs := itDiff(got, w, "$"); len(diffs) > 0 {
		t.Errorf("%s:\n  %s", label, strings.Join(diffs, "\n  "))
	}
}

func itDiff(got, want any, path string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: got %s, want an object", path, itShow(got))}
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				out = append(out, fmt.Sprintf("%s.%s: absent, want %s", path, k, itShow(w[k])))
				continue
			}
			out = append(out, itDiff(gv, w[k], path+"."+k)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: got %s, want %s", path, itShow(got), itShow(want))}
		}
		var out []string
		for i := range w {
			out = append(out, itDiff(g[i], w[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	default:
		if !reflect.DeepEqual(got, want) {
			return []string{fmt.Sprintf("%s: got %s, want %s", path, itShow(got), itShow(want))}
		}
		return nil
	}
}

func itShow(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// itAt navigates a decoded JSON value: string keys and int indexes.
func itAt(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k < 0 || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func itNum(v any) int {
	f, _ := v.(float64)
	return int(f)
}

var itTimeRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// itTimes checks the timestamp format of docs/product.md#timestamps-and-ids on every string field whose
// name ends in "At": RFC 3339, UTC, milliseconds.
func itTimes(t testing.TB, label string, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && strings.HasSuffix(k, "At") && !itTimeRE.MatchString(s) {
				t.Errorf("%s: %s = %q is not like 2026-01-05T10:00:00.000Z", label, k, s)
			}
			itTimes(t, label, e)
		}
	case []any:
		for _, e := range x {
			itTimes(t, label, e)
		}
	}
}

// itChal returns the anonymous detail of slug.
func itChal(t testing.TB, s *Server, slug string) map[string]any {
	t.Helper()
	m, _ := itAt(itGet(t, s, "/api/public/challenges/"+slug), "challenge").(map[string]any)
	return m
}

// itCounts returns the anonymous attemptsCount and solvesCount of slug.
func itCounts(t testing.TB, s *Server, slug string) (attempts, solves int) {
	t.Helper()
	c := itChal(t, s, slug)
	return itNum(c["attemptsCount"]), itNum(c["solvesCount"])
}

// itWantCounts checks the anonymous counts of slug.
func itWantCounts(t testing.TB, label string, s *Server, slug string, attempts, solves int) {
	t.Helper()
	a, n := itCounts(t, s, slug)
	if a != attempts || n != solves {
		t.Errorf("%s: %s attemptsCount=%d solvesCount=%d, want %d and %d", label, slug, a, n, attempts, solves)
	}
}

// itBadgeIDs returns the sorted ids of a newBadges array and checks each
// award's shape (id, title, icon, image null).
func itBadgeIDs(t testing.TB, label string, v any) []string {
	t.Helper()
	arr, ok := v.([]any)
	if !ok {
		t.Errorf("%s: newBadges = %s, want an array", label, itShow(v))
		return nil
	}
	ids := []string{}
	for _, b := range arr {
		m, _ := b.(map[string]any)
		id, _ := m["id"].(string)
		title, _ := m["title"].(string)
		icon, _ := m["icon"].(string)
		img, hasImg := m["image"]
		if id == "" || title == "" || icon == "" || !hasImg || img != nil {
			t.Errorf("%s: badge %s: want id, title, icon non-empty and image null", label, itShow(b))
		}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func itSorted(ids ...string) []string {
	out := append([]string{}, ids...)
	sort.Strings(out)
	return out
}

// itBadgesHeld checks a profile's badges: the multiset of (badgeId,
// awardedAt) equals want ("id@time" strings), oldest first.
func itBadgesHeld(t testing.TB, label string, v any, want ...string) {
	t.Helper()
	arr, _ := v.([]any)
	got := []string{}
	prev := ""
	for _, b := range arr {
		id, _ := itAt(b, "badgeId").(string)
		at, _ := itAt(b, "awardedAt").(string)
		if at < prev {
			t.Errorf("%s: badges not oldest first: %s", label, itShow(v))
		}
		prev = at
		got = append(got, id+"@"+at)
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, itSorted(want...)) {
		t.Errorf("%s: badges %v, want %v", label, got, itSorted(want...))
	}
}

func itReadFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func itSlugs(v any) []string {
	var out []string
	arr, _ := itAt(v, "challenges").([]any)
	for _, c := range arr {
		s, _ := itAt(c, "slug").(string)
		out = append(out, s)
	}
	return out
}

// itByslug indexes a challenge list by slug.
func itBySlug(v any) map[string]map[string]any {
	out := map[string]map[string]any{}
	arr, _ := itAt(v, "challenges").([]any)
	for _, c := range arr {
		m, _ := c.(map[string]any)
		s, _ := m["slug"].(string)
		out[s] = m
	}
	return out
}

// itExact checks got equals want (a JSON text) exactly: no extra keys.
func itExact(t testing.TB, label string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation %s: %v", label, want, err)
	}
	if diff := cmp.Diff(w, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", label, diff)
	}
}
