// Package events serves the live stream at /api/events as Server-Sent
// Events: every public event of the platform's stream (solves,
// announcements, releases, the clock's moves) in the order the database
// committed them, resumable with Last-Event-ID. It is a front door and
// holds no rule: what is public, and in what order, is platform's.
//
// A client costs the handler's own goroutine (and net/http's connection
// reader) and no more: events are read from the replica's shared ring in
// batches (platform.Stream.RecentEvents, memory only: no client makes the
// database work), waiting is on the ring's shared broadcast (WaitEvents),
// and each event is encoded once for all clients. How many streams a
// replica holds, and one client address holds, is capped (limits.go).
package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/flagshipctf/flagship/internal/clientaddr"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/httpx"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
)

// Defaults of a Handler's tunables.
const (
	// DefaultHeartbeat keeps proxies and load balancers, which drop
	// connections idle for a minute or so, from closing a quiet stream.
	DefaultHeartbeat = 15 * time.Second
	// DefaultWriteTimeout bounds one batch's write: a client that stops
	// reading is let go rather than holding its goroutine forever.
	DefaultWriteTimeout = 30 * time.Second
	// batchSize is how many events one read of the ring takes; a client
	// far behind catches up in batches, flushing after each.
	batchSize = 256
	// retryMillis is the reconnection delay suggested to clients.
	retryMillis = 3000
)

// Handler serves the live stream of one platform.Service.
type Handler struct {
	svc *platform.Service
	log *slog.Logger
	// Heartbeat is the interval of the ": ping" comment sent on a quiet
	// stream; WriteTimeout bounds each write. Set before serving.
	Heartbeat    time.Duration
	WriteTimeout time.Duration
	// MaxStreams caps the streams this handler holds open at once
	// (≤ 0: DefaultMaxStreams). Set before serving.
	MaxStreams int

	frames frameCache
	slots  slots

	mu       sync.Mutex
	shutdown map[*http.Server]context.Context // cancelled when that server shuts down
}

// New returns the live stream's handler over svc.
func New(svc *platform.Service, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Handler{svc: svc, log: log, Heartbeat: DefaultHeartbeat, WriteTimeout: DefaultWriteTimeout,
		shutdown: map[*http.Server]context.Context{}}
}

// ServeHTTP streams the public events after the client's resume point (at
// most the newest live.ReplayWindow of them), or from now on, until
// the client leaves or the server shuts down. Over the caps of open
// streams (the handler's, the client address's) it answers 429.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	streamCORS.Handle(w, r) // never done: the stream answers no preflight
	if r.Method != http.MethodGet {
		hd.Set("Allow", "GET")
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed here; use GET")
		return
	}
	after, err := resumePoint(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if after < 0 {
		after = h.svc.Stream.LastEvent()
	} else {
		after = h.svc.Stream.ResumeAfter(after)
	}
	addr := clientaddr.Bucket(r)
	limit := h.MaxStreams
	if limit <= 0 {
		limit = DefaultMaxStreams
	}
	if why := h.slots.take(addr, limit); why != "" {
		httpx.SetRetryAfter(hd, refusedRetryAfter)
		writeError(w, http.StatusTooManyRequests, why)
		return
	}
	defer h.slots.give(addr)

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	// http.Server.Shutdown waits for handlers but does not cancel them: a
	// stream would hold the shutdown for its whole grace period.
	if sctx := h.shutdownContext(r); sctx != nil {
		stop := context.AfterFunc(sctx, cancel)
		defer stop()
	}

	hd.Set("Content-Type", "text/event-stream; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	// nginx buffers responses by default, which would hold events back.
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	obs := h.svc.Observer()
	obs.StreamClients(+1)
	defer obs.StreamClients(-1)

	s := &stream{w: w, rc: http.NewResponseController(w), timeout: h.WriteTimeout}
	if err := s.send([]byte("retry: " + strconv.Itoa(retryMillis) + "\n\n")); err != nil {
		return
	}
	if err := h.pump(ctx, s, after); err != nil && ctx.Err() == nil {
		h.log.Debug("live stream ended", "err", err, "remote", addr)
	}
}

// pump sends the public events after `after` as they are relayed, and a
// heartbeat when the stream was quiet for h.Heartbeat. A client that
// falls further behind than the replica keeps events (reading a burst
// too slowly) skips to the oldest kept: nothing is read again from the
// database for it.
func (h *Handler) pump(ctx context.Context, s *stream, after int64) error {
	beat := h.Heartbeat
	if beat <= 0 {
		beat = DefaultHeartbeat
	}
	nextPing := time.Now().Add(beat)
	for {
		last := h.svc.Stream.LastEvent()
		evs := h.svc.Stream.RecentEvents(after, batchSize)
		if len(evs) == 0 && last > after {
			// Relayed but no longer kept (the ring started again after a
			// rebuild of the state): skip them rather than spin on
			// WaitEvents, which returns at once.
			after = last
		}
		if len(evs) > 0 {
			wrote := false
			for i := range evs {
				ev := &evs[i]
				after = ev.Seq
				if !ev.Public {
					continue // its number counts; its content is not for the public
				}
				s.buf = append(s.buf, h.frames.frame(ev)...)
				wrote = true
			}
			if wrote {
				if err := s.flush(); err != nil {
					return err
				}
				nextPing = time.Now().Add(beat)
			}
			continue
		}
		wctx, cancel := context.WithDeadline(ctx, nextPing)
		_, err := h.svc.Stream.WaitEvents(wctx, after)
		cancel()
		switch {
		case ctx.Err() != nil:
			return nil // the client left or the server is stopping
		case errors.Is(err, context.DeadlineExceeded):
			if err := s.send([]byte(": ping\n\n")); err != nil {
				return err
			}
			nextPing = time.Now().Add(beat)
		case err != nil:
			return fmt.Errorf("wait for events: %w", err)
		}
	}
}

// resumePoint is the number after which the client wants events: the
// Last-Event-ID header (sent by a reconnecting EventSource), else the
// after parameter (a fresh EventSource cannot set headers), else -1 for
// "from now on".
func resumePoint(r *http.Request) (int64, error) {
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		n, ok := parseSeq(v)
		if !ok {
			return 0, fmt.Errorf("Last-Event-ID must be a non-negative integer, the id of an event of this stream; got %q", clip(v))
		}
		return n, nil
	}
	if q := r.URL.Query(); q.Has("after") {
		n, ok := parseSeq(q.Get("after"))
		if !ok {
			return 0, fmt.Errorf("after must be a non-negative integer, the id of an event of this stream; got %q", clip(q.Get("after")))
		}
		return n, nil
	}
	return -1, nil
}

// parseSeq accepts decimal digits only (no sign, no spaces) that fit an
// int64.
func parseSeq(s string) (int64, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// clip shortens a client's value quoted back in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// shutdownContext is a context cancelled when the server serving r shuts
// down, registered once per server (nil outside an http.Server).
func (h *Handler) shutdownContext(r *http.Request) context.Context {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if ctx, ok := h.shutdown[srv]; ok {
		return ctx
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv.RegisterOnShutdown(cancel)
	h.shutdown[srv] = ctx
	return ctx
}

// stream is one client's connection.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     []byte // a batch being assembled; reused
}

// send writes p and flushes.
func (s *stream) send(p []byte) error {
	s.buf = append(s.buf, p...)
	return s.flush()
}

// flush writes the batch and pushes it to the client. The server's
// WriteTimeout counts from the request's start and would cut every stream
// after a minute; each batch gets its own deadline instead.
func (s *stream) flush() error {
	if s.timeout > 0 {
		if err := s.rc.SetWriteDeadline(time.Now().Add(s.timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return fmt.Errorf("set the write deadline: %w", err)
		}
	}
	_, err := s.w.Write(s.buf)
	if cap(s.buf) > 64<<10 {
		s.buf = nil // a big catch-up batch is not kept for a quiet stream
	} else {
		s.buf = s.buf[:0]
	}
	if err != nil {
		return fmt.Errorf("write events: %w", err)
	}
	if err := s.rc.Flush(); err != nil {
		return fmt.Errorf("flush events: %w", err)
	}
	return nil
}

// streamCORS: everything sent is public and no credential is read, so
// any site may show the stream (a scoreboard overlay, a bot), and read why
// it was refused. A plain GET needs no preflight.
var streamCORS httpx.CORS

// writeError answers status with the JSON error body of msg on a line of
// its own, as a terminal shows it to someone trying the stream with curl.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	httpx.WriteJSON(w, status, append(httpx.ErrorBody(msg), '\n'))
}

// The JSON shapes of the events' data.
type (
	userJSON struct {
		ID       string `json:"id"`
		Username string `json:"username"`
		Name     string `json:"name"`
		Agent    bool   `json:"agent"`
	}
	challengeJSON struct {
		ID    string `json:"id"`
		Slug  string `json:"slug"`
		Title string `json:"title"`
	}
	solveJSON struct {
		User       userJSON      `json:"user"`
		Challenge  challengeJSON `json:"challenge"`
		Points     int           `json:"points"` // what the solve is worth to its solver
		Value      int           `json:"value"`  // the challenge's value now (dynamic scoring lowers it)
		Rank       int           `json:"rank"`
		FirstBlood bool          `json:"firstBlood"`
		At         string        `json:"at"`
	}
	announcementJSON struct {
		ID        string         `json:"id"`
		Title     string         `json:"title"`
		Body      string         `json:"body"`
		Challenge *challengeJSON `json:"challenge"`
		At        string         `json:"at"`
	}
	releasedJSON struct {
		Challenge *challengeJSON `json:"challenge"`
		At        string         `json:"at"`
	}
	clockJSON struct {
		At string `json:"at"`
	}
)

func challengeOf(c *live.EventChallenge) *challengeJSON {
	if c == nil {
		return nil
	}
	return &challengeJSON{ID: c.ID, Slug: c.Slug, Title: c.Title}
}

// data is ev's JSON payload.
func data(ev *live.StreamEvent) any {
	at := ctf.FormatTime(ev.At)
	switch {
	case ev.Kind == ctf.StreamSolve && ev.Solve != nil:
		x := ev.Solve
		return solveJSON{User: userJSON{ID: x.UserID, Username: x.Username, Name: x.Name, Agent: x.Agent},
			Challenge: challengeJSON{ID: x.ChallengeID, Slug: x.Slug, Title: x.Title},
			Points:    x.Points, Value: x.Value, Rank: x.Rank, FirstBlood: x.FirstBlood, At: at}
	case ev.Kind == ctf.StreamAnnouncement && ev.Announcement != nil:
		a := ev.Announcement
		return announcementJSON{ID: a.ID, Title: a.Title, Body: a.Body, Challenge: challengeOf(a.Challenge), At: at}
	case ev.Kind == ctf.StreamReleased:
		return releasedJSON{Challenge: challengeOf(ev.Challenge), At: at}
	default:
		return clockJSON{At: at}
	}
}

// encode is ev as one SSE frame. JSON escapes line breaks inside strings,
// so the data is one line whatever an announcement's Markdown holds.
func encode(ev *live.StreamEvent) []byte {
	b, err := json.Marshal(data(ev))
	if err != nil {
		b = []byte(`{}`) // plain structs of strings, ints and bools: cannot fail
	}
	out := make([]byte, 0, len(b)+len(ev.Kind)+40)
	out = fmt.Appendf(out, "id: %d\nevent: %s\ndata: ", ev.Seq, ev.Kind)
	out = append(out, b...)
	return append(out, '\n', '\n')
}

// frameCache keeps the newest events' frames so that a fan-out to
// thousands of clients encodes each event once. An event's number fixes
// its content as this replica relayed it.
type frameCache struct {
	mu    sync.RWMutex
	slots [frameSlots]struct {
		seq   int64
		frame []byte
	}
}

const frameSlots = 1024

func (c *frameCache) frame(ev *live.StreamEvent) []byte {
	i := ev.Seq % frameSlots
	c.mu.RLock()
	slot := c.slots[i]
	c.mu.RUnlock()
	if slot.seq == ev.Seq && slot.frame != nil {
		return slot.frame
	}
	f := encode(ev)
	c.mu.Lock()
	c.slots[i].seq, c.slots[i].frame = ev.Seq, f
	c.mu.Unlock()
	return f
}
