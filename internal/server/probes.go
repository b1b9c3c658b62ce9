package server

import (
	"net/http"
	"time"

	"github.com/flagshipctf/flagship/internal/httpx"
)

// probe answers GET and HEAD with fn, any other method 405 (the probes sit
// outside the front doors, whose "/" would answer a web page).
func probe(fn http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeJSON(w, http.StatusMethodNotAllowed, `{"error":"use GET or HEAD"}`)
			return
		}
		fn(w, r)
	}
}

// livez answers whenever the process serves HTTP: an orchestrator restarts
// the process when it does not.
func (s *Server) livez(w http.ResponseWriter, r *http.Request) {
	writeProbe(w, http.StatusOK, true)
}

// readyz answers 200 when this replica can take traffic (hot state loaded,
// database answering a read within a second), else 503: a load balancer
// sends it nothing until then, without restarting it.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.svc.Ready(r.Context()) {
		writeProbe(w, http.StatusOK, true)
		return
	}
	httpx.SetRetryAfter(w.Header(), notReadyRetry)
	writeProbe(w, http.StatusServiceUnavailable, false)
}

// notReadyRetry is how long a client of a replica that is not ready is
// told to wait.
const notReadyRetry = 5 * time.Second

func writeProbe(w http.ResponseWriter, status int, ok bool) {
	if ok {
		writeJSON(w, status, `{"ok":true}`)
	} else {
		writeJSON(w, status, `{"ok":false}`)
	}
}

// writeJSON writes a fixed JSON body, never cached: a probe's answer is
// about this instant.
func writeJSON(w http.ResponseWriter, status int, body string) {
	hd := w.Header()
	hd.Set("Content-Type", "application/json; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write([]byte(body))
}
