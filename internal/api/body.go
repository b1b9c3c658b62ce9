package api

import (
	"bytes"
	"compress/gzip"
	"hash/crc32"
	"strconv"
	"sync"
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
