package platform

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestAttemptsLeftAgreesWithTheLimit: each wrong flag takes one from
// AttemptsLeft; at 0 the next submission is RateLimited, never before; the
// oldest wrong flag leaving the window gives one back, at NextAt.
func TestAttemptsLeftAgreesWithTheLimit(t *testing.T) {
	f := newFixture(t) // 10 wrong flags a minute
	ctx := context.Background()
	pat := f.as("pat")
	left := func() Attempts {
		t.Helper()
		a, err := f.svc.Play.AttemptsLeft(ctx, pat, "a")
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if a := left(); !a.Limited || a.Max != 10 || a.Left != 10 || !a.NextAt.IsZero() {
		t.Fatalf("before any try: %+v", a)
	}
	first := f.clock.Now()
	for n := 1; n <= 10; n++ {
		if _, err := f.svc.Play.Submit(ctx, pat, "a", "flag{wrong}"); !errors.Is(err, ErrWrongFlag) {
			t.Fatalf("wrong flag %d: %v", n, err)
		}
		if a := left(); a.Left != 10-n || !a.NextAt.Equal(first.Add(time.Minute)) {
			t.Fatalf("after %d wrong flags: %+v, want %d left, next at %v", n, a, 10-n, first.Add(time.Minute))
		}
		f.clock.Add(time.Second)
	}
	if _, err := f.svc.Play.Submit(ctx, pat, "a", "flag{a}"); ctf.ErrorCode(err) != ctf.RateLimited {
		t.Fatalf("at 0 left, a right flag: %v, want RateLimited", err)
	}
	f.clock.Add(first.Add(time.Minute).Sub(f.clock.Now()) + time.Millisecond) // the first leaves the window
	if a := left(); a.Left != 1 || !a.NextAt.Equal(first.Add(time.Minute+time.Second)) {
		t.Errorf("once the first left the window: %+v", a)
	}
	if _, err := f.svc.Play.Submit(ctx, pat, "a", "flag{a}"); err != nil {
		t.Errorf("with 1 left, a right flag: %v", err)
	}
	if _, err := f.svc.Play.AttemptsLeft(ctx, pat, "nope"); !errors.Is(err, ctf.ErrNoChallenge) {
		t.Errorf("unknown slug: %v", err)
	}
	if _, err := f.svc.Play.AttemptsLeft(ctx, ctf.Viewer{}, "a"); ctf.ErrorCode(err) != ctf.Unauthorized {
		t.Errorf("anonymous: %v", err)
	}
}
