package httpx

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// ContentTypeJSON is the Content-Type of every JSON answer.
const ContentTypeJSON = "application/json; charset=utf-8"

// ErrorBody is msg as the JSON error body of every front door:
// {"error":"msg"}, escaped as encoding/json escapes (HTML characters too).
func ErrorBody(msg string) []byte {
	body, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg}) // a struct of one string: it cannot fail
	return body
}

// WriteError answers status with the JSON error body of msg, never stored
// by a cache.
func WriteError(w http.ResponseWriter, status int, msg string) {
	WriteJSON(w, status, ErrorBody(msg))
}

// WriteJSON answers status with body, JSON that no cache may store.
func WriteJSON(w http.ResponseWriter, status int, body []byte) {
	hd := w.Header()
	hd.Set("Content-Type", ContentTypeJSON)
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// Fail answers err as every JSON front door does (WriteError): the status
// of its code and its human message. An internal error is logged in detail
// and shown only as a generic sentence; an unavailable database is logged
// as a warning; a wait goes in Retry-After; a 401 names the Bearer scheme.
func Fail(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	code := ctf.ErrorCode(err)
	switch code {
	case ctf.Internal:
		log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	case ctf.Unavailable:
		log.Warn("database unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if d := Wait(err); d > 0 {
		SetRetryAfter(w.Header(), d)
	}
	if code == ctf.Unauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="flagship"`)
	}
	WriteError(w, Status(err), ctf.ErrorMessage(err))
}
