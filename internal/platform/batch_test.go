package platform

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/testtime"
)

// heldStore holds the first group commit in the database until released,
// so that the test can queue submissions behind it and know they go
// together.
type heldStore struct {
	Store
	entered, release chan struct{}
	once             sync.Once
}

func (h *heldStore) RecordSubmissions(ctx context.Context, subs []store.Submission, limit store.RateLimit) ([]store.SubmitOutcome, error) {
	h.once.Do(func() {
		close(h.entered)
		<-h.release
	})
	return h.Store.RecordSubmissions(ctx, subs, limit)
}

// batchSpy records the size of every group commit.
type batchSpy struct {
	Observer
	mu    sync.Mutex
	sizes []int
}

func (b *batchSpy) SubmitBatch(size int, _ time.Duration) {
	b.mu.Lock()
	b.sizes = append(b.sizes, size)
	b.mu.Unlock()
}

// TestGroupCommitAnswersEachSubmission: submissions that arrive while a
// batch is in the database go together in the next one, and each gets its
// own answer: of a player's right flag sent twice, one 200 and one 409; of
// twelve wrong flags, ten 400s and, past the rate limit, two 429s. The
// hot state after the batch is what a state built from the database holds.
func TestGroupCommitAnswersEachSubmission(t *testing.T) {
	f := newFixture(t)
	spy := &batchSpy{Observer: NopObserver}
	held := &heldStore{Store: storesOf(f.db), entered: make(chan struct{}), release: make(chan struct{})}
	svc := newService(held, Options{Now: f.clock.Now, FilesDir: t.TempDir(), RateLimit: store.RateLimit{Max: 10, Window: time.Minute}, Observer: spy})
	if err := svc.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pam, pat := f.as("pam"), f.as("pat")

	first := make(chan error, 1)
	go func() { _, err := svc.Play.Submit(ctx, pat, "a", "flag{first}"); first <- err }()
	<-held.entered // the first batch (pat's wrong flag) is in the database

	type answer struct {
		label string
		res   live.SubmitResult
		err   error
	}
	var wg sync.WaitGroup
	answers := make(chan answer, 14)
	send := func(label string, v ctf.Viewer, slug, flag string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := svc.Play.Submit(ctx, v, slug, flag)
			answers <- answer{label, res, err}
		}()
	}
	send("pat a right", pat, "a", "flag{a}")
	send("pat a right", pat, "a", " flag{a} ")
	for range 12 {
		send("pam b wrong", pam, "b", "flag{nope}")
	}
	// Every one of them waits for the next batch.
	for deadline := time.Now().Add(testtime.Scale(10 * time.Second)); ; {
		svc.batch.mu.Lock()
		n := len(svc.batch.queue)
		svc.batch.mu.Unlock()
		if n == 14 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d submissions queued, want 14", n)
		}
		time.Sleep(time.Millisecond)
	}
	close(held.release)
	if err := <-first; !errors.Is(err, ErrWrongFlag) {
		t.Fatalf("first submission: %v, want a wrong flag", err)
	}
	wg.Wait()
	close(answers)

	got := map[string][]string{}
	for a := range answers {
		outcome := "200"
		if a.err != nil {
			outcome = string(ctf.ErrorCode(a.err))
		} else if !a.res.Success || a.res.Points != 100 || len(a.res.NewBadges) == 0 || a.res.NewBadges[0].ID != "first-solve" {
			t.Errorf("%s: %+v, want success, 100 points, the first-solve badge", a.label, a.res)
		}
		got[a.label] = append(got[a.label], outcome)
	}
	for label, want := range map[string][]string{
		"pat a right": {"200", "conflict"},
		"pam b wrong": append(slices.Repeat([]string{"invalid"}, 10), "rate_limited", "rate_limited"),
	} {
		slices.Sort(got[label])
		slices.Sort(want)
		if !slices.Equal(got[label], want) {
			t.Errorf("%s: answers %v, want %v", label, got[label], want)
		}
	}
	spy.mu.Lock()
	sizes := slices.Clone(spy.sizes)
	spy.mu.Unlock()
	if !slices.Equal(sizes, []int{1, 14}) {
		t.Errorf("batch sizes %v, want [1 14]", sizes)
	}
	// The state the batch left is the state the database holds.
	fresh := f.replica()
	if a, b := boardJSON(svc), boardJSON(fresh); a != b {
		t.Errorf("leaderboard after the batch:\n%s\nrebuilt from the database:\n%s", a, b)
	}
	if a, b := listJSON(svc), listJSON(fresh); a != b {
		t.Errorf("challenge list after the batch:\n%s\nrebuilt from the database:\n%s", a, b)
	}
}

// TestLoneSubmissionRunsAtOnce: with nothing else in flight a submission
// starts its own batch, of one, at once.
func TestLoneSubmissionRunsAtOnce(t *testing.T) {
	spy := &batchSpy{Observer: NopObserver}
	f := newFixture(t, Options{Observer: spy})
	for i := range 3 {
		if _, err := f.svc.Play.Submit(context.Background(), f.as("pat"), "a", "flag{wrong}"); !errors.Is(err, ErrWrongFlag) {
			t.Fatalf("submission %d: %v", i, err)
		}
	}
	if !slices.Equal(spy.sizes, []int{1, 1, 1}) {
		t.Errorf("batch sizes %v, want [1 1 1]", spy.sizes)
	}
}

// panickyStore fails its first group commit with a panic, as a bug would.
type panickyStore struct {
	Store
	once sync.Once
}

func (p *panickyStore) RecordSubmissions(ctx context.Context, subs []store.Submission, limit store.RateLimit) ([]store.SubmitOutcome, error) {
	p.once.Do(func() { panic("a bug") })
	return p.Store.RecordSubmissions(ctx, subs, limit)
}

// TestGroupCommitSurvivesABug: a batch that panics answers its callers
// with an internal error, and the batches after it still run.
func TestGroupCommitSurvivesABug(t *testing.T) {
	f := newFixture(t)
	svc := newService(&panickyStore{Store: storesOf(f.db)}, Options{Now: f.clock.Now, FilesDir: t.TempDir()})
	if err := svc.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Play.Submit(context.Background(), f.as("pat"), "a", "flag{x}"); ctf.ErrorCode(err) != ctf.Internal {
		t.Fatalf("the batch that panicked answered %v, want an internal error", err)
	}
	if _, err := svc.Play.Submit(context.Background(), f.as("pat"), "a", "flag{x}"); !errors.Is(err, ErrWrongFlag) {
		t.Fatalf("the next batch answered %v, want a wrong flag", err)
	}
}
