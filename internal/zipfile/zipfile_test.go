package zipfile

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"testing"
)

type entry struct {
	name string
	data string
	mode fs.FileMode // 0: a regular file
	// raw, when set, is written as the member's compressed bytes under
	// the header's sizes (a lying header).
	raw            []byte
	declared, crc  uint32
	method         uint16
	encryptedFlags bool
}

func archive(t *testing.T, entries ...entry) *bytes.Reader {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		if e.raw != nil || e.encryptedFlags {
			h.Method = e.method
			h.CompressedSize64, h.UncompressedSize64, h.CRC32 = uint64(len(e.raw)), uint64(e.declared), e.crc
			if e.encryptedFlags {
				h.Flags |= 0x1
			}
			fw, err := w.CreateRaw(h)
			if err != nil {
				t.Fatal(err)
			}
			fw.Write(e.raw)
			continue
		}
		fw, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(fw, e.data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(buf.Bytes())
}

func deflate(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	fw, _ := flate.NewWriter(&b, flate.BestCompression)
	fw.Write(data)
	fw.Close()
	return b.Bytes()
}

func TestList(t *testing.T) {
	zeros := make([]byte, 2<<20) // inflates ~1000 times: a small bomb
	z := archive(t,
		entry{name: "src/"}, // a directory
		entry{name: "src/main.c", data: "int main(){}"},
		entry{name: "README.md", data: "hello"},
		entry{name: "README.md", data: "second of the name"},
		entry{name: "../escape.txt", data: "x"},
		entry{name: "/etc/passwd", data: "x"},
		entry{name: `dir\win.txt`, data: "x"},
		entry{name: "a/./b", data: "x"},
		entry{name: "link", data: "target", mode: fs.ModeSymlink | 0o777},
		entry{name: "bad\x07name", data: "x"},
		entry{name: "bomb.bin", raw: deflate(t, zeros), declared: uint32(len(zeros)), crc: crc32.ChecksumIEEE(zeros), method: zip.Deflate},
		entry{name: "huge.bin", raw: []byte("tiny"), declared: 300 << 20, method: zip.Store},
		entry{name: "locked.txt", raw: []byte("0123456789abcdef"), declared: 4, method: zip.Deflate, encryptedFlags: true},
		entry{name: "odd.bin", raw: []byte("xx"), declared: 2, method: 99},
	)
	members, total, err := List(z, z.Size())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range members {
		got = append(got, m.Name+"|"+m.Refused)
	}
	want := []string{"src/main.c|", "README.md|", "bomb.bin|it inflates to more than 100 times its compressed size",
		"huge.bin|larger than 256 MiB", "locked.txt|encrypted", "odd.bin|compressed by method 99, which is not supported"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || total != len(want) {
		t.Errorf("listed (%d):\n%s\nwant:\n%s", total, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if members[0].Size != 12 || members[1].Index != 2 {
		t.Errorf("member fields: %+v %+v", members[0], members[1])
	}

	for _, c := range []struct {
		name, want string
		err        string
	}{
		{"src/main.c", "int main(){}", ""},
		{"README.md", "hello", ""}, // the first of the name
		{"src/", "", "no such member"},
		{"../escape.txt", "", "no such member"},
		{"/etc/passwd", "", "no such member"},
		{"etc/passwd", "", "no such member"},
		{`dir\win.txt`, "", "no such member"},
		{"link", "", "no such member"},
		{"bomb.bin", "", "inflates to more than"},
		{"huge.bin", "", "larger than"},
		{"locked.txt", "", "encrypted"},
		{"", "", "no such member"},
	} {
		rc, _, err := Open(z, z.Size(), c.name)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("open %q: %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("open %q: %v", c.name, err)
			continue
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(b) != c.want {
			t.Errorf("read %q: %q %v", c.name, b, err)
		}
	}
}

// TestLyingHeader: a member that inflates past the size its header
// declares is cut off with an error, never read whole.
func TestLyingHeader(t *testing.T) {
	data := bytes.Repeat([]byte("A"), 1<<20)
	z := archive(t, entry{name: "liar.txt", raw: deflate(t, data), declared: 1000, crc: crc32.ChecksumIEEE(data), method: zip.Deflate})
	rc, m, err := Open(z, z.Size(), "liar.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	n, err := io.Copy(io.Discard, rc)
	if err == nil || n > 1000 || m.Size != 1000 {
		t.Errorf("read %d bytes (declared %d), err %v: want an error by 1000 bytes", n, m.Size, err)
	}
}

func TestNotZip(t *testing.T) {
	r := strings.NewReader("plain text, not an archive")
	if _, _, err := List(r, r.Size()); !errors.Is(err, ErrNotZip) {
		t.Errorf("List of text: %v", err)
	}
	if _, _, err := Open(r, r.Size(), "a"); !errors.Is(err, ErrNotZip) {
		t.Errorf("Open of text: %v", err)
	}
}

func TestListBound(t *testing.T) {
	var entries []entry
	for i := range MaxListed + 5 {
		entries = append(entries, entry{name: "f/" + strings.Repeat("x", 1+i%7) + string(rune('a'+i%26)) + "/" + strconv.Itoa(i), data: "."})
	}
	z := archive(t, entries...)
	members, total, err := List(z, z.Size())
	if err != nil || len(members) != MaxListed || total != MaxListed+5 {
		t.Errorf("listed %d of %d (%v), want %d of %d", len(members), total, err, MaxListed, MaxListed+5)
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"a.txt": true, "dir/sub/file.bin": true, "spaces ok.txt": true, "ünïcode.txt": true,
		"": false, ".": false, "..": false, "../a": false, "a/../b": false, "a/./b": false, "/a": false, "a/": false,
		"a//b": false, `a\b`: false, "a\x00b": false, "a\u200bb": false, strings.Repeat("a", MaxNameBytes+1): false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}
