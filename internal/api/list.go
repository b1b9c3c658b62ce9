package api

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/flate"

	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
)

// The challenge list as bytes. A player's list differs from everyone
// else's only in its "solved" values, yet browsers ask for it gzipped on
// every refresh. So each entry is kept as JSON split around its "solved"
// value, and compressed in both its solved and unsolved forms as deflate
// blocks ending on a byte boundary (a sync flush): a player's list, plain
// or gzipped, is spliced from them, a copy per request instead of an
// encoding and a compression. Entries compressed apart cannot refer to one
// another, so the gzip is larger than compressing the whole list (about
// 2.5x here), still well under the plain size. An entry is encoded again
// only when its version moves.

// listSnap is the list at one version; never changed once published.
type listSnap struct {
	version uint64
	frags   []*fragment // list order
	anon    *Body       // the list as an anonymous caller sees it
}

// fragment is one entry of the list.
type fragment struct {
	id      string
	version uint64
	first   bool   // opens the list: its gzip form carries no comma
	head    []byte // the entry's JSON up to its "solved" value
	tail    []byte // and after it
	gz      [2][]byte
}

type listCache struct {
	mu  sync.Mutex
	cur atomic.Pointer[listSnap]
}

// get returns the list at the service's current version, building what
// changed since the last version.
func (c *listCache) get(svc *platform.Service) *listSnap {
	v := svc.Play.ChallengeListVersion()
	if s := c.cur.Load(); s != nil && s.version == v {
		return s
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.cur.Load()
	if old != nil && old.version == svc.Play.ChallengeListVersion() {
		return old
	}
	byID := map[string]*fragment{}
	if old != nil {
		for _, f := range old.frags {
			byID[f.id] = f
		}
	}
	v, rows := svc.Play.ChallengeList(func(id string, ver uint64) bool {
		f := byID[id]
		return f != nil && f.version == ver
	})
	snap := &listSnap{version: v, frags: make([]*fragment, len(rows))}
	size := 32
	for i, r := range rows {
		f := byID[r.ChallengeID]
		switch {
		case r.Summary != nil:
			f = newFragment(r.ChallengeID, r.Version, r.Summary, i == 0)
		case f.first != (i == 0):
			moved := *f
			moved.first = i == 0
			moved.compress()
			f = &moved
		}
		snap.frags[i] = f
		size += len(f.head) + len(f.tail) + 6
	}
	plain := make([]byte, 0, size)
	snap.anon = NewBody(snap.appendPlain(plain, nil))
	c.cur.Store(snap)
	return snap
}

var solvedFalse = []byte(`"solved":false`)

func newFragment(id string, version uint64, sum *live.ChallengeSummary, first bool) *fragment {
	b, err := json.Marshal(sum)
	if err != nil {
		panic("api: marshal a challenge summary: " + err.Error()) // plain data: cannot fail
	}
	i := bytes.LastIndex(b, solvedFalse)
	f := &fragment{id: id, version: version, first: first, head: b[:i+len(`"solved":`)], tail: b[i+len(solvedFalse):]}
	f.compress()
	return f
}

var flatePool = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// deflateFragment compresses parts as deflate blocks that end with a sync
// flush and no final block, so fragments concatenate into one stream.
func deflateFragment(parts ...[]byte) []byte {
	var buf bytes.Buffer
	zw := flatePool.Get().(*flate.Writer)
	zw.Reset(&buf)
	for _, p := range parts {
		zw.Write(p)
	}
	zw.Flush()
	flatePool.Put(zw)
	return buf.Bytes()
}

var (
	listOpen  = []byte(`{"challenges":[`)
	listClose = []byte(`]}`)
	gzOpen    = deflateFragment(listOpen)
	gzClose   = deflateFragment(listClose)
	comma     = []byte(",")
	gzHeader  = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff} // no name, no time, unknown OS
	gzFinal   = []byte{0x03, 0x00}                            // an empty final fixed-Huffman block
)

// compress makes the entry's deflate blocks, unsolved and solved; every
// entry but the first carries the comma before it.
func (f *fragment) compress() {
	sep := comma
	if f.first {
		sep = nil
	}
	f.gz[0] = deflateFragment(sep, f.head, []byte("false"), f.tail)
	f.gz[1] = deflateFragment(sep, f.head, []byte("true"), f.tail)
}

// appendPlain appends the list with the solved marks (nil: none solved).
func (s *listSnap) appendPlain(b []byte, solved []bool) []byte {
	b = append(b, listOpen...)
	for i, f := range s.frags {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, f.head...)
		if solved != nil && solved[i] {
			b = append(b, "true"...)
		} else {
			b = append(b, "false"...)
		}
		b = append(b, f.tail...)
	}
	return append(b, listClose...)
}

// appendGzip appends the gzip member whose content is plain, the list with
// the solved marks, spliced from the entries' deflate blocks.
func (s *listSnap) appendGzip(b, plain []byte, solved []bool) []byte {
	b = append(b, gzHeader...)
	b = append(b, gzOpen...)
	for i, f := range s.frags {
		k := 0
		if solved[i] {
			k = 1
		}
		b = append(b, f.gz[k]...)
	}
	b = append(b, gzClose...)
	b = append(b, gzFinal...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(plain))
	return binary.LittleEndian.AppendUint32(b, uint32(len(plain)))
}

// forUser returns the list as userID sees it, plain and (when gz is not
// nil) gzipped, appended to the buffers given.
func (c *listCache) forUser(svc *platform.Service, userID string, plain, gz []byte, solved []bool) ([]byte, []byte) {
	for {
		v, marks := svc.Play.SolvedInList(userID, solved[:0])
		snap := c.get(svc)
		if snap.version != v || len(snap.frags) != len(marks) {
			// The list moved between the two reads: read both again.
			solved = marks
			continue
		}
		plain = snap.appendPlain(plain, marks)
		if gz != nil {
			gz = snap.appendGzip(gz, plain, marks)
		}
		return plain, gz
	}
}
