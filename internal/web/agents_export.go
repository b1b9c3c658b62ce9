package web

import (
	"bytes"
	"mime"
	"net/http"

	"github.com/flagshipctf/flagship/internal/arena"
)

// agentExport serves one file of an agent's export
// (docs/product.md#export-agents) to its owner or an admin, as an
// attachment: summary.json (?comment= and ?link= fill the NYU leaderboard's
// metadata), attempts.jsonl, times.csv or cybench.zip. The file is built
// whole before the first byte is sent, so an error is a page, not half a
// file.
func (h *Handler) agentExport(w http.ResponseWriter, r *http.Request) {
	v, ok := h.signedIn(w, r)
	if !ok {
		return
	}
	username := r.PathValue("username")
	m := arena.Meta{Comment: r.URL.Query().Get("comment"), Link: r.URL.Query().Get("link")}
	f, err := h.svc.Agents.Export(r.Context(), v, username, r.PathValue("file"), m)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		h.error(w, r, v, err)
		return
	}
	w.Header().Set("Content-Type", f.ContentType)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": username + "-" + f.Name}))
	w.Header().Set("Cache-Control", "private, no-store")
	_, _ = w.Write(b.Bytes())
}
