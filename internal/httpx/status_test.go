package httpx

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestStatus: each code has its status, wrapped or not; an error that is
// not a domain error is a 500, and so is a code the map does not know.
func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{ctf.Errorf(ctf.Invalid, "x"), http.StatusBadRequest},
		{ctf.Errorf(ctf.Unauthorized, "x"), http.StatusUnauthorized},
		{ctf.Errorf(ctf.Forbidden, "x"), http.StatusForbidden},
		{ctf.Errorf(ctf.NotFound, "x"), http.StatusNotFound},
		{ctf.Errorf(ctf.Conflict, "x"), http.StatusConflict},
		{ctf.Errorf(ctf.RateLimited, "x"), http.StatusTooManyRequests},
		{ctf.Errorf(ctf.Unavailable, "x"), http.StatusServiceUnavailable},
		{ctf.Errorf(ctf.Internal, "x"), http.StatusInternalServerError},
		{fmt.Errorf("load: %w", ctf.Errorf(ctf.NotFound, "x")), http.StatusNotFound},
		{errors.New("disk on fire"), http.StatusInternalServerError},
		{ctf.Errorf("no_such_code", "x"), http.StatusInternalServerError},
	} {
		if got := Status(tc.err); got != tc.want {
			t.Errorf("Status(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
