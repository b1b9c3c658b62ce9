package demo

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"image/png"
	"io"
	"math/big"
	"regexp"
	"strings"
	"testing"
)

// The demo's handouts are real: each test solves one the way its
// challenge's description invites, and finds the challenge's flag.

func file(t *testing.T, name string) []byte {
	t.Helper()
	data, err := files.ReadFile("files/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestBabyRSA: a 4096-bit n, e = 3 and a short message: c is m cubed.
func TestBabyRSA(t *testing.T) {
	vals := map[string]*big.Int{}
	for _, line := range strings.Split(strings.TrimSpace(string(file(t, "output.txt"))), "\n") {
		k, v, _ := strings.Cut(line, " = ")
		vals[k], _ = new(big.Int).SetString(v, 10)
	}
	if vals["n"].BitLen() != 4096 || vals["e"].Int64() != 3 {
		t.Fatalf("n of %d bits, e %v", vals["n"].BitLen(), vals["e"])
	}
	// The integer cube root of c, by bisection.
	lo, hi := big.NewInt(0), new(big.Int).Set(vals["c"])
	for lo.Cmp(hi) < 0 {
		mid := new(big.Int).Rsh(new(big.Int).Add(new(big.Int).Add(lo, hi), big.NewInt(1)), 1)
		if new(big.Int).Exp(mid, big.NewInt(3), nil).Cmp(vals["c"]) <= 0 {
			lo = mid
		} else {
			hi = mid.Sub(mid, big.NewInt(1))
		}
	}
	if got := string(lo.Bytes()); got != "flagship{small_e_big_trouble}" {
		t.Errorf("cube root of c: %q", got)
	}
}

// TestPacketWhisperer: the DNS queries for <i>.<hex>.totally-legit.example
// spell the flag in hex, chunk by chunk.
func TestPacketWhisperer(t *testing.T) {
	data := file(t, "capture.pcap")
	if binary.LittleEndian.Uint32(data) != 0xa1b2c3d4 || binary.LittleEndian.Uint32(data[20:]) != 1 {
		t.Fatal("not a pcap of Ethernet frames")
	}
	var flag []byte
	for off := 24; off+16 <= len(data); {
		n := int(binary.LittleEndian.Uint32(data[off+8:]))
		frame := data[off+16 : off+16+n]
		off += 16 + n
		// Ethernet 14, IPv4 20, UDP 8, DNS header 12: then the name.
		var labels []string
		for p := 14 + 20 + 8 + 12; frame[p] != 0; p += int(frame[p]) + 1 {
			labels = append(labels, string(frame[p+1:p+1+int(frame[p])]))
		}
		if name := strings.Join(labels, "."); strings.HasSuffix(name, ".totally-legit.example") {
			chunk, err := hex.DecodeString(labels[1])
			if err != nil {
				t.Fatal(err)
			}
			flag = append(flag, chunk...)
		}
	}
	if string(flag) != "flagship{dns_is_a_covert_channel}" {
		t.Errorf("exfiltrated: %q", flag)
	}
}

// TestPixelSecrets: the blue channel's least significant bits, row by row,
// spell the flag up to a zero byte.
func TestPixelSecrets(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(file(t, "postcard.png")))
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	var cur, n byte
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			_, _, blue, _ := img.At(x, y).RGBA()
			cur, n = cur<<1|byte(blue>>8)&1, n+1
			if n == 8 {
				if cur == 0 {
					if string(out) != "flagship{lsb_in_the_blue_channel}" {
						t.Errorf("hidden: %q", out)
					}
					return
				}
				out, cur, n = append(out, cur), 0, 0
			}
		}
	}
	t.Errorf("no end of message; read %q", out)
}

// TestCrackmeClassic: the blob XORed with the key that "flagship{" gives
// away (the licence, CRACKME1997) is the flag.
func TestCrackmeClassic(t *testing.T) {
	data := file(t, "crackme.zip")
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var src []byte
	for _, f := range zr.File {
		if f.Name == "crackme/crackme.py" {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			src, err = io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	m := regexp.MustCompile(`bytes\.fromhex\("([0-9a-f]+)"\)`).FindSubmatch(src)
	if m == nil {
		t.Fatalf("no blob in crackme.py:\n%s", src)
	}
	blob, _ := hex.DecodeString(string(m[1]))
	key := []byte("CRACKME1997")
	for i := range blob {
		blob[i] ^= key[i%len(key)]
	}
	if string(blob) != "flagship{xor_is_not_encryption}" {
		t.Errorf("unlocked: %q", blob)
	}
}
