package httpx

import (
	"net/http/httptest"
	"testing"
)

// TestAcceptsGzip: Accept-Encoding is read with its weights (RFC 9110,
// section 12.5.3): gzip's own entry decides, else the wildcard's; a zero
// weight refuses; the coding's and the parameter's names are
// case-insensitive; none, or an unknown coding alone, takes no gzip.
func TestAcceptsGzip(t *testing.T) {
	for _, tc := range []struct {
		header string // "-": no header at all
		want   bool
	}{
		{"-", false},
		{"", false},
		{"gzip", true},
		{"GZip", true},
		{"gzip, deflate, br", true},
		{"br, gzip", true},
		{"deflate", false},
		{"identity", false},
		{"br;q=1.0, gzip;q=0.8, *;q=0.1", true},
		{" gzip ; q=0.5 ", true},
		{"gzip;q=1", true},
		{"gzip;q=0.001", true},
		{"gzip;q=0", false},
		{"gzip;q=0.", false},
		{"gzip;q=0.0", false},
		{"gzip;q=0.000", false},
		{"gzip; q=0", false},
		{"gzip ; q = 0", false},
		{"gzip;Q=0", false},
		{"deflate, gzip;q=0", false},
		{"gzip;q=0, *", false}, // gzip's own weight wins over the wildcard
		{"*, gzip;q=0", false}, // in either order
		{"*;q=0, gzip", true},  // and the other way round
		{"*", true},            // the wildcard counts
		{"*;q=0.5", true},      //
		{"*;q=0", false},       //
		{"identity, *;q=0", false},
		{"gzipx", false},        // another coding, not gzip
		{"x-gzip", false},       // not taken for gzip (as before)
		{"gzip;q=abc", true},    // an unreadable weight counts as 1
		{"gzip;q=0.0000", true}, // not a qvalue: counts as 1
		{"gzip;level=1;q=0", false},
		{",,gzip", true},
		{"gzip;q=", true},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if tc.header != "-" {
			r.Header.Set("Accept-Encoding", tc.header)
		}
		if got := AcceptsGzip(r); got != tc.want {
			t.Errorf("Accept-Encoding %q: AcceptsGzip = %v, want %v", tc.header, got, tc.want)
		}
	}
}

// TestAcceptsGzipAllocatesNothing: it runs on every request of the hot
// lists, whose answers are written without allocating.
func TestAcceptsGzipAllocatesNothing(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Accept-Encoding", "br;q=1.0, deflate ; q=0.5, *;q=0.1, gzip;q=0.8")
	if n := testing.AllocsPerRun(100, func() { AcceptsGzip(r) }); n != 0 {
		t.Errorf("AcceptsGzip allocates %v times a call, want 0", n)
	}
}

func BenchmarkAcceptsGzip(b *testing.B) {
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
	b.ReportAllocs()
	for b.Loop() {
		AcceptsGzip(r)
	}
}
