package live

import (
	"reflect"
	"testing"
	"time"
)

// TestSeqTrackerAppliesEachRowOnce replays what PostgreSQL can show
// readers: numbers committed out of order, a number that never commits,
// and this process's own rows mixed in.
func TestSeqTrackerAppliesEachRowOnce(t *testing.T) {
	start := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	tr := newSeqTracker(10)
	applied := map[int64]int{}
	read := func(now time.Time, committed ...int64) {
		after, gaps := tr.query()
		var batch []int64
		for _, s := range committed {
			if s > after || contains(gaps, s) {
				batch = append(batch, s)
			}
		}
		for _, s := range batch {
			if tr.admit(s) {
				applied[s]++
			}
		}
		tr.advance(batch, now)
	}
	tr.markOwn(12) // this process wrote 12 and applied it
	applied[12]++
	// 11 is still in flight; 12 and 13 are visible.
	read(start, 12, 13)
	if _, gaps := tr.query(); !reflect.DeepEqual(gaps, []int64{11}) {
		t.Fatalf("gaps = %v, want [11]", gaps)
	}
	// 11 commits; 14 rolled back and never appears; 15 is visible.
	read(start.Add(time.Second), 11, 12, 13, 15)
	if _, gaps := tr.query(); !reflect.DeepEqual(gaps, []int64{14}) {
		t.Fatalf("gaps = %v, want [14]", gaps)
	}
	// Past gapLag the rolled-back number is forgotten.
	read(start.Add(gapLag+2*time.Second), 11, 12, 13, 15)
	if after, gaps := tr.query(); after != 15 || len(gaps) != 0 {
		t.Fatalf("after %d gaps %v, want 15 and none", after, gaps)
	}
	for _, s := range []int64{11, 12, 13, 15} {
		if applied[s] != 1 {
			t.Errorf("row %d applied %d times, want once", s, applied[s])
		}
	}
	if applied[14] != 0 || applied[10] != 0 {
		t.Errorf("applied rows that were never read: %v", applied)
	}
}

func TestSeqTrackerBoundsGaps(t *testing.T) {
	tr := newSeqTracker(0)
	tr.advance([]int64{maxGaps + 100}, time.Now())
	if _, gaps := tr.query(); len(gaps) != maxGaps || gaps[0] != 100 {
		t.Fatalf("kept %d gaps from %v, want the newest %d", len(gaps), gaps[:1], maxGaps)
	}
}

func contains(list []int64, x int64) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}
