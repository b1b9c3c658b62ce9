package api

import (
	"bytes"
	"compress/gzip"
	"hash/crc32"
	"strconv"
	"sync"
)

// sharedBody is a response that many callers get alike: its validator,
// its bytes and their gzip form are computed once, not per request (see
// writeShared). The plain bytes may be in a few large parts, written one
// after another: a leaderboard of megabytes is not copied into one buffer.
type sharedBody interface {
	etag() string
	size() int // of the plain bytes
	plain() [][]byte
	// gzipped is the gzip form, made once; after it, values().gzLength
	// is set.
	gzipped() []byte
	values() *headerValues
}

// headerValues are a shared body's ETag and Content-Length, plain and
// gzipped, as header values made once per body: an answer assigns them to
// its header as they are, where Header.Set would make each one-element
// slice (and Content-Length's digits) again on every request. No slice has
// room to grow, so an Add after them copies and never writes into another
// answer's header.
type headerValues struct {
	etag, gzEtag []string
	length       []string
	gzLength     []string // set with the gzip form
}

func newHeaderValues(tag string, n int) headerValues {
	return headerValues{etag: []string{tag}, gzEtag: []string{codedTag(tag, true)}, length: []string{strconv.Itoa(n)}}
}

// Body is a response body shared by every caller who gets the same answer,
// with its ETag and, once someone asked for it, its gzip form.
type Body struct {
	JSON []byte
	ETag string

	parts  [][]byte // JSON, as sharedBody gives it
	vals   headerValues
	gzOnce sync.Once
	gz     []byte
}

// Gzip returns the body compressed, computing it once per body.
func (b *Body) Gzip() []byte {
	b.gzOnce.Do(func() {
		b.gz = Compress(b.JSON)
		b.vals.gzLength = []string{strconv.Itoa(len(b.gz))}
	})
	return b.gz
}

func (b *Body) etag() string    { return b.ETag }
func (b *Body) size() int       { return len(b.JSON) }
func (b *Body) plain() [][]byte { return b.parts }
func (b *Body) gzipped() []byte { return b.Gzip() }

func (b *Body) values() *headerValues { return &b.vals }

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
	return etagOf(crc32.Checksum(p, castagnoli), crc32.ChecksumIEEE(p), len(p))
}

// etagOf is ETag from the body's CRCs (Castagnoli, IEEE) and length, for a
// body whose CRCs were combined from its pieces'.
func etagOf(crcC, crc uint32, n int) string {
	b := make([]byte, 0, 40)
	b = append(b, '"')
	b = strconv.AppendUint(b, uint64(crcC), 36)
	b = append(b, '-')
	b = strconv.AppendUint(b, uint64(crc), 36)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(n), 36)
	return string(append(b, '"'))
}

// NewBody wraps bytes shared by many responses.
func NewBody(p []byte) *Body {
	tag := ETag(p)
	return &Body{JSON: p, ETag: tag, parts: [][]byte{p}, vals: newHeaderValues(tag, len(p))}
}
