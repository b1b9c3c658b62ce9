package httpx

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestRetrySeconds: a wait is told in whole seconds, rounded up (a client
// that waits what it is told is not early), and at least 1.
func TestRetrySeconds(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want int
	}{
		{-time.Second, 1},
		{0, 1},
		{time.Nanosecond, 1},
		{999 * time.Millisecond, 1},
		{time.Second, 1},
		{time.Second + time.Nanosecond, 2},
		{2500 * time.Millisecond, 3},
		{2999 * time.Millisecond, 3},
		{30 * time.Second, 30},
		{89*time.Second + 100*time.Millisecond, 90},
		{10 * time.Minute, 600},
	} {
		if got := RetrySeconds(tc.d); got != tc.want {
			t.Errorf("RetrySeconds(%v) = %d, want %d", tc.d, got, tc.want)
		}
		hd := http.Header{}
		SetRetryAfter(hd, tc.d)
		if got, want := hd.Get("Retry-After"), fmt.Sprint(tc.want); got != want {
			t.Errorf("SetRetryAfter(%v): Retry-After %q, want %q", tc.d, got, want)
		}
	}
}

// TestWait: only a throttle or an unavailable platform asks for a wait;
// any other answer would be the same later.
func TestWait(t *testing.T) {
	with := func(code ctf.Code, d time.Duration) error {
		e := ctf.Errorf(code, "x")
		e.RetryAfter = d
		return e
	}
	for _, tc := range []struct {
		name string
		err  error
		want time.Duration
	}{
		{"rate limited", with(ctf.RateLimited, 1500*time.Millisecond), 1500 * time.Millisecond},
		{"unavailable", with(ctf.Unavailable, 5*time.Second), 5 * time.Second},
		{"wrapped", fmt.Errorf("submit: %w", with(ctf.RateLimited, time.Minute)), time.Minute},
		{"rate limited without a wait", with(ctf.RateLimited, 0), 0},
		{"another code", with(ctf.Invalid, time.Second), 0},
		{"not a domain error", errors.New("x"), 0},
		{"nil", nil, 0},
	} {
		if got := Wait(tc.err); got != tc.want {
			t.Errorf("%s: Wait = %v, want %v", tc.name, got, tc.want)
		}
	}
}
