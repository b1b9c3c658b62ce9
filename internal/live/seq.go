package live

import (
	"slices"
	"time"
)

// gapLag is how long a sequence number that was skipped may still turn up.
// On PostgreSQL numbers are handed out at insert but rows become visible at
// commit, so a catch-up can read 101 before 100 commits; a transaction
// lives at most the statement timeout (5 s by default), so after gapLag a
// missing number was rolled back and is forgotten.
const gapLag = 30 * time.Second

// maxGaps bounds the numbers a catch-up asks for by name; past it the
// tracker forgets the oldest (a burst of failed inserts, not in-flight rows).
const maxGaps = 512

// seqTracker follows one append-only table (solves or attempts) by its
// sequence numbers, so every row is applied exactly once however rows from
// this and other processes interleave.
type seqTracker struct {
	max  int64               // the highest number a catch-up has read
	own  map[int64]bool      // this process's rows above max, already applied
	gaps map[int64]time.Time // numbers up to max not read yet, and since when
}

func newSeqTracker(max int64) seqTracker {
	return seqTracker{max: max, own: map[int64]bool{}, gaps: map[int64]time.Time{}}
}

// newSeqTrackerAt starts a tracker from a snapshot that saw rows up to
// max, of which seen are those above max-window: the numbers in that window
// the snapshot did not see may belong to transactions still in flight.
func newSeqTrackerAt(max, window int64, seen []int64, now time.Time) seqTracker {
	t := newSeqTracker(0)
	if max > window {
		t.max = max - window
	}
	inWindow := make([]int64, 0, len(seen)+1)
	for _, s := range seen {
		if s > t.max {
			inWindow = append(inWindow, s)
		}
	}
	t.advance(append(inWindow, max), now)
	return t
}

// markOwn records a row this process applied itself.
func (t *seqTracker) markOwn(seq int64) { t.own[seq] = true }

// query returns what a catch-up must read: rows after max, and the gaps.
func (t *seqTracker) query() (after int64, gaps []int64) {
	gaps = make([]int64, 0, len(t.gaps))
	for s := range t.gaps {
		gaps = append(gaps, s)
	}
	slices.Sort(gaps)
	return t.max, gaps
}

// admit reports whether a row read by a catch-up is new to the state.
func (t *seqTracker) admit(seq int64) bool {
	if t.own[seq] {
		delete(t.own, seq)
		return false
	}
	if seq > t.max {
		return true
	}
	if _, ok := t.gaps[seq]; ok {
		delete(t.gaps, seq)
		return true
	}
	return false
}

// advance moves max past the rows a catch-up read (seqs, any order), notes
// the numbers it skipped as gaps, and forgets gaps older than gapLag.
func (t *seqTracker) advance(seqs []int64, now time.Time) {
	newMax := t.max
	for _, s := range seqs {
		newMax = max(newMax, s)
	}
	if newMax > t.max {
		read := make(map[int64]bool, len(seqs))
		for _, s := range seqs {
			read[s] = true
		}
		for s := t.max + 1; s <= newMax; s++ {
			if !read[s] {
				t.gaps[s] = now
			}
		}
		t.max = newMax
	}
	for s, since := range t.gaps {
		if now.Sub(since) > gapLag {
			delete(t.gaps, s)
		}
	}
	if len(t.gaps) > maxGaps {
		_, gaps := t.query()
		for _, s := range gaps[:len(gaps)-maxGaps] {
			delete(t.gaps, s)
		}
	}
}
