package api

import (
	"net/http"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/httpx"
)

var errCrossOrigin = ctf.Errorf(ctf.Forbidden, "cross-origin request refused")

// viewer resolves the caller. With required, an anonymous caller is an
// error. A presented API key that does not authenticate is always an error;
// a stale session cookie on an optional endpoint reads as anonymous and is
// cleared.
func (h *Handler) viewer(w http.ResponseWriter, r *http.Request, required bool) (ctf.Viewer, error) {
	key, present, err := httpx.PresentedKey(r)
	if err != nil {
		return ctf.Viewer{}, err
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
					return ctf.Viewer{}, errCrossOrigin
				}
			}
			return v, nil
		}
		if ctf.ErrorCode(err) != ctf.Unauthorized {
			return ctf.Viewer{}, err
		}
		if h.svc.Accounts.DropCookie(r.Context(), token) {
			session.Clear(w)
		}
		if required {
			return ctf.Viewer{}, err
		}
		return ctf.Viewer{}, nil
	}
	if required {
		return ctf.Viewer{}, httpx.ErrNoKey
	}
	return ctf.Viewer{}, nil
}
