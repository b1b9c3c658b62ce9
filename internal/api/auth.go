package api

import (
	"net/http"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/httpx"
	"github.com/flagshipctf/flagship/internal/platform"
)

var errCrossOrigin = ctf.Errorf(ctf.Forbidden, "cross-origin request refused")

// viewer resolves the caller. With required, an anonymous caller is an
// error. A presented API key that does not authenticate is always an error;
// a stale session cookie on an optional endpoint reads as anonymous and is
// cleared.
func (h *Handler) viewer(w http.ResponseWriter, r *http.Request, required bool) (platform.Viewer, error) {
	key, present, err := httpx.PresentedKey(r)
	if err != nil {
		return platform.Viewer{}, err
	}
	if present {
		return h.svc.Accounts.AuthenticateKey(r.Context(), key)
	}
	session := httpx.Session(h.SecureCookies)
	if token, ok := session.Token(r); ok {
		v, err := h.svc.Accounts.AuthenticateSession(r.Context(), token)
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
		session.Clear(w)
		if required {
			return platform.Viewer{}, err
		}
		return platform.Viewer{}, nil
	}
	if required {
		return platform.Viewer{}, httpx.ErrNoKey
	}
	return platform.Viewer{}, nil
}
