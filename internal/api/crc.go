package api

import "hash/crc32"

// CRC-32 of a concatenation from the CRCs of its parts (zlib's
// crc32_combine, for any reflected polynomial): a body spliced from pieces
// gets its gzip trailer and its ETag without reading its megabytes again.

// crcPoly is a reflected CRC-32 polynomial and x^(2^k) modulo it.
type crcPoly struct {
	poly uint32
	x2n  [32]uint32
}

var (
	crcIEEE       = newCRCPoly(crc32.IEEE)
	crcCastagnoli = newCRCPoly(crc32.Castagnoli)
)

func newCRCPoly(poly uint32) *crcPoly {
	p := &crcPoly{poly: poly}
	x := uint32(1) << 30 // x^1, bits reflected
	p.x2n[0] = x
	for k := 1; k < 32; k++ {
		x = p.mulmod(x, x)
		p.x2n[k] = x
	}
	return p
}

// mulmod multiplies a by b modulo the polynomial; a must not be zero (it is
// always a power of x here).
func (p *crcPoly) mulmod(a, b uint32) uint32 {
	var r uint32
	for m := uint32(1) << 31; ; m >>= 1 {
		if a&m != 0 {
			r ^= b
			if a&(m-1) == 0 {
				return r
			}
		}
		if b&1 != 0 {
			b = b>>1 ^ p.poly
		} else {
			b >>= 1
		}
	}
}

// shift is x^(8n) modulo the polynomial: what appending n bytes does to a
// CRC, kept with a piece so that appending it costs one multiplication.
func (p *crcPoly) shift(n int) uint32 {
	x := uint32(1) << 31 // x^0
	for n, k := uint64(max(n, 0)), 3; n != 0; n, k = n>>1, k+1 {
		if n&1 != 0 {
			x = p.mulmod(p.x2n[k&31], x)
		}
	}
	return x
}

// append returns the CRC of A followed by B, given A's CRC, B's CRC and
// B's shift.
func (p *crcPoly) append(crcA, crcB, shiftB uint32) uint32 { return p.mulmod(shiftB, crcA) ^ crcB }
