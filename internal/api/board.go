package api

import (
	"context"
	"encoding/json"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
)

// DefaultLeaderboardInterval is how long, at least, separates two builds of
// the leaderboard's bytes while solves keep coming: a burst of solves costs
// one build per interval, not one per solve, and each solve is served at
// most this long (plus a build) after this replica applied it.
const DefaultLeaderboardInterval = 50 * time.Millisecond

// boardCache holds the leaderboard's bytes at the newest version built
// (see boardbytes.go) and builds the next one when the service says the
// board moved: at once after a quiet spell, else at most once per
// interval. A reader gets the version built if it is the service's
// current one, so that what this replica acknowledged (a solve, a ban) is
// on the board the next read serves, as the contract's clients expect.
// Else the reader builds it, one build at a time: readers that arrive
// during a build wait for it, and the moves made meanwhile go into the
// next, so a burst of solves costs a build per build's time, not per
// solve; and the scheduled builds usually leave readers nothing to do.
type boardCache struct {
	svc   *platform.Service
	every uint32 // entries per chunk, on average (chunkEvery)
	cur   atomic.Pointer[boardSnap]

	// buildMu lets one build run at a time; the fields below it are the
	// builder's, what the next build reuses: each player's entry at its
	// version, and the chunks by the id of their last entry.
	buildMu sync.Mutex
	entries map[string]*boardEntry
	chunks  map[string]*boardChunk

	schedMu   sync.Mutex
	interval  time.Duration
	wanted    bool          // someone read the board: keep it current
	timer     *time.Timer   // set while armed
	armed     bool          // a build is due and will see every move so far
	lastStart time.Time     // of the last scheduled build
	published chan struct{} // closed when a version is published

	builds atomic.Int64 // versions built

	// paced: a build that costs more than pacedBuild is followed by a rest
	// as long as it took (lastCost, from lastEnd), so that builds take at
	// most about half the time (see pace). Off in tests and benchmarks.
	paced    bool
	lastCost time.Duration
	lastEnd  time.Time
}

// pacedBuild is the cost from which builds are paced. A build costs a few
// milliseconds when a solve changes its solver's entry (the usual case);
// a dynamic challenge's solve changes every solver's entry, and under a
// rush of them every build encodes and compresses most of the board again
// (tens to hundreds of milliseconds): back to back, such builds would take
// the processors from the readers and the solves.
const pacedBuild = 20 * time.Millisecond

func newBoardCache(svc *platform.Service) *boardCache {
	c := &boardCache{svc: svc, every: chunkEvery, interval: DefaultLeaderboardInterval, published: make(chan struct{}), paced: true}
	svc.OnLeaderboardChange(c.kick)
	return c
}

// get returns the board at the service's version as of the call, or a
// newer one, building it if the newest version built is older. A reader
// that waits for a build in progress is served by any version at least as
// new as the one it came for: the moves made while it waited go into the
// next build, which it does not wait for.
func (c *boardCache) get() *boardSnap {
	// LeaderboardVersion also moves the event's clock if an instant passed
	// (a freeze starting).
	v := c.svc.Scoreboard.LeaderboardVersion()
	if s := c.cur.Load(); s != nil && s.version >= v {
		return s
	}
	return c.buildFor(v)
}

// kick schedules a build after the board moved. The service calls it with
// its state locked, so it only arms a timer. Until someone reads the board
// there is nothing to keep current.
func (c *boardCache) kick() {
	c.schedMu.Lock()
	defer c.schedMu.Unlock()
	if c.armed || !c.wanted {
		return
	}
	c.armed = true
	c.timer = time.AfterFunc(c.delay(), c.scheduled)
}

// delay is how long the next build waits; the caller holds schedMu.
func (c *boardCache) delay() time.Duration { return max(0, c.interval-time.Since(c.lastStart)) }

func (c *boardCache) scheduled() {
	c.schedMu.Lock()
	// A move from here on arms the next build: this one may not see it.
	c.armed, c.lastStart = false, time.Now()
	c.schedMu.Unlock()
	c.build()
}

func (c *boardCache) setInterval(d time.Duration) {
	c.schedMu.Lock()
	defer c.schedMu.Unlock()
	c.interval = d
	if c.armed && c.timer.Stop() { // a build due later is due by the new interval
		c.timer = time.AfterFunc(c.delay(), c.scheduled)
	}
}

// build makes and publishes the board at the service's version, encoding
// only the entries whose version moved and compressing only the chunks
// whose entries changed.
// buildWork is what one build of the board did: the entries it encoded
// (their versions moved) and the chunks it compressed again (one of their
// entries changed, or their run of entries did), with their plain bytes.
type buildWork struct {
	Entries, EncodedBytes, Chunks, CompressedBytes int
}

func (c *boardCache) build() *boardSnap { return c.buildFor(0) }

// buildFor returns a version at least v (0: the service's version when
// this build's turn comes), building it if need be.
func (c *boardCache) buildFor(v uint64) *boardSnap {
	c.buildMu.Lock()
	defer c.buildMu.Unlock()
	if v == 0 {
		v = c.svc.Scoreboard.LeaderboardVersion()
	}
	if s := c.cur.Load(); s != nil && s.version >= v {
		return s
	}
	c.pace()
	began := time.Now()
	defer func() { c.lastCost, c.lastEnd = time.Since(began), time.Now() }()
	c.schedMu.Lock()
	c.wanted = true // from here on, a move arms the next build
	c.schedMu.Unlock()
	if c.entries == nil {
		c.entries = map[string]*boardEntry{}
	}
	v, rows := c.svc.Scoreboard.Leaderboard(func(id string, ver uint64) bool {
		e := c.entries[id]
		return e != nil && e.version == ver
	})
	s := &boardSnap{version: v, entries: make([]*boardEntry, len(rows))}
	for i, r := range rows {
		e := c.entries[r.UserID]
		if r.Entry != nil {
			e = &boardEntry{id: r.UserID, version: r.Version, json: appendLeaderboardEntry(nil, r.Entry), last: chunkEnds(r.UserID, c.every)}
			c.entries[r.UserID] = e
			s.work.Entries++
			s.work.EncodedBytes += len(e.json)
		}
		s.entries[i] = e
	}
	if len(c.entries) != len(rows) { // players left the board
		c.entries = make(map[string]*boardEntry, len(rows))
		for _, e := range s.entries {
			c.entries[e.id] = e
		}
	}
	chunks := make(map[string]*boardChunk, len(c.chunks)+1)
	var fresh []*boardChunk
	start := 0
	for i, e := range s.entries {
		if !e.last && i < len(s.entries)-1 {
			continue
		}
		run := s.entries[start : i+1]
		ch := c.chunks[e.id]
		if ch == nil || !ch.holds(run) {
			ch = newChunk(append([]*boardEntry(nil), run...))
			fresh = append(fresh, ch)
		}
		chunks[e.id] = ch
		s.chunks = append(s.chunks, ch)
		s.ends = append(s.ends, i+1)
		start = i + 1
	}
	deflateAll(fresh) // here rather than in a reader
	for _, ch := range fresh {
		s.work.Chunks++
		s.work.CompressedBytes += len(ch.plain)
	}
	s.full = s.span(0, len(s.entries))
	s.full.gzipped()
	c.chunks = chunks
	c.cur.Store(s)
	c.builds.Add(1)
	c.schedMu.Lock()
	close(c.published)
	c.published = make(chan struct{})
	c.schedMu.Unlock()
	return s
}

// pace rests after a costly build as long as it took; the caller holds
// buildMu, so readers wait here for the build that follows.
func (c *boardCache) pace() {
	if c.paced && c.lastCost >= pacedBuild {
		time.Sleep(time.Until(c.lastEnd.Add(c.lastCost)))
	}
}

// deflateAll compresses chunks on every processor: a burst of solves
// leaves a build several chunks to compress, and the solves wait for it.
func deflateAll(chunks []*boardChunk) {
	workers := min(len(chunks), runtime.GOMAXPROCS(0))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < len(chunks); i = int(next.Add(1)) - 1 {
				chunks[i].deflated()
			}
		}()
	}
	wg.Wait()
}

// wait returns once the version published is the service's current one.
func (c *boardCache) wait(ctx context.Context) error {
	for {
		c.schedMu.Lock()
		published := c.published
		c.schedMu.Unlock()
		s := c.cur.Load()
		if s == nil {
			s = c.build()
		}
		if s.version >= c.svc.Scoreboard.LeaderboardVersion() {
			return nil
		}
		c.kick()
		select {
		case <-published:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// appendLeaderboardEntry writes the contract's LeaderboardEntry by hand.
func appendLeaderboardEntry(b []byte, e *live.LeaderboardEntry) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, e.ID)
	b = append(b, `,"name":`...)
	b = appendString(b, e.Name)
	b = append(b, `,"username":`...)
	b = appendString(b, e.Username)
	b = append(b, `,"image":`...)
	if e.Image == "" {
		b = append(b, "null"...)
	} else {
		b = appendString(b, e.Image)
	}
	b = append(b, `,"totalPoints":`...)
	b = strconv.AppendInt(b, int64(e.TotalPoints), 10)
	b = append(b, `,"totalSolves":`...)
	b = strconv.AppendInt(b, int64(len(e.Solves)), 10)
	b = append(b, `,"lastSolvedAt":`...)
	if len(e.Solves) > 0 {
		b = append(b, '"')
		b = ctf.AppendTime(b, e.LastSolvedAt)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"solves":[`...)
	for i, sv := range e.Solves {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"solvedAt":"`...)
		b = ctf.AppendTime(b, sv.SolvedAt)
		b = append(b, `","points":`...)
		b = strconv.AppendInt(b, int64(sv.Points), 10)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// appendString appends s as a JSON string, as encoding/json writes it
// (HTML characters escaped too): names and ids are plain ASCII almost
// always, and are copied as they are; anything else goes to json.Marshal.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
