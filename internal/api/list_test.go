package api

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// TestSplicedGzipListDecompressesToThePlainList: the gzip member spliced
// from the entries' deflate blocks is the plain list, whatever the marks
// and whichever entry opens the list.
func TestSplicedGzipListDecompressesToThePlainList(t *testing.T) {
	sum := func(slug string, attempts int64) *live.ChallengeSummary {
		return &live.ChallengeSummary{ID: slug, Slug: slug, Title: "T " + slug, Categories: []string{"web"}, Difficulty: ctf.Easy,
			Points: 100, Type: "standard", AttemptsCount: attempts, CreatedAt: "2026-01-05T10:00:00.000Z"}
	}
	a, b, c := newFragment("a", 1, sum("a", 3), true), newFragment("b", 2, sum("b", 0), false), newFragment("c", 3, sum("c", 7), false)
	// b opens the list once a is gone: its blocks lose their comma.
	moved := *b
	moved.first = true
	moved.compress()
	for _, snap := range []*listSnap{{frags: []*fragment{a, b, c}}, {frags: []*fragment{&moved, c}}, {frags: nil}} {
		for _, marks := range [][]bool{nil, {true, false, true}, {false, true, false}, {true, true, true}} {
			if marks != nil && len(marks) != len(snap.frags) {
				marks = marks[:len(snap.frags)]
			}
			plain := snap.appendPlain(nil, marks)
			if !json.Valid(plain) {
				t.Fatalf("not JSON: %s", plain)
			}
			gzMarks := marks
			if gzMarks == nil {
				gzMarks = make([]bool, len(snap.frags))
			}
			zr, err := gzip.NewReader(bytes.NewReader(snap.appendGzip(nil, plain, gzMarks)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr) // also checks the CRC and size trailer
			if err != nil {
				t.Fatalf("gunzip: %v", err)
			}
			if !bytes.Equal(got, plain) {
				t.Errorf("spliced gzip = %s, want %s", got, plain)
			}
		}
	}
}
