package api

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/flagshipctf/flagship/internal/httpx"
)

// maxLeaderboardLimit is the largest page of the leaderboard one request
// may ask for with limit.
const maxLeaderboardLimit = 1000

// leaderboard serves the board, or with limit and offset (an extension of
// the contract: without them the answer is the contract's) a page of it:
// at most limit entries from the offset-th (0-based) on, the same entries
// byte for byte, spliced from the version's chunks.
func (h *Handler) leaderboard(w http.ResponseWriter, r *http.Request) {
	s := h.board.get()
	if r.URL.RawQuery == "" {
		writeShared(w, r, s.full, anyone)
		return
	}
	offset, limit, err := pageParams(r.URL.Query())
	if err != nil {
		httpx.WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeShared(w, r, s.page(offset, limit), anyone)
}

// pageParams reads offset (default 0) and limit (default: no limit, -1);
// other parameters are ignored, as they always were.
func pageParams(q url.Values) (offset, limit int, err error) {
	offset, limit = 0, -1
	if v, ok, err := oneParam(q, "offset"); err != nil {
		return 0, 0, err
	} else if ok {
		n, valid := digits(v)
		if !valid {
			return 0, 0, fmt.Errorf("offset must be a whole number of entries to skip (0 or more), not %s", quoteParam(v))
		}
		offset = n
	}
	if v, ok, err := oneParam(q, "limit"); err != nil {
		return 0, 0, err
	} else if ok {
		n, valid := digits(v)
		if !valid || n < 1 || n > maxLeaderboardLimit {
			return 0, 0, fmt.Errorf("limit must be a whole number from 1 to %d, not %s", maxLeaderboardLimit, quoteParam(v))
		}
		limit = n
	}
	return offset, limit, nil
}

func oneParam(q url.Values, name string) (string, bool, error) {
	vs, ok := q[name]
	if len(vs) > 1 {
		return "", false, fmt.Errorf("%s is given %d times; give it once", name, len(vs))
	}
	if !ok {
		return "", false, nil
	}
	return vs[0], true, nil
}

// hugeParam is where digits stops counting: any offset that large is past
// the end of any board.
const hugeParam = 1 << 40

// digits parses a decimal number of ASCII digits only (no sign, no space),
// saturating at hugeParam.
func digits(v string) (int, bool) {
	if v == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = min(n*10+int(c-'0'), hugeParam)
	}
	return n, true
}

// quoteParam quotes a bad value for an error message, cut to a readable
// length.
func quoteParam(v string) string {
	if len(v) > 40 {
		v = v[:40] + "…"
	}
	return fmt.Sprintf("%q", v)
}
