package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/flagshipctf/flagship/internal/platform"
)

// submissionsData is a page of the submission log, with its filters as
// typed and the links to the pages around it (the filters kept in them).
type submissionsData struct {
	Log        platform.SubmissionLog
	Prev, Next string
}

// adminSubmissions is the log of every submission, filtered by the query
// (user, challenge, result) and paged (page).
func (h *Handler) adminSubmissions(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	n, _ := strconv.Atoi(q.Get("page"))
	lq := platform.LogQuery{User: q.Get("user"), Challenge: q.Get("challenge"), Result: q.Get("result"), Page: n}
	log, err := h.svc.Admin.SubmissionLog(r.Context(), v, lq)
	var p page
	if err != nil {
		p = h.refused(w, r, err) // the filters stay in the form
	}
	p.Title, p.Viewer = "Submissions · Admin", v
	d := submissionsData{Log: log}
	link := func(n int) string {
		u := url.Values{}
		for k, val := range map[string]string{"user": log.Query.User, "challenge": log.Query.Challenge, "result": log.Query.Result} {
			if val != "" {
				u.Set(k, val)
			}
		}
		u.Set("page", strconv.Itoa(n))
		return "/admin/submissions?" + u.Encode()
	}
	if log.Query.Page > 1 {
		d.Prev = link(log.Query.Page - 1)
	}
	if log.More {
		d.Next = link(log.Query.Page + 1)
	}
	p.Data = d
	h.render(w, r, "admin-submissions", p)
}

// adminPlayer is one account as an organiser checks it.
func (h *Handler) adminPlayer(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	report, err := h.svc.Admin.PlayerReport(r.Context(), v, r.PathValue("username"))
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	h.render(w, r, "admin-player", page{Title: report.User.Username + " · Admin", Viewer: v, Data: report})
}

// adminAnonymise anonymises an account once the admin typed its username.
func (h *Handler) adminAnonymise(w http.ResponseWriter, r *http.Request) {
	v, u, ok := h.adminUser(w, r)
	if !ok {
		return
	}
	username := u.Username
	nu, err := h.svc.Admin.AnonymiseUser(r.Context(), v, u.ID, r.PostFormValue("confirm"))
	if err != nil {
		h.redirectWith(w, r, v, "/admin/players/"+url.PathEscape(username), flash{Error: h.refused(w, r, err).Error})
		return
	}
	h.redirectWith(w, r, v, "/admin/players/"+url.PathEscape(nu.Username), flash{Notice: "The account is anonymised: its sessions and keys have ended."})
}
