package api

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

// boardCache is the leaderboard's body at one version, and the JSON of
// each entry at its version: a solve re-encodes only the entries it
// changed (at ten thousand players, reflection over every entry after each
// solve would dominate).
type boardCache struct {
	mu      sync.Mutex
	version uint64
	body    *Body
	entries map[string]cachedEntry
}

type cachedEntry struct {
	version uint64
	json    []byte
}

// get returns the leaderboard body, rebuilt when its version moved.
// Concurrent callers wait for one build instead of each doing it.
func (c *boardCache) get(svc *platform.Service) *Body {
	v := svc.LeaderboardVersion()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.body != nil && c.version == v {
		return c.body
	}
	v, rows := svc.Leaderboard(func(id string, ver uint64) bool {
		e, ok := c.entries[id]
		return ok && e.version == ver
	})
	entries := make(map[string]cachedEntry, len(rows))
	size := 16
	for _, r := range rows {
		e := c.entries[r.UserID]
		if r.Entry != nil {
			e = cachedEntry{version: r.Version, json: appendLeaderboardEntry(nil, r.Entry)}
		}
		entries[r.UserID] = e
		size += len(e.json) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, `{"leaderboard":[`...)
	for i, r := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, entries[r.UserID].json...)
	}
	b = append(b, "]}"...)
	c.entries, c.body, c.version = entries, NewBody(b), v
	return c.body
}

// appendLeaderboardEntry writes the contract's LeaderboardEntry by hand.
func appendLeaderboardEntry(b []byte, e *platform.LeaderboardEntry) []byte {
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

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
