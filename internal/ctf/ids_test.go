package ctf

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendTimeIsTheLayout: the hand-written AppendTime writes what
// AppendFormat with TimeFormat writes, for times across the years it
// handles itself and beyond them, in any zone.
func TestAppendTimeIsTheLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	zone := time.FixedZone("x", -7*3600-30*60)
	times := []time.Time{time.Time{}, time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}
	for range 10000 {
		times = append(times, time.Unix(rng.Int64N(400_000_000_000)-100_000_000_000, rng.Int64N(1e9)).In(zone))
	}
	for _, tm := range times {
		want := tm.UTC().Format(TimeFormat)
		if got := string(AppendTime([]byte("x"), tm)); got != "x"+want {
			t.Fatalf("AppendTime(%v) = %q, want %q", tm, got, "x"+want)
		}
	}
}
