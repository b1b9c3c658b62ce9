package api

import "net/http"

// leaderboard serves the board: the newest version built, spliced from its
// chunks.
func (h *Handler) leaderboard(w http.ResponseWriter, r *http.Request) {
	writeShared(w, r, h.board.get().full, anyone)
}
