package web

import (
	"net/http"
	"net/url"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// A ban is asked for on a page of its own: it names the account, says what
// a ban does, and takes the reason the banned person will read.

type banData struct {
	User   live.UserView
	Back   string // the page the admin came from, where the ban lands
	Reason string // as typed, after a refusal
	Max    int
}

// banBack is where a ban lands: the player's page when the admin came from
// it, else the list of users.
func banBack(from, username string) string {
	if from == "player" {
		return "/admin/players/" + url.PathEscape(username)
	}
	return "/admin/users"
}

// adminBanPage asks before banning an account, and for the reason.
func (h *Handler) adminBanPage(w http.ResponseWriter, r *http.Request) {
	v, u, ok := h.adminUser(w, r)
	if !ok {
		return
	}
	f := h.takeFlash(w, r, v)
	d := banData{User: u, Back: r.URL.Query().Get("from"), Reason: f.Form["reason"], Max: ctf.MaxReasonChars}
	if d.Reason == "" && u.Banned {
		d.Reason = u.BanReason
	}
	h.render(w, r, "admin-ban", page{Title: "Ban " + u.Username + " · Admin", Viewer: v, Data: d, Error: f.Error, flashTaken: true})
}

// adminBan bans an account with the reason given on its confirmation
// page, and goes back where the admin came from.
func (h *Handler) adminBan(w http.ResponseWriter, r *http.Request) {
	v, u, ok := h.adminUser(w, r)
	if !ok {
		return
	}
	from, reason := r.PostFormValue("from"), r.PostFormValue("reason")
	if _, err := h.svc.Admin.SetBanned(r.Context(), v, u.ID, true, reason); err != nil {
		to := "/admin/users/" + url.PathEscape(u.Username) + "/ban"
		if from == "player" {
			to += "?from=player"
		}
		h.redirectWith(w, r, v, to, flash{Error: h.refused(w, r, err).Error, Form: map[string]string{"reason": reason}})
		return
	}
	h.redirectWith(w, r, v, banBack(from, u.Username), flash{Notice: "Banned " + u.Username + ": they are off the board and can no longer log in or submit."})
}
