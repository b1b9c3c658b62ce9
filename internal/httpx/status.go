package httpx

import (
	"net/http"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// statuses is the one map from a domain error's code to its HTTP status.
var statuses = map[ctf.Code]int{
	ctf.Invalid:      http.StatusBadRequest,
	ctf.Unauthorized: http.StatusUnauthorized,
	ctf.Forbidden:    http.StatusForbidden,
	ctf.NotFound:     http.StatusNotFound,
	ctf.Conflict:     http.StatusConflict,
	ctf.RateLimited:  http.StatusTooManyRequests,
	ctf.Unavailable:  http.StatusServiceUnavailable,
	ctf.Internal:     http.StatusInternalServerError,
}

// Status is the HTTP status of err: that of its code, 500 for an error that
// is not a domain error (or a code without a status, which would be a bug).
func Status(err error) int {
	if s, ok := statuses[ctf.ErrorCode(err)]; ok {
		return s
	}
	return http.StatusInternalServerError
}
