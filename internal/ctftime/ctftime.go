// Package ctftime serves the event's standings in CTFtime's scoreboard feed
// format at /api/ctftime, for CTFtime to import the final results. It is a
// front door: the standings and their rules (order, freeze) are the
// platform's; this package only shapes them.
package ctftime

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/flagshipctf/flagship/internal/httpx"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
)

// Feed is the document CTFtime reads.
type Feed struct {
	Tasks     []string   `json:"tasks"`
	Standings []Standing `json:"standings"`
}

// Standing is one team (here: one player) of the feed.
type Standing struct {
	Pos        int                 `json:"pos"`
	Team       string              `json:"team"`
	Score      int                 `json:"score"`
	TaskStats  map[string]TaskStat `json:"taskStats"`
	LastAccept int64               `json:"lastAccept"` // Unix seconds
}

// TaskStat is one solved task of a standing.
type TaskStat struct {
	Points int   `json:"points"`
	Time   int64 `json:"time"` // Unix seconds
}

// Handler serves the feed.
type Handler struct {
	svc *platform.Service
	log *slog.Logger
}

// New returns the feed of svc.
func New(svc *platform.Service, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Handler{svc: svc, log: log}
}

// Of builds the feed from the platform's standings.
func Of(tasks []string, rows []live.Standing) Feed {
	f := Feed{Tasks: tasks, Standings: make([]Standing, len(rows))}
	if f.Tasks == nil {
		f.Tasks = []string{} // CTFtime expects a list, never null
	}
	for i, r := range rows {
		st := Standing{Pos: r.Pos, Team: r.Team, Score: r.Score, TaskStats: make(map[string]TaskStat, len(r.Tasks)),
			LastAccept: r.LastAccept.Unix()}
		for _, t := range r.Tasks {
			st.TaskStats[t.Task] = TaskStat{Points: t.Points, Time: t.At.Unix()}
		}
		f.Standings[i] = st
	}
	return f
}

// ServeHTTP answers GET and HEAD with the feed, any other method 405.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeJSON(w, r, http.StatusMethodNotAllowed, httpx.ErrorBody("method "+r.Method+" is not allowed here; use GET, HEAD"))
		return
	}
	body, err := json.Marshal(Of(h.svc.Scoreboard.Standings()))
	if err != nil {
		// Only plain strings and numbers go in: unreachable, but never a
		// half-written body.
		h.log.Error("encode CTFtime feed", "err", err)
		writeJSON(w, r, http.StatusInternalServerError, httpx.ErrorBody("internal server error"))
		return
	}
	writeJSON(w, r, http.StatusOK, body)
}

// Off answers every request with 404: the operator turned the feed off.
func Off() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, r, http.StatusNotFound, httpx.ErrorBody("the CTFtime feed is turned off on this server"))
	})
}

// writeJSON writes body. The feed is not cached anywhere: CTFtime polls it
// rarely, and a cached copy could outlive a freeze or an unfreeze.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	hd := w.Header()
	hd.Set("Content-Type", httpx.ContentTypeJSON)
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}
