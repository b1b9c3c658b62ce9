package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

// maxFormBytes bounds a web request's body: every form fits in it many
// times over, but for the routes in bodyLimits.
const maxFormBytes = 64 << 10

// A bodyLimit is a route's own bound on its body.
type bodyLimit struct {
	bytes int64
	// note tells on the 413 page what the form may hold, beyond its size.
	note string
	// ownParse: the handler reads the body itself, once it knows the
	// caller may send that much (an upload is read for an admin only).
	ownParse bool
}

// pctEncoded is what n bytes of a form field may take in a urlencoded
// body: three bytes each, when every byte is percent-encoded.
func pctEncoded(n int) int64 { return 3 * int64(n) }

// bodyLimits are the routes, by pattern, whose forms their own rules let
// grow past maxFormBytes: the handout of a challenge, and the long texts
// (a writeup's 64 KiB of Markdown and its image links; an announcement of
// 20,000 characters of up to four bytes), with room for their other
// fields.
var bodyLimits = map[string]bodyLimit{
	"POST /admin/challenges": {bytes: platform.DefaultMaxFileBytes + 1<<20, ownParse: true,
		note: fmt.Sprintf(" (a handout of at most %d MiB)", platform.DefaultMaxFileBytes>>20)},
	"POST /challenges/{slug}/writeup": {bytes: pctEncoded(ctf.MaxWriteupContentBytes+ctf.MaxWriteupImages*(ctf.MaxURLBytes+2)+
		4*ctf.MaxWriteupTitleChars) + 4<<10},
	"POST /admin/data/import": {bytes: maxImportBytes + 1<<20, ownParse: true,
		note: fmt.Sprintf(" (a dataset of at most %d MiB; load bigger ones with flagship load)", maxImportBytes>>20)},
	"POST /admin/announcements": {bytes: pctEncoded(4*(ctf.MaxAnnouncementBodyChars+ctf.MaxAnnouncementTitleChars)) + 4<<10},
	"POST /admin/pages":         {bytes: pctEncoded(ctf.MaxPageBytes) + 4<<10},
	"POST /admin/logo": {bytes: 1 << 20, ownParse: true,
		note: fmt.Sprintf(" (a logo of at most %d KiB)", ctf.MaxLogoBytes>>10)},
}

// limitBody caps r's body for its route, and reads a form right away so
// that a body past the cap is a 413 page and never reaches a handler: one
// that says it is too big is refused unread, one that grows too big is cut
// off where it passes the cap (a multipart form then holds at most the cap
// in memory, and spools nothing to disk). It reports whether to go on.
func (h *Handler) limitBody(w http.ResponseWriter, r *http.Request) bool {
	_, pattern := h.mux.Handler(r)
	lim, ok := bodyLimits[pattern]
	if !ok {
		lim = bodyLimit{bytes: maxFormBytes}
	}
	if r.ContentLength > lim.bytes {
		h.tooLarge(w, r, lim)
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, lim.bytes)
	if lim.ownParse || r.Method != http.MethodPost {
		return true
	}
	if err := r.ParseMultipartForm(lim.bytes); isTooLarge(err) {
		h.tooLarge(w, r, lim)
		return false
	}
	// Another error (a malformed form) leaves the fields empty, and the
	// handler says what is missing, as before.
	return true
}

func isTooLarge(err error) bool {
	var tooBig *http.MaxBytesError
	return errors.As(err, &tooBig)
}

// tooLarge is the page of a refused body.
func (h *Handler) tooLarge(w http.ResponseWriter, r *http.Request, lim bodyLimit) {
	size := fmt.Sprintf("%d KiB", lim.bytes>>10)
	if lim.bytes%(1<<20) == 0 {
		size = fmt.Sprintf("%d MiB", lim.bytes>>20)
	}
	h.render(w, r, "error", page{Title: "Form too large", Status: http.StatusRequestEntityTooLarge,
		Error: "This form is too large, so nothing was saved: this page takes at most " + size + lim.note + "."})
}
