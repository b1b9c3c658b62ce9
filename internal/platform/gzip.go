package platform

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"sync"
)

// A player's challenge list differs from everyone else's only in its
// "solved" values, yet browsers ask for it gzipped on every refresh. So each
// list entry is kept compressed, in both its solved and unsolved forms, as
// deflate blocks ending on a byte boundary (a sync flush), and a player's
// gzipped list is spliced from them: a copy per request instead of a
// compression. Entries compressed apart cannot refer to one another, so the
// result is larger than compressing the whole list (about 2.5x here), still
// well under the plain size.

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

// renderGzip refreshes the compressed forms of the entry; the caller holds
// the state's write lock. first is whether the entry opens the list (the
// others carry the comma that precedes them).
func (c *chal) renderGzip(first bool) {
	sep := comma
	if first {
		sep = nil
	}
	c.gz[0] = deflateFragment(sep, c.head, []byte("false"), c.tail)
	c.gz[1] = deflateFragment(sep, c.head, []byte("true"), c.tail)
}

// appendListGzip appends the gzip member whose content is plain, the list
// as u sees it, built under the same read lock so the two agree.
func (st *state) appendListGzip(b, plain []byte, u *user) []byte {
	b = append(b, gzHeader...)
	b = append(b, gzOpen...)
	for _, c := range st.visible {
		i := 0
		if u != nil && u.solved[c.ID] != nil {
			i = 1
		}
		b = append(b, c.gz[i]...)
	}
	b = append(b, gzClose...)
	b = append(b, gzFinal...)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(plain))
	return binary.LittleEndian.AppendUint32(b, uint32(len(plain)))
}
