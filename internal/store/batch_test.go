package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
)

// TestBatchFailsOnlyWhatItMust: one group commit holding a solve, a
// duplicate of it, a rate-limited attempt, a solve of an already solved
// challenge and good wrong submissions answers each on its own: the
// refusals are 409 and 429 for those submissions alone, and the rest are
// recorded, in order, once, in one transaction.
func TestBatchFailsOnlyWhatItMust(t *testing.T) {
	_, dbs := raceEvent(t, 4)
	db := dbs[0]
	ctx := context.Background()
	limit := store.RateLimit{Max: 3, Window: time.Minute}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	sub := func(user, chal string, correct bool) store.Submission {
		return store.Submission{UserID: user, ChallengeID: chal, Flag: fmt.Sprintf("flag{%s %v}", chal, correct), Correct: correct, At: at}
	}
	// u00 and u01 are at the rate limit on c2; u02 solved c1 already.
	for range limit.Max {
		for _, u := range []string{"u00", "u01"} {
			if _, err := db.Play().RecordSubmission(ctx, sub(u, "c2", false), limit); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := db.Play().RecordSubmission(ctx, sub("u02", "c1", true), limit); err != nil {
		t.Fatal(err)
	}
	before, err := db.Heads(ctx)
	if err != nil {
		t.Fatal(err)
	}

	batch := []store.Submission{
		sub("u00", "c1", true),  // a solve
		sub("u00", "c1", true),  // its duplicate: 409
		sub("u01", "c2", false), // over the limit: 429
		sub("u01", "c2", true),  // a right flag over the limit: 429 too
		sub("u02", "c1", false), // solved already, whatever the flag: 409
		sub("u03", "c2", false), // wrong
		sub("u03", "c2", false), // wrong again, after the first in the same batch
		sub("u01", "c1", true),  // a second solve of c1, after u00's
		sub("u03", "c1", true),  // and a third
		// Alone on their user and challenge (PostgreSQL checks and
		// records these in one statement):
		sub("u00", "c2", false), // over the limit: 429
		sub("u02", "c2", false), // wrong
	}
	want := []ctf.Code{"", ctf.Conflict, ctf.RateLimited, ctf.RateLimited, ctf.Conflict, "", "", "", "", ctf.RateLimited, ""}
	out, err := db.Play().RecordSubmissions(ctx, batch, limit)
	if err != nil {
		t.Fatalf("the batch failed as a whole: %v", err)
	}
	if len(out) != len(batch) {
		t.Fatalf("%d outcomes for %d submissions", len(out), len(batch))
	}
	var solves []*ctf.Solve
	var attempts []int64
	for i, o := range out {
		var code ctf.Code
		var de *ctf.Error
		if errors.As(o.Err, &de) {
			code = de.Code
		} else if o.Err != nil {
			t.Fatalf("submission %d: %v, want a domain error", i, o.Err)
		}
		if code != want[i] {
			t.Errorf("submission %d (%s on %s, correct %v): refused %q, want %q", i, batch[i].UserID, batch[i].ChallengeID, batch[i].Correct, code, want[i])
		}
		if code == ctf.RateLimited && (de.RetryAfter <= 0 || de.RetryAfter > limit.Window) {
			t.Errorf("submission %d: Retry-After %v, want within the window", i, de.RetryAfter)
		}
		switch {
		case o.Err != nil:
			if o.Seq != 0 || o.Solve != nil {
				t.Errorf("submission %d: refused yet recorded as %+v", i, o.Recorded)
			}
		case batch[i].Correct:
			if o.Solve == nil || o.Solve.UserID != batch[i].UserID || o.Solve.Seq != o.Seq {
				t.Fatalf("submission %d: a right flag recorded as %+v", i, o.Recorded)
			}
			solves = append(solves, o.Solve)
		default:
			if o.Solve != nil || o.Seq == 0 {
				t.Errorf("submission %d: a wrong flag recorded as %+v", i, o.Recorded)
			}
			attempts = append(attempts, o.Seq)
		}
	}
	// The batch's rows are numbered in its order, and its solves of c1 are
	// in (time, seq) order: u00 takes the first blood.
	for i := 1; i < len(solves); i++ {
		if solves[i].Seq <= solves[i-1].Seq || solves[i].At.Before(solves[i-1].At) {
			t.Errorf("solve %d (seq %d at %v) is not after solve %d (seq %d at %v)", i, solves[i].Seq, solves[i].At, i-1, solves[i-1].Seq, solves[i-1].At)
		}
	}
	if len(attempts) != 3 || attempts[0] == attempts[1] || attempts[1] == attempts[2] || attempts[0] == attempts[2] {
		t.Errorf("attempt numbers %v, want three, distinct", attempts)
	}

	snap, err := dbs[1].Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	solvers := map[string][]string{}
	for _, s := range snap.Solves {
		solvers[s.ChallengeID] = append(solvers[s.ChallengeID], s.UserID)
	}
	if got := fmt.Sprint(solvers["c1"]); got != "[u02 u00 u01 u03]" {
		t.Errorf("solvers of c1 in (time, seq) order: %s, want [u02 u00 u01 u03]", got)
	}
	if got := snap.WrongAttempts["c2"]; got != int64(2*limit.Max+3) {
		t.Errorf("%d wrong attempts on c2, want %d", got, 2*limit.Max+3)
	}
	after, err := dbs[2].Heads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Solve-before.Solve != 3 || after.Attempt-before.Attempt != 3 || after.Stream-before.Stream != 3 {
		t.Errorf("the batch moved heads by %d solves, %d attempts, %d stream events; want 3, 3, 3",
			after.Solve-before.Solve, after.Attempt-before.Attempt, after.Stream-before.Stream)
	}
	rows, err := dbs[1].StreamAfter(ctx, before.Stream, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if r.Kind != ctf.StreamSolve || r.Ref != solves[i].ID || r.Seq != before.Stream+int64(i)+1 {
			t.Errorf("stream row %d: %+v, want solve %s at %d", i, r, solves[i].ID, before.Stream+int64(i)+1)
		}
	}
}

// TestBatchOfRefusalsWritesNothing: a batch whose every submission is
// refused commits nothing, not even a stream or change notification.
func TestBatchOfRefusalsWritesNothing(t *testing.T) {
	_, dbs := raceEvent(t, 1)
	ctx := context.Background()
	s := store.Submission{UserID: "u00", ChallengeID: "c1", Flag: "flag{c1}", Correct: true, At: time.Now()}
	if _, err := dbs[0].Play().RecordSubmission(ctx, s, store.RateLimit{}); err != nil {
		t.Fatal(err)
	}
	before, err := dbs[0].Heads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out, err := dbs[0].Play().RecordSubmissions(ctx, []store.Submission{s, s}, store.RateLimit{})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range out {
		if o.Err == nil {
			t.Errorf("submission %d recorded again: %+v", i, o.Recorded)
		}
	}
	if after, err := dbs[0].Heads(ctx); err != nil || after != before {
		t.Errorf("heads moved from %+v to %+v (%v)", before, after, err)
	}
}
