package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/httpx"
	"github.com/flagshipctf/flagship/internal/live"
)

func (h *Handler) listChallenges(w http.ResponseWriter, r *http.Request) {
	v, err := h.viewer(w, r, false)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if v.User == nil {
		writeShared(w, r, h.list.get(h.svc).anon, anonymous)
		return
	}
	if list, ok := h.svc.Content.AdminList(v); ok {
		writeValue(w, r, caller, http.StatusOK, struct {
			Challenges []live.ChallengeSummary `json:"challenges"`
		}{list})
		return
	}
	plainBuf := getBuf()
	var gzBuf *[]byte
	var gz []byte
	if httpx.AcceptsGzip(r) && r.Header.Get("If-None-Match") == "" {
		gzBuf = getBuf()
		gz = (*gzBuf)[:0]
	}
	solved := solvedPool.Get().(*[]bool)
	body, gz := h.list.forUser(h.svc, v.User.ID, (*plainBuf)[:0], gz, (*solved)[:0])
	solvedPool.Put(solved)
	writeBody(w, r, caller, http.StatusOK, body, gz)
	putBuf(plainBuf, body)
	if gzBuf != nil {
		putBuf(gzBuf, gz)
	}
}

var solvedPool = sync.Pool{New: func() any { b := make([]bool, 0, 256); return &b }}

func (h *Handler) getChallenge(w http.ResponseWriter, r *http.Request) {
	v, err := h.viewer(w, r, false)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := h.svc.Play.Challenge(r.PathValue("slug"), v)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeValue(w, r, audienceOf(v), http.StatusOK, struct {
		Challenge any `json:"challenge"`
	}{d})
}

func (h *Handler) writeups(w http.ResponseWriter, r *http.Request) {
	v, err := h.viewer(w, r, true)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	list, err := h.svc.Play.Writeups(r.Context(), r.PathValue("slug"), v)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeValue(w, r, caller, http.StatusOK, list)
}

func (h *Handler) me(w http.ResponseWriter, r *http.Request) {
	v, err := h.viewer(w, r, true)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	p, err := h.svc.Accounts.Me(r.Context(), v)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeValue(w, r, caller, http.StatusOK, struct {
		Profile any `json:"profile"`
	}{p})
}

func (h *Handler) profile(w http.ResponseWriter, r *http.Request) {
	p := h.svc.Scoreboard.Profile(r.PathValue("userId"))
	writeValue(w, r, anyone, http.StatusOK, struct {
		Profile any `json:"profile"`
	}{p})
}

// submit passes what it received to the service, which keeps the order of
// checks (docs/product.md#submitting-a-flag): the body is read only once the
// challenge is known.
func (h *Handler) submit(w http.ResponseWriter, r *http.Request) {
	v, err := h.viewer(w, r, true)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	res, err := h.svc.Play.SubmitFrom(r.Context(), v, r.PathValue("slug"), func() (string, error) { return decodeSubmit(w, r) })
	if err != nil {
		h.fail(w, r, err)
		return
	}
	writeValue(w, r, caller, http.StatusOK, struct {
		Result any `json:"result"`
	}{res})
}

// decodeSubmit reads {"flag": "..."} strictly: one JSON object, a string
// flag, valid UTF-8, nothing after it, at most MaxBodyBytes.
func decodeSubmit(w http.ResponseWriter, r *http.Request) (string, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && mt != "text/plain" && mt != "application/x-www-form-urlencoded") {
			return "", ctf.Errorf(ctf.Invalid, "request body must be JSON (Content-Type: application/json)")
		}
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return "", ctf.Errorf(ctf.Invalid, "request body too large: the limit is %d bytes", MaxBodyBytes)
	}
	if err != nil {
		return "", ctf.Errorf(ctf.Invalid, "could not read request body")
	}
	return DecodeFlag(data)
}

// DecodeFlag parses a submit body and returns the flag as sent (the service
// trims and checks it). Every failure is an Invalid error with a sentence
// for humans.
func DecodeFlag(data []byte) (string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return "", ctf.Errorf(ctf.Invalid, `request body is empty: send {"flag": "..."}`)
	}
	if !utf8.Valid(data) {
		return "", ctf.Errorf(ctf.Invalid, "request body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var body struct {
		Flag *json.RawMessage `json:"flag"`
	}
	if err := dec.Decode(&body); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return "", ctf.Errorf(ctf.Invalid, `request body must be a JSON object like {"flag": "..."}`)
		}
		return "", ctf.Errorf(ctf.Invalid, "request body is not valid JSON")
	}
	if dec.More() {
		return "", ctf.Errorf(ctf.Invalid, "request body has data after the JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", ctf.Errorf(ctf.Invalid, "request body has data after the JSON object")
	}
	if body.Flag == nil || bytes.Equal(*body.Flag, []byte("null")) {
		return "", ctf.Errorf(ctf.Invalid, `"flag" is required`)
	}
	var flag string
	if err := json.Unmarshal(*body.Flag, &flag); err != nil {
		return "", ctf.Errorf(ctf.Invalid, `"flag" must be a string`)
	}
	return flag, nil
}

// file serves a challenge file from the server's disk cache with
// http.ServeContent: HEAD, ranges and revalidation, streamed, never the
// whole file in memory.
func (h *Handler) file(w http.ResponseWriter, r *http.Request) {
	f, err := h.svc.Play.OpenFile(r.Context(), r.PathValue("sha"), r.PathValue("name"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer f.Close()
	// A big file to a slow client outlasts the server's write timeout:
	// allow for a client reading at slowClientRate.
	deadline := time.Now().Add(fileWriteBase + time.Duration(f.Size/slowClientRate)*time.Second)
	if err := http.NewResponseController(w).SetWriteDeadline(deadline); err != nil {
		h.log.Warn("file download: cannot extend the write deadline", "err", err)
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/octet-stream")
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.Name}))
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	hd.Set("ETag", `"`+r.PathValue("sha")+`"`)
	http.ServeContent(w, r, f.Name, time.Time{}, f)
}

// fileMember serves one file of a stored zip archive that a shown challenge
// serves (docs/product.md#challenge-files), with the file's headers. It is
// inflated as it is sent, so it has no ranges; a client that asks again
// with its validator is answered 304.
func (h *Handler) fileMember(w http.ResponseWriter, r *http.Request) {
	sha := r.PathValue("sha")
	m, err := h.svc.Play.OpenMember(r.Context(), sha, r.PathValue("name"), r.PathValue("member"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer m.Close()
	tag := `"` + sha + "-" + strconv.Itoa(m.Index) + `"`
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	hd.Set("ETag", tag)
	if notModified(r, tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	deadline := time.Now().Add(fileWriteBase + time.Duration(m.Size/slowClientRate)*time.Second)
	if err := http.NewResponseController(w).SetWriteDeadline(deadline); err != nil {
		h.log.Warn("file member download: cannot extend the write deadline", "err", err)
	}
	hd.Set("Content-Type", "application/octet-stream")
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": m.Name}))
	hd.Set("Content-Length", strconv.FormatInt(m.Size, 10))
	if r.Method == http.MethodHead {
		return
	}
	// A member that inflates to other than its declared size is cut off:
	// the client sees a short body, and the log says why.
	if _, err := io.Copy(w, m); err != nil {
		h.log.Warn("file member download", "sha", sha, "member", r.PathValue("member"), "err", err)
	}
}

const (
	fileWriteBase  = 60 * time.Second
	slowClientRate = 32 << 10 // bytes per second
)
