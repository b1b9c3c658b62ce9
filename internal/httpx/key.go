package httpx

import (
	"net/http"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// The refusals of a presented key, with the sentences clients see.
var (
	// ErrNoKey: no key was presented where one is required (or an empty
	// X-API-Key was).
	ErrNoKey     = ctf.Errorf(ctf.Unauthorized, "authentication required: send Authorization: Bearer <API key> or X-API-Key")
	errBadHeader = ctf.Errorf(ctf.Unauthorized, "malformed Authorization header: expected Bearer <API key>")
	errTwoKeys   = ctf.Errorf(ctf.Unauthorized, "Authorization and X-API-Key name different keys")
)

// PresentedKey extracts the API key from the request, as every front door
// that takes keys reads it (the API, /mcp): "Authorization: Bearer KEY" or
// "X-API-Key: KEY", or both naming the same key. present is true when the
// caller offered a key, even a malformed one: such a request is never
// treated as anonymous, and err (Unauthorized) says what is wrong. An
// Authorization header with another scheme than Bearer (a proxy's Basic
// credentials) is not an API key: it is ignored.
func PresentedKey(r *http.Request) (key string, present bool, err error) {
	var bearer []string
	for _, v := range r.Header["Authorization"] {
		scheme, token, _ := strings.Cut(strings.TrimSpace(v), " ")
		if strings.EqualFold(scheme, "Bearer") {
			bearer = append(bearer, token)
		}
	}
	xkey, hasX := r.Header["X-Api-Key"]
	if len(bearer) == 0 && !hasX {
		return "", false, nil
	}
	if len(bearer) > 1 || len(xkey) > 1 {
		return "", true, errBadHeader
	}
	if len(bearer) == 1 {
		key = strings.TrimSpace(bearer[0])
		if key == "" {
			return "", true, errBadHeader
		}
	}
	if hasX {
		x := strings.TrimSpace(xkey[0])
		if len(bearer) == 1 && x != key {
			return "", true, errTwoKeys
		}
		key = x
	}
	if key == "" {
		return "", true, ErrNoKey
	}
	return key, true, nil
}
