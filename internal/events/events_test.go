package events_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/events"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/testtime"
)

// TestMain drops the package's PostgreSQL test database, if the tests made
// one (FLAGSHIP_TEST_BACKEND=postgres).
func TestMain(m *testing.M) { storetest.Main(m) }

const event = `
users:
  - {username: root, email: root@example.com, role: admin}
  - {username: alice, name: Alice A., email: alice@example.com}
  - {username: bob, email: bob@example.com}
  - {username: carol, email: carol@example.com}
challenges:
  - {slug: warmup, title: Warmup, categories: [misc], difficulty: Easy, points: 50, flags: ['flag{warm}']}
  - {slug: crypto-one, title: Crypto One, categories: [crypto], difficulty: Medium, points: 200, flags: ['flag{c1}']}
  - {slug: web-two, title: Web Two, categories: [web], difficulty: Hard, points: 300, flags: ['flag{w2}']}
`

// wait bounds every wait of these tests: only so a broken stream fails
// the test instead of hanging it, never a measure of speed.
var wait = testtime.Scale(20 * time.Second)

// sse is a Server-Sent Events message as a client parses it: an event, or
// a comment (Comment set).
type sse struct {
	ID, Event, Data string
	Retry           string
	Comment         string
}

// client is a minimal SSE client over a real HTTP connection.
type client struct {
	t      *testing.T
	resp   *http.Response
	msgs   chan sse
	cancel context.CancelFunc
}

// connect opens the stream at url+path with the given headers ("Name:
// value") and checks the response's headers.
func connect(t *testing.T, url string, headers ...string) *client {
	t.Helper()
	resp, cancel := get(t, url, headers...)
	if resp.StatusCode != 200 {
		cancel()
		resp.Body.Close()
		t.Fatalf("GET %s: status %d", url, resp.StatusCode)
	}
	for k, want := range map[string]string{"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	c := &client{t: t, resp: resp, msgs: make(chan sse, 1000), cancel: cancel}
	go c.read()
	t.Cleanup(c.close)
	return c
}

// get sends GET url with the given headers ("Name: value"); cancel ends
// the request and its body.
func get(t *testing.T, url string, headers ...string) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return resp, cancel
}

func (c *client) close() {
	c.cancel()
	c.resp.Body.Close()
}

// read parses the stream as the HTML standard says (fields, comments, a
// blank line ends a message) until the connection ends.
func (c *client) read() {
	defer close(c.msgs)
	sc := bufio.NewScanner(c.resp.Body)
	var m sse
	var data []string
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if m.Event != "" || data != nil || m.ID != "" || m.Retry != "" {
				m.Data = strings.Join(data, "\n")
				c.msgs <- m
			}
			m, data = sse{}, nil
			continue
		}
		if rest, ok := strings.CutPrefix(line, ":"); ok {
			c.msgs <- sse{Comment: strings.TrimPrefix(rest, " ")}
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			m.ID = value
		case "event":
			m.Event = value
		case "data":
			data = append(data, value)
		case "retry":
			m.Retry = value
		default:
			c.t.Errorf("unknown SSE field in %q", line)
		}
	}
}

// next returns the next message that is not a comment.
func (c *client) next() sse {
	c.t.Helper()
	for {
		m := c.nextAny()
		if m.Comment == "" && m.Retry == "" {
			return m
		}
	}
}

// nextAny returns the next message, comments included.
func (c *client) nextAny() sse {
	c.t.Helper()
	select {
	case m, ok := <-c.msgs:
		if !ok {
			c.t.Fatal("the stream ended")
		}
		return m
	case <-time.After(wait):
		c.t.Fatal("no message on the stream")
	}
	return sse{}
}

func submit(t *testing.T, s *apitest.Server, slug, flag, key string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"flag": flag})
	r := s.Do("POST", "/api/public/challenges/"+slug+"/submit", body, "Content-Type: application/json", apitest.Bearer(key))
	if r.Status != 200 {
		t.Fatalf("submit %s on %s: %d %s", flag, slug, r.Status, r.Body)
	}
}

func announce(t *testing.T, s *apitest.Server, title, body string) live.AnnouncementView {
	t.Helper()
	a, err := s.Svc.Event.PostAnnouncement(context.Background(), ctf.Operator, title, body, "")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

type solveData struct {
	User struct {
		ID, Username, Name string
		Agent              bool
	}
	Challenge  struct{ ID, Slug, Title string }
	Points     int
	Value      int
	Rank       int
	FirstBlood bool
	At         string
}

func decode[T any](t *testing.T, m sse) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(m.Data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("event %s %s: data %s: %v", m.ID, m.Event, m.Data, err)
	}
	return v
}

func uid(t *testing.T, s *apitest.Server, username string) string {
	t.Helper()
	u, err := s.DB.Accounts().UserByUsername(context.Background(), username)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// TestSolveOnAReachesBOnce: a client of replica B sees a solve made through
// replica A's API once, with its fields; a second solver is rank 2.
func TestSolveOnAReachesBOnce(t *testing.T) {
	a := apitest.Start(t, event)
	b := a.Replica(store.RateLimit{Max: 10, Window: time.Minute})
	c := connect(t, b.URL+"/api/events")

	submit(t, a, "warmup", "flag{warm}", a.Key("alice"))
	b.Sync()
	m := c.next()
	if m.Event != "solve" {
		t.Fatalf("first event %+v, want a solve", m)
	}
	first, err := strconv.ParseInt(m.ID, 10, 64)
	if err != nil {
		t.Fatalf("id %q: %v", m.ID, err)
	}
	got := decode[solveData](t, m)
	if got.User.ID != uid(t, a, "alice") || got.User.Username != "alice" || got.User.Name != "Alice A." || got.User.Agent ||
		got.Challenge.Slug != "warmup" || got.Challenge.Title != "Warmup" || got.Challenge.ID == "" ||
		got.Points != 50 || got.Rank != 1 || !got.FirstBlood {
		t.Errorf("solve %+v", got)
	}
	if at, err := time.Parse(ctf.TimeFormat, got.At); err != nil || ctf.FormatTime(at) != got.At {
		t.Errorf("at %q is not RFC 3339 UTC with milliseconds", got.At)
	}

	// B catching up again, and A catching up, relay nothing twice: the
	// next event B's client sees is bob's solve.
	b.Sync()
	a.Sync()
	submit(t, b, "warmup", "flag{warm}", a.Key("bob"))
	b.Sync()
	m = c.next()
	if m.Event != "solve" {
		t.Fatalf("second event %+v, want bob's solve", m)
	}
	if n, _ := strconv.ParseInt(m.ID, 10, 64); n <= first {
		t.Errorf("ids %d then %s: not increasing", first, m.ID)
	}
	got = decode[solveData](t, m)
	if got.User.Username != "bob" || got.User.Name != "bob" || got.Rank != 2 || got.FirstBlood {
		t.Errorf("the second solve %+v, want bob, rank 2, no first blood", got)
	}
}

// TestResumeMissesNothing: a client that reconnects with the last id it
// read gets exactly the events after it; so does a fresh EventSource
// with ?after=, and the header wins over the parameter.
func TestResumeMissesNothing(t *testing.T) {
	s := apitest.Start(t, event)
	start := s.Svc.Stream.LastEvent()
	whole := connect(t, s.URL+"/api/events")
	keys := map[string]string{"alice": s.Key("alice"), "bob": s.Key("bob"), "carol": s.Key("carol")}
	submit(t, s, "warmup", "flag{warm}", keys["alice"])
	submit(t, s, "crypto-one", "flag{c1}", keys["alice"])
	submit(t, s, "warmup", "flag{warm}", keys["bob"])
	ann := announce(t, s, "Hint for Web Two", "Look at the **headers**.\n\nSecond paragraph.")
	submit(t, s, "web-two", "flag{w2}", keys["carol"])
	submit(t, s, "crypto-one", "flag{c1}", keys["bob"])
	s.Sync()

	var all []sse
	for range 6 {
		all = append(all, whole.next())
	}
	kinds := []string{}
	for _, m := range all {
		kinds = append(kinds, m.Event)
	}
	if strings.Join(kinds, ",") != "solve,solve,solve,announcement,solve,solve" {
		t.Fatalf("kinds %v", kinds)
	}
	type annData struct {
		ID, Title, Body string
		Challenge       *struct{ ID, Slug, Title string }
		At              string
	}
	if got := decode[annData](t, all[3]); got.ID != ann.ID || got.Title != "Hint for Web Two" ||
		got.Body != "Look at the **headers**.\n\nSecond paragraph." || got.Challenge != nil || got.At == "" {
		t.Errorf("announcement %+v", got)
	}
	if !strings.Contains(all[3].Data, `"challenge":null`) {
		t.Errorf("announcement without a challenge: %s", all[3].Data)
	}

	// A client reads three, drops, and comes back with Last-Event-ID.
	first := connect(t, s.URL+"/api/events?after="+strconv.FormatInt(start, 10))
	for i := range 3 {
		if m := first.next(); m != all[i] {
			t.Fatalf("from ?after=%d, event %d: %+v, want %+v", start, i, m, all[i])
		}
	}
	first.close()
	// As an EventSource reconnects: its first URL, and the header.
	again := connect(t, s.URL+"/api/events?after="+strconv.FormatInt(start, 10), "Last-Event-ID: "+all[2].ID)
	for i := 3; i < 6; i++ {
		if m := again.next(); m != all[i] {
			t.Fatalf("after reconnecting at %s, event %d: %+v, want %+v", all[2].ID, i, m, all[i])
		}
	}
	// Nothing repeated after them: the next is the next event made.
	announce(t, s, "Sentinel", "")
	s.Sync()
	if m := again.next(); m.Event != "announcement" || !strings.Contains(m.Data, "Sentinel") {
		t.Fatalf("after the six, %+v, want the sentinel", m)
	}
	if m := whole.next(); m.Event != "announcement" || !strings.Contains(m.Data, "Sentinel") {
		t.Fatalf("the continuous client after the six: %+v, want the sentinel", m)
	}
}

// TestPrivateSolvesAreNotSent: an admin's solve and a solve made during a
// freeze reach no client (their numbers are skipped).
func TestPrivateSolvesAreNotSent(t *testing.T) {
	s := apitest.Start(t, event)
	c := connect(t, s.URL+"/api/events")
	ctx := context.Background()
	submit(t, s, "warmup", "flag{warm}", s.Key("root"))
	past := time.Now().Add(-time.Minute)
	if _, err := s.Svc.Event.Set(ctx, ctf.Operator, ctf.Event{Freeze: &past}); err != nil {
		t.Fatal(err)
	}
	submit(t, s, "warmup", "flag{warm}", s.Key("alice"))
	s.Sync()
	announce(t, s, "Sentinel", "")
	s.Sync()
	for {
		m := c.next()
		if m.Event == "announcement" {
			if !strings.Contains(m.Data, "Sentinel") {
				t.Fatalf("announcement %s", m.Data)
			}
			break
		}
		if m.Event == "solve" {
			t.Fatalf("a private solve was sent: %s", m.Data)
		}
	}

	// A client resuming from before them skips them too.
	r := connect(t, s.URL+"/api/events?after=0")
	for {
		m := r.next()
		if m.Event == "solve" {
			t.Fatalf("a private solve was sent on resuming: %s", m.Data)
		}
		if m.Event == "announcement" {
			break
		}
	}
}

// TestBadResumePoint: a Last-Event-ID or after that is not a
// non-negative integer is a 400 with a JSON error; a wrong method a 405.
func TestBadResumePoint(t *testing.T) {
	s := apitest.Start(t, "")
	for _, c := range []struct{ header, query string }{
		{"abc", ""}, {"-1", ""}, {"1.5", ""}, {"+3", ""}, {"0x10", ""}, {"99999999999999999999", ""}, {"٣", ""},
		{"", "after=x"}, {"", "after=-2"}, {"", "after="},
	} {
		var h []string
		if c.header != "" {
			h = append(h, "Last-Event-ID: "+c.header)
		}
		path := "/api/events"
		if c.query != "" {
			path += "?" + c.query
		}
		r := s.DoRaw("GET", path, nil, h...)
		if r.Status != 400 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("Last-Event-ID %q, %q: %d %s", c.header, c.query, r.Status, r.Body)
			continue
		}
		var e struct{ Error string }
		if err := json.Unmarshal(r.Body, &e); err != nil || e.Error == "" {
			t.Errorf("Last-Event-ID %q, %q: body %s", c.header, c.query, r.Body)
		}
	}
	r := s.DoRaw("POST", "/api/events", nil)
	if r.Status != 405 || r.Header.Get("Allow") != "GET" {
		t.Errorf("POST: %d, Allow %q", r.Status, r.Header.Get("Allow"))
	}
}

// TestHeartbeat: a quiet stream gets "retry" first, then ": ping"
// comments.
func TestHeartbeat(t *testing.T) {
	s := apitest.Start(t, "")
	h := events.New(s.Svc, nil)
	h.Heartbeat = 20 * time.Millisecond
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	c := connect(t, hs.URL)
	if m := c.nextAny(); m.Retry != "3000" {
		t.Fatalf("first message %+v, want retry: 3000", m)
	}
	for range 3 {
		if m := c.nextAny(); m.Comment != "ping" {
			t.Fatalf("message %+v, want a ping", m)
		}
	}
}

// TestOutlivesServerTimeouts: the server's WriteTimeout (a minute in
// production) does not cut a stream, and a shutdown ends streams rather
// than waiting for them.
func TestOutlivesServerTimeouts(t *testing.T) {
	s := apitest.Start(t, "")
	h := events.New(s.Svc, nil)
	h.Heartbeat = 20 * time.Millisecond
	srv := &http.Server{Handler: h, WriteTimeout: 50 * time.Millisecond, ReadTimeout: 50 * time.Millisecond}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	c := connect(t, "http://"+ln.Addr().String()+"/api/events")
	c.nextAny() // retry
	// Pings keep coming well past both timeouts.
	deadline := time.Now().Add(200 * time.Millisecond)
	for n := 0; n < 3 || time.Now().Before(deadline); n++ {
		if m := c.nextAny(); m.Comment != "ping" {
			t.Fatalf("message %+v, want a ping", m)
		}
	}
	a := announce(t, s, "Still here", "")
	s.Sync()
	if m := c.next(); m.Event != "announcement" || !strings.Contains(m.Data, a.ID) {
		t.Fatalf("after the timeouts: %+v", m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with a stream open: %v", err)
	}
	<-done
	for m := range c.msgs {
		_ = m // drain until the stream ends
	}
}

// TestFrameShapes: the clock's events carry their instant; every data
// line is one line of JSON.
func TestFrameShapes(t *testing.T) {
	s := apitest.Start(t, event)
	c := connect(t, s.URL+"/api/events")
	past := time.Now().Add(-time.Minute)
	if _, err := s.Svc.Event.Set(context.Background(), ctf.Operator, ctf.Event{Start: &past}); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	announce(t, s, "Sentinel", "line one\r\nline two\u2028three")
	s.Sync()
	for {
		m := c.next()
		if !json.Valid([]byte(m.Data)) || strings.ContainsAny(m.Data, "\r\n") {
			t.Fatalf("data of %s: %q", m.Event, m.Data)
		}
		switch m.Event {
		case "started", "frozen", "unfrozen", "ended":
			if d := decode[struct{ At string }](t, m); d.At == "" {
				t.Errorf("%s without at: %s", m.Event, m.Data)
			}
		case "announcement":
			var d struct{ Body string }
			json.Unmarshal([]byte(m.Data), &d)
			if d.Body != "line one\r\nline two\u2028three" {
				t.Errorf("body %q", d.Body)
			}
			return
		default:
			t.Fatalf("unexpected %s: %s", m.Event, fmt.Sprint(m.Data))
		}
	}
}
