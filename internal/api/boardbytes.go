package api

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"sort"
	"strconv"
	"sync"
)

// The leaderboard as bytes. At ten thousand players its body is megabytes,
// and a solve changes one entry and moves it up the board; so the body is
// kept as chunks of consecutive entries, each with its CRCs and its own
// deflate blocks (compressed alone, ended by a sync flush on a byte
// boundary), and a version of the body is spliced from them: a gzip header,
// the chunks' blocks, an empty final block and a trailer whose CRC is
// combined from the chunks'. A solve compresses again only the chunk its
// player left and the one they joined. The gzip form of a version is put
// together once (a copy of a few megabytes), so that a response is one
// write; the plain form is written from the chunks themselves.
//
// Where a chunk ends depends on the entries alone, never on positions: it
// ends after each entry whose user id hashes to 0 modulo chunkEvery. An
// entry moving up the board then changes two chunks, not every chunk on its
// way, and the bytes of a version are the same whatever versions came
// before (a rebuild from scratch gives the same gzip stream, byte for
// byte). A chunk holds chunkEvery entries on average (about 80 KB at 1.3
// KB an entry): deflate's window is 32 KB, so compressing chunks apart
// costs little against compressing the body whole.

// chunkEvery is the mean number of entries of a chunk (tests use fewer, to
// have many chunks on a small board).
const chunkEvery = 64

// piece is part of a leaderboard body: its bytes, their CRCs (and what
// appending them does to a CRC) and, once asked for, their deflate blocks.
type piece struct {
	plain []byte
	// comma is plain and a comma after it, in the same array, when there
	// was room: a chunk and the comma that follows it are one write.
	comma         []byte
	crc, crcC     uint32 // IEEE (gzip's), Castagnoli
	shift, shiftC uint32

	gzOnce sync.Once
	gz     []byte
}

func newPiece(plain []byte) *piece {
	p := &piece{}
	p.set(plain)
	return p
}

func (p *piece) set(plain []byte) {
	if len(plain) < cap(plain) {
		p.comma = append(plain, ',')
	}
	p.plain, p.crc, p.crcC = plain, crc32.ChecksumIEEE(plain), crc32.Checksum(plain, castagnoli)
	p.shift, p.shiftC = crcIEEE.shift(len(plain)), crcCastagnoli.shift(len(plain))
}

// deflated returns the piece's deflate blocks, compressing them once.
func (p *piece) deflated() []byte {
	p.gzOnce.Do(func() { p.gz = deflateFragment(p.plain) })
	return p.gz
}

var (
	boardOpen  = newPiece([]byte(`{"leaderboard":[`))
	boardClose = newPiece([]byte(`]}`))
	boardComma = newPiece([]byte(`,`))
)

// boardEntry is one player's entry at one version of it.
type boardEntry struct {
	id      string
	version uint64
	json    []byte
	last    bool // ends a chunk
}

// chunkEnds reports whether userID's entry ends a chunk of about every
// entries.
func chunkEnds(userID string, every uint32) bool {
	return crc32.Checksum([]byte(userID), castagnoli)%every == 0
}

// boardChunk is consecutive entries of the board, joined by commas.
type boardChunk struct {
	piece
	entries []*boardEntry
}

func newChunk(entries []*boardEntry) *boardChunk {
	c := &boardChunk{entries: entries}
	c.set(joinEntries(entries))
	return c
}

func joinEntries(entries []*boardEntry) []byte {
	size := 0
	for _, e := range entries {
		size += len(e.json) + 1
	}
	b := make([]byte, 0, size)
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e.json...)
	}
	return b
}

// holds reports whether c is exactly entries, each at the same version.
func (c *boardChunk) holds(entries []*boardEntry) bool {
	if len(c.entries) != len(entries) {
		return false
	}
	for i, e := range entries {
		if c.entries[i] != e {
			return false
		}
	}
	return true
}

// boardBody is a leaderboard body spliced from pieces: the plain bytes are
// the pieces' own (copied into one part only for a small body, up to
// joinMax), the gzip form is put together once, so that it is one write.
type boardBody struct {
	pieces []*piece
	parts  [][]byte // the plain bytes
	n      int
	crc    uint32 // IEEE, for the gzip trailer
	tag    string
	vals   headerValues

	gzOnce sync.Once
	gz     []byte
}

func newBoardBody(pieces []*piece) *boardBody {
	b := &boardBody{pieces: pieces, parts: make([][]byte, 0, len(pieces))}
	var crcC uint32
	for i, p := range pieces {
		b.crc = crcIEEE.append(b.crc, p.crc, p.shift)
		crcC = crcCastagnoli.append(crcC, p.crcC, p.shiftC)
		b.n += len(p.plain)
		switch {
		case p == boardComma && i > 0 && pieces[i-1].comma != nil: // written with the piece before
		case p.comma != nil && i+1 < len(pieces) && pieces[i+1] == boardComma:
			b.parts = append(b.parts, p.comma)
		default:
			b.parts = append(b.parts, p.plain)
		}
	}
	if b.n <= joinMax && len(b.parts) > 1 {
		b.parts = [][]byte{bytes.Join(b.parts, nil)}
	}
	b.tag = etagOf(crcC, b.crc, b.n)
	b.vals = newHeaderValues(b.tag, b.n)
	return b
}

// joinMax is the size up to which a body's plain bytes are copied into one
// part: written in several, a small board (a page, a small event's) left
// its last bytes, "]}", for a system call of their own.
const joinMax = 64 << 10

func (b *boardBody) etag() string    { return b.tag }
func (b *boardBody) size() int       { return b.n }
func (b *boardBody) plain() [][]byte { return b.parts }

func (b *boardBody) values() *headerValues { return &b.vals }

// gzipped is one gzip member around the pieces' deflate blocks.
func (b *boardBody) gzipped() []byte {
	b.gzOnce.Do(func() {
		size := len(gzHeader) + len(gzFinal) + 8
		for _, p := range b.pieces {
			size += len(p.deflated())
		}
		gz := append(make([]byte, 0, size), gzHeader...)
		for _, p := range b.pieces {
			gz = append(gz, p.deflated()...)
		}
		gz = append(gz, gzFinal...)
		gz = binary.LittleEndian.AppendUint32(gz, b.crc)
		b.gz = binary.LittleEndian.AppendUint32(gz, uint32(b.n))
		b.vals.gzLength = []string{strconv.Itoa(len(b.gz))}
	})
	return b.gz
}

// boardSnap is the leaderboard at one version; never changed once
// published, but for the pages it caches.
type boardSnap struct {
	version uint64
	entries []*boardEntry // board order
	chunks  []*boardChunk
	ends    []int // chunk i holds entries[ends[i-1]:ends[i]]
	full    *boardBody
	// work is what building this version from the previous one cost.
	work buildWork

	pagesMu sync.Mutex
	pages   map[[2]int]*boardPage
}

// boardPage is a page of one version, built by its first reader.
type boardPage struct {
	once sync.Once
	body *boardBody
}

// maxPages bounds the pages a version keeps. When it is full, any one
// makes room: the popular pages (the top 10, the top 100, the first pages)
// are asked again and again and soon back, and building a page costs at
// most two partial chunks.
const maxPages = 64

// span is the body of entries[lo:hi]: whole chunks as they are, the parts
// of the chunks cut by lo and hi joined (and compressed) anew.
func (s *boardSnap) span(lo, hi int) *boardBody {
	pieces := make([]*piece, 0, 4)
	pieces = append(pieces, boardOpen)
	for i := sort.SearchInts(s.ends, lo+1); i < len(s.chunks); i++ {
		start, end := 0, s.ends[i]
		if i > 0 {
			start = s.ends[i-1]
		}
		if start >= hi {
			break
		}
		if len(pieces) > 1 {
			pieces = append(pieces, boardComma)
		}
		a, z := max(lo, start), min(hi, end)
		if a == start && z == end {
			pieces = append(pieces, &s.chunks[i].piece)
		} else {
			pieces = append(pieces, newPiece(joinEntries(s.entries[a:z])))
		}
	}
	return newBoardBody(append(pieces, boardClose))
}

// page returns at most limit entries (all when limit < 0) from offset on.
func (s *boardSnap) page(offset, limit int) *boardBody {
	n := len(s.entries)
	lo, hi := min(offset, n), n
	if limit >= 0 {
		hi = min(n, lo+limit)
	}
	if lo == 0 && hi == n {
		return s.full
	}
	key := [2]int{lo, hi}
	s.pagesMu.Lock()
	p := s.pages[key]
	if p == nil {
		if len(s.pages) >= maxPages {
			for k := range s.pages { // any one: map order is random
				delete(s.pages, k)
				break
			}
		}
		if s.pages == nil {
			s.pages = map[[2]int]*boardPage{}
		}
		p = &boardPage{}
		s.pages[key] = p
	}
	s.pagesMu.Unlock()
	p.once.Do(func() { p.body = s.span(lo, hi) })
	return p.body
}
