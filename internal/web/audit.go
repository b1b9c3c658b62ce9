package web

import (
	"cmp"
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// auditRow is an audit entry as the admin pages show it: what it is about
// named as people know it (a challenge's title, a username, a webhook's
// name), with a link there, instead of the slug or id it was recorded with
// (issue 20, fix 13).
type auditRow struct {
	ctf.AuditEntry
	About string
	Link  string
}

// auditRows names what each entry is about. Names are read now: a
// challenge renamed since says its current title; one deleted since, or
// a user, keeps the name recorded.
func (h *Handler) auditRows(ctx context.Context, v ctf.Viewer, entries []ctf.AuditEntry) []auditRow {
	titles := map[string]string{}
	if list, err := h.svc.Content.AdminChallenges(ctx, v); err == nil {
		for _, c := range list {
			titles[c.Slug] = c.Title
		}
	}
	users := map[string]string{} // username -> profile link, "" when none
	rows := make([]auditRow, len(entries))
	for i, e := range entries {
		var detail map[string]any
		_ = json.Unmarshal([]byte(e.Detail), &detail) // an empty or odd detail names nothing more
		text := func(k string) string { s, _ := detail[k].(string); return s }
		row := auditRow{AuditEntry: e, About: e.Target}
		kind, _, _ := strings.Cut(e.Action, ".")
		switch kind {
		case "challenge":
			if t, ok := titles[e.Target]; ok {
				row.About, row.Link = t, "/admin/challenges/"+url.PathEscape(e.Target)
			}
		case "user", "key", "agent":
			link, seen := users[e.Target]
			if !seen {
				if u, err := h.svc.Admin.UserByName(ctx, v, e.Target); err == nil {
					link = "/users/" + url.PathEscape(u.ID)
				}
				users[e.Target] = link
			}
			row.Link = link
		case "announcement":
			row.About, row.Link = "“"+text("title")+"”", "/admin/announcements"
		case "webhook":
			row.About, row.Link = text("name"), "/admin/webhooks/"+url.PathEscape(e.Target)
		case "instance":
			row.About = "an instance"
			if c := text("challenge"); c != "" {
				row.About = "an instance of " + cmp.Or(titles[c], c)
			}
			if u := text("user"); u != "" {
				row.About += " for " + u
			}
		case "writeup":
			row.About, row.Link = "a writeup", "/admin/writeups"
		case "page":
			row.About, row.Link = cmp.Or(pageTitles[e.Target], e.Target), "/admin/pages#page-"+url.PathEscape(e.Target)
		case "event":
			row.Link = "/admin/event"
			if e.Action == "event.logo" {
				row.About, row.Link = "the logo", "/admin/pages#logo"
			}
		}
		rows[i] = row
	}
	return rows
}
