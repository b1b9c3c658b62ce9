package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/httpx"
)

// gzipMin is the size below which compressing costs more than it saves.
const gzipMin = 1024

// audience says who may be given a stored copy of a response, so that no
// shared cache ever hands one caller's answer to another.
type audience int

const (
	// anyone: the endpoint ignores credentials; one answer for all.
	anyone audience = iota
	// anonymous: the anonymous answer of an endpoint that authenticates
	// when it can, so it differs with the credentials sent.
	anonymous
	// caller: made for the signed-in caller (it may hold their email).
	caller
)

// varyCredentials names every request header a per-caller answer depends
// on: X-API-Key and cookies are not covered by HTTP's rule for
// Authorization, so a shared cache must be told.
const varyCredentials = "Authorization, X-API-Key, Cookie, Accept-Encoding"

// audienceOf is the audience of an answer made for v.
func audienceOf(v ctf.Viewer) audience {
	if v.User != nil {
		return caller
	}
	return anonymous
}

// The caching headers' values, shared by every answer (see headerValues).
var (
	noCache         = []string{"no-cache"}
	privateNoCache  = []string{"private, no-cache"}
	varyAll         = []string{varyCredentials}
	varyEncoding    = []string{"Accept-Encoding"}
	contentTypeJSON = []string{httpx.ContentTypeJSON}
)

// setCaching writes the revalidation headers of a GET answer for a.
func setCaching(hd http.Header, a audience) {
	switch a {
	case caller:
		hd["Cache-Control"], hd["Vary"] = privateNoCache, varyAll
	case anonymous:
		hd["Cache-Control"], hd["Vary"] = noCache, varyAll
	default:
		hd["Cache-Control"], hd["Vary"] = noCache, varyEncoding
	}
}

// writeShared writes a body that many callers share: its ETag, its gzip
// form and their header values are computed once, not per request.
func writeShared(w http.ResponseWriter, r *http.Request, b sharedBody, a audience) {
	hd := w.Header()
	setCaching(hd, a)
	gz := b.size() >= gzipMin && httpx.AcceptsGzip(r)
	vals := b.values()
	if gz {
		hd["Etag"] = vals.gzEtag
	} else {
		hd["Etag"] = vals.etag
	}
	if notModified(r, b.etag()) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hd["Content-Type"] = contentTypeJSON
	parts := b.plain()
	hd["Content-Length"] = vals.length
	if gz {
		parts = [][]byte{b.gzipped()}
		hd["Content-Encoding"] = gzipCoding
		hd["Content-Length"] = vals.gzLength
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	for _, p := range parts {
		if _, err := w.Write(p); err != nil {
			return // the client left
		}
	}
}

var gzipCoding = []string{"gzip"}

// codedTag gives the gzip form of a body its own strong validator, as
// RFC 9110 asks of different representations; notModified accepts both.
func codedTag(tag string, gz bool) string {
	if !gz {
		return tag
	}
	return tag[:len(tag)-1] + `-gzip"`
}

// writeBody writes a body built for this request, with gz its gzip form
// if the caller has one (else it is compressed here when asked for).
// Successful GETs carry an ETag so clients can revalidate.
func writeBody(w http.ResponseWriter, r *http.Request, a audience, status int, body, gz []byte) {
	hd := w.Header()
	useGz := len(body) >= gzipMin && httpx.AcceptsGzip(r)
	if status == http.StatusOK && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		tag := ETag(body)
		hd.Set("ETag", codedTag(tag, useGz))
		setCaching(hd, a)
		if notModified(r, tag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	} else {
		hd.Set("Cache-Control", "no-store")
		hd.Set("Vary", "Accept-Encoding")
	}
	hd.Set("Content-Type", httpx.ContentTypeJSON)
	if useGz {
		if gz == nil {
			gz = Compress(body)
		}
		body = gz
		hd.Set("Content-Encoding", "gzip")
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// writeValue marshals v and writes it.
func writeValue(w http.ResponseWriter, r *http.Request, a audience, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		httpx.WriteError(w, http.StatusInternalServerError, "internal server error")
		return
	}
	writeBody(w, r, a, status, body, nil)
}

// fail writes err as its status and human message (httpx.Fail).
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	httpx.Fail(w, r, h.log, err)
}

// notModified reports whether If-None-Match names tag (or is *).
func notModified(r *http.Request, tag string) bool {
	inm := r.Header.Get("If-None-Match")
	if inm == "" {
		return false
	}
	for _, t := range strings.Split(inm, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == tag || t == codedTag(tag, true) {
			return true
		}
	}
	return false
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(bp *[]byte, b []byte) {
	if b != nil {
		*bp = b[:0]
		bufPool.Put(bp)
	}
}
