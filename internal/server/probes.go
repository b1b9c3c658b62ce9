package server

import "net/http"

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
	w.Header().Set("Retry-After", "5")
	writeProbe(w, http.StatusServiceUnavailable, false)
}

func writeProbe(w http.ResponseWriter, status int, ok bool) {
	hd := w.Header()
	hd.Set("Content-Type", "application/json; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if ok {
		w.Write([]byte(`{"ok":true}`))
	} else {
		w.Write([]byte(`{"ok":false}`))
	}
}
