package httpx

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// RetrySeconds is d in whole seconds as a client is told to wait it
// (Retry-After, the MCP tool's retryAfterSeconds): rounded up, so that a
// client that waits what it is told is never refused again for being a
// fraction of a second early, and at least 1.
func RetrySeconds(d time.Duration) int {
	return max(int((d+time.Second-1)/time.Second), 1)
}

// SetRetryAfter sets Retry-After to d in whole seconds (RetrySeconds).
func SetRetryAfter(hd http.Header, d time.Duration) {
	hd.Set("Retry-After", strconv.Itoa(RetrySeconds(d)))
}

// Wait is how long err asks a client to wait before trying again: the
// RetryAfter of a RateLimited or Unavailable domain error, else 0 (no
// Retry-After: the answer would be the same later).
func Wait(err error) time.Duration {
	var e *ctf.Error
	if errors.As(err, &e) && (e.Code == ctf.RateLimited || e.Code == ctf.Unavailable) && e.RetryAfter > 0 {
		return e.RetryAfter
	}
	return 0
}
