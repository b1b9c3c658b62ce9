package api

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestCRCCombine: the CRC combined from two parts' is the CRC of the two
// parts together, for both polynomials, empty parts and long ones included.
func TestCRCCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	polys := []struct {
		name string
		p    *crcPoly
		tab  *crc32.Table
	}{{"IEEE", crcIEEE, crc32.IEEETable}, {"Castagnoli", crcCastagnoli, castagnoli}}
	for _, n := range [][2]int{{0, 0}, {0, 5}, {5, 0}, {1, 1}, {3, 1000}, {70000, 3}, {1 << 20, 123457}} {
		a, b := make([]byte, n[0]), make([]byte, n[1])
		for i := range a {
			a[i] = byte(rng.Uint32())
		}
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		for _, p := range polys {
			want := crc32.Checksum(append(append([]byte{}, a...), b...), p.tab)
			if got := p.p.combine(crc32.Checksum(a, p.tab), crc32.Checksum(b, p.tab), len(b)); got != want {
				t.Errorf("%s, lengths %v: combined %08x, want %08x", p.name, n, got, want)
			}
		}
	}
}

// combine returns the CRC of A followed by B, given A's CRC, B's CRC and
// B's length in bytes: what append does with a piece's kept shift.
func (p *crcPoly) combine(crcA, crcB uint32, lenB int) uint32 {
	return p.append(crcA, crcB, p.shift(lenB))
}
