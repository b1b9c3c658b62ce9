package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

func asDomain(err error, target **ctf.Error) bool { return errors.As(err, target) }

var (
	errNoAuth      = ctf.Errorf(ctf.Unauthorized, "authentication required: send Authorization: Bearer <API key> or X-API-Key")
	errBadHeader   = ctf.Errorf(ctf.Unauthorized, "malformed Authorization header: expected Bearer <API key>")
	errTwoKeys     = ctf.Errorf(ctf.Unauthorized, "Authorization and X-API-Key name different keys")
	errCrossOrigin = ctf.Errorf(ctf.Forbidden, "cross-origin request refused")
)

// PresentedKey extracts the API key from the request, as every front door
// that takes keys reads it (the API, /mcp). present is true when
// the caller offered a key, even a malformed one: such a request is never
// treated as anonymous. An Authorization header with another scheme than
// Bearer (a proxy's Basic credentials) is not an API key: it is ignored.
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
		return "", true, errNoAuth
	}
	return key, true, nil
}

// viewer resolves the caller. With required, an anonymous caller is an
// error. A presented API key that does not authenticate is always an error;
// a stale session cookie on an optional endpoint reads as anonymous and is
// cleared.
func (h *Handler) viewer(w http.ResponseWriter, r *http.Request, required bool) (platform.Viewer, error) {
	key, present, err := PresentedKey(r)
	if err != nil {
		return platform.Viewer{}, err
	}
	if present {
		return h.svc.AuthenticateKey(r.Context(), key)
	}
	session := ctf.SessionCookieName(h.SecureCookies)
	if c, err := r.Cookie(session); err == nil {
		v, err := h.svc.AuthenticateSession(r.Context(), c.Value)
		if err == nil {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				// A cookie rides along on cross-site requests; a key does not.
				if h.csrf.Check(r) != nil {
					return platform.Viewer{}, errCrossOrigin
				}
			}
			return v, nil
		}
		if ctf.ErrorCode(err) != ctf.Unauthorized {
			return platform.Viewer{}, err
		}
		http.SetCookie(w, &http.Cookie{Name: session, Value: "", Path: "/", MaxAge: -1,
			HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: h.SecureCookies})
		if required {
			return platform.Viewer{}, err
		}
		return platform.Viewer{}, nil
	}
	if required {
		return platform.Viewer{}, errNoAuth
	}
	return platform.Viewer{}, nil
}
