package platform

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"hash/crc32"
	"sort"
	"strconv"
	"sync"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Body is a response body shared by every caller who gets the same answer,
// with its ETag and, once someone asked for it, its gzip form.
type Body struct {
	JSON []byte
	ETag string

	gzOnce sync.Once
	gz     []byte
}

// Gzip returns the body compressed, computing it once per body.
func (b *Body) Gzip() []byte {
	b.gzOnce.Do(func() { b.gz = Compress(b.JSON) })
	return b.gz
}

// Compress gzips p at the fastest level: bodies change with every solve, so
// compressing quickly matters more than the last few percent.
func Compress(p []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(p) / 4)
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zw.Write(p)
	zw.Close()
	return buf.Bytes()
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ETag derives a strong validator from the body's bytes, so every replica
// gives the same body the same tag. Two hardware-assisted CRCs and the
// length make an accidental match between two versions vanishingly rare.
func ETag(p []byte) string {
	b := make([]byte, 0, 40)
	b = append(b, '"')
	b = strconv.AppendUint(b, uint64(crc32.Checksum(p, castagnoli)), 36)
	b = append(b, '-')
	b = strconv.AppendUint(b, uint64(crc32.ChecksumIEEE(p)), 36)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(len(p)), 36)
	return string(append(b, '"'))
}

// NewBody wraps bytes shared by many responses.
func NewBody(p []byte) *Body { return &Body{JSON: p, ETag: ETag(p)} }

// bodyCache holds a body built from the state at one version.
type bodyCache struct {
	mu      sync.Mutex
	version uint64
	body    *Body
}

// get returns the cached body if it was built at version, else builds it.
// Concurrent callers wait for one build instead of each doing it.
func (c *bodyCache) get(version uint64, build func() []byte) *Body {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.body == nil || c.version != version {
		c.body, c.version = NewBody(build()), version
	}
	return c.body
}

// rankCache holds the leaderboard order at one solve version.
type rankCache struct {
	mu      sync.Mutex
	version uint64
	valid   bool
	order   []*user
	rank    map[string]int
}

// rankingLocked returns the players in leaderboard order and their ranks;
// the caller holds s.mu for reading.
func (s *state) rankingLocked() ([]*user, map[string]int) {
	rc := &s.ranking
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.valid && rc.version == s.solveVer {
		return rc.order, rc.rank
	}
	order := make([]*user, 0, len(s.users))
	for _, u := range s.users {
		if u.player && len(u.solves) > 0 {
			order = append(order, u)
		}
	}
	sort.Slice(order, func(i, j int) bool { return ctf.RanksBefore(order[i].standing(), order[j].standing()) })
	rank := make(map[string]int, len(order))
	for i, u := range order {
		rank[u.ID] = i + 1
	}
	rc.order, rc.rank, rc.version, rc.valid = order, rank, s.solveVer, true
	return order, rank
}

func (u *user) lastSolvedAt() (t ctf.Solve, ok bool) {
	if len(u.solves) == 0 {
		return t, false
	}
	return u.solves[len(u.solves)-1].Solve, true
}

func (u *user) standing() ctf.Standing {
	st := ctf.Standing{Username: u.Username, TotalPoints: u.points}
	if last, ok := u.lastSolvedAt(); ok {
		st.LastSolvedAt = last.At
	}
	return st
}

// leaderboard returns the shared leaderboard body.
func (s *state) leaderboard() *Body {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.board.get(s.solveVer, func() []byte {
		order, _ := s.rankingLocked()
		size := 16
		for _, u := range order {
			if u.lbEntry == nil {
				u.lbEntry = u.appendLeaderboardEntry(nil)
			}
			size += len(u.lbEntry) + 1
		}
		b := make([]byte, 0, size)
		b = append(b, `{"leaderboard":[`...)
		for i, u := range order {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, u.lbEntry...)
		}
		return append(b, "]}"...)
	})
}

// appendLeaderboardEntry writes the user's LeaderboardEntry by hand: at
// ten thousand players this runs for every entry after each solve, and
// reflection would dominate.
func (u *user) appendLeaderboardEntry(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, u.ID)
	b = append(b, `,"name":`...)
	b = appendString(b, displayName(u))
	b = append(b, `,"username":`...)
	b = appendString(b, u.Username)
	b = append(b, `,"image":`...)
	if u.Image == "" {
		b = append(b, "null"...)
	} else {
		b = appendString(b, u.Image)
	}
	b = append(b, `,"totalPoints":`...)
	b = strconv.AppendInt(b, int64(u.points), 10)
	b = append(b, `,"totalSolves":`...)
	b = strconv.AppendInt(b, int64(len(u.solves)), 10)
	b = append(b, `,"lastSolvedAt":`...)
	if last, ok := u.lastSolvedAt(); ok {
		b = append(b, '"')
		b = ctf.AppendTime(b, last.At)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"solves":[`...)
	for i, sv := range u.solves {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"solvedAt":"`...)
		b = ctf.AppendTime(b, sv.At)
		b = append(b, `","points":`...)
		b = strconv.AppendInt(b, int64(sv.chal.Points), 10)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// challengeList returns the list as an anonymous caller sees it.
func (s *state) challengeList() *Body {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.list.get(s.listVer, func() []byte { return s.appendList(nil, nil) })
}

// appendList writes the challenge list as u (nil: anonymous) sees it; the
// caller holds s.mu for reading.
func (s *state) appendList(b []byte, u *user) []byte {
	if b == nil {
		size := 32
		for _, c := range s.visible {
			size += len(c.head) + len(c.tail) + 6
		}
		b = make([]byte, 0, size)
	}
	b = append(b, listOpen...)
	for i, c := range s.visible {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.appendEntry(b, u != nil && u.solved[c.ID] != nil)
	}
	return append(b, listClose...)
}
