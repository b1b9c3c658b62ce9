package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// The event's clock in the web app: the organisers' page that sets it
// (/admin/event) and what every page says about it. What the clock means
// (the phase, the freeze) is the platform's; this file only shows it and
// passes the form to SetEvent and Unfreeze.

// clockView is where the event's clock stands, as the templates need it:
// the use case's view with the phase as questions.
type clockView struct{ live.EventView }

func (h *Handler) clock() clockView { return clockView{h.svc.Event.Current()} }

// Before, Running and Ended say the phase.
func (c clockView) Before() bool  { return c.Phase == ctf.BeforeStart }
func (c clockView) Running() bool { return c.Phase == ctf.Running }
func (c clockView) Ended() bool   { return c.Phase == ctf.Ended }

// Until is the wait from the clock's now to t, as the countdown says it.
func (c clockView) Until(t time.Time) string { return countdown(t.Sub(c.Now)) }

// SecondsUntil is the wait to t in whole seconds, for app.js's countdown:
// a wait rather than an instant, so a browser's wrong clock does not skew it.
func (c clockView) SecondsUntil(t time.Time) int64 {
	return int64(max(t.Sub(c.Now), 0).Round(time.Second) / time.Second)
}

// FreezesLater reports whether a freeze time is still to come.
func (c clockView) FreezesLater() bool { return c.Freeze != nil && c.Now.Before(*c.Freeze) }

// countdown says a wait for a person: "2 d 4 h", "2 h 13 min", "5 min
// 12 s", "12 s". app.js says it the same way as it ticks.
func countdown(d time.Duration) string {
	s := int64(max(d, 0).Round(time.Second) / time.Second)
	days, hours, mins, secs := s/86400, s%86400/3600, s%3600/60, s%60
	switch {
	case days > 0:
		return fmt.Sprintf("%d d %d h", days, hours)
	case hours > 0:
		return fmt.Sprintf("%d h %d min", hours, mins)
	case mins > 0:
		return fmt.Sprintf("%d min %d s", mins, secs)
	}
	return fmt.Sprintf("%d s", secs)
}

// utcText and isoTime say an instant in UTC: for people, and for a
// <time datetime> element (which app.js also shows in the viewer's own
// time zone).
func utcText(t time.Time) string { return t.UTC().Format("Mon 2 Jan 2006, 15:04:05") + " UTC" }
func isoTime(t time.Time) string { return ctf.FormatTime(t) }

// inputTime is t as a datetime-local input's value, in UTC (the form says
// so): seconds only when it has some, since an input whose step is a
// minute would refuse them.
func inputTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	u := t.UTC()
	if u.Second() == 0 && u.Nanosecond() == 0 {
		return u.Format("2006-01-02T15:04")
	}
	return u.Format("2006-01-02T15:04:05")
}

// parseInputTime reads a datetime-local value as UTC; empty is no time.
// An RFC 3339 time with its own offset is taken as written.
func parseInputTime(field, label, s string) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return &t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02 15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return &t, nil
		}
	}
	return nil, &ctf.Error{Code: ctf.Invalid, Field: field, Message: label + " must be a date and time such as 2026-12-01T18:00 (UTC)"}
}

// eventLabels name the use case's fields as the form labels them, so a
// refusal reads as the page does.
var eventLabels = map[string]string{"name": "Name", "start": "Start", "end": "End", "freeze": "Freeze",
	"unfreezeAtEnd": "Unfreeze at the end", "flagFormat": "Flag format"}

// eventForm is the event's form as typed, with the refusal beside it.
type eventForm struct {
	Name, Start, End, Freeze, FlagFormat string
	UnfreezeAtEnd, Practice              bool
	Error, Field                         string
	MaxName, MaxFormat                   int
}

func formOfEvent(e ctf.Event) eventForm {
	return eventForm{Name: e.Name, Start: inputTime(e.Start), End: inputTime(e.End), Freeze: inputTime(e.Freeze),
		FlagFormat: e.FlagFormat, UnfreezeAtEnd: e.UnfreezeAtEnd, Practice: e.Practice}
}

type adminEventData struct {
	Form  eventForm
	Clock clockView
	// Unfrozen is when an admin lifted the current freeze time, if so.
	Unfrozen *time.Time
}

func (h *Handler) adminEvent(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	fl := h.takeFlash(w, r, v)
	p := page{Notice: fl.Notice, Error: fl.Error, flashTaken: true}
	f := formOfEvent(h.svc.Event.Current().Event)
	if fl.Section == "event" { // a refusal: the form as typed, the message beside it
		t := fl.Form
		f = eventForm{Name: t["name"], Start: t["start"], End: t["end"], Freeze: t["freeze"], FlagFormat: t["flagFormat"],
			UnfreezeAtEnd: t["unfreezeAtEnd"] == "1", Practice: t["practice"] == "1", Error: fl.Error, Field: t["field"]}
		p.Error = ""
	}
	h.eventPage(w, r, v, p, f)
}

func (h *Handler) eventPage(w http.ResponseWriter, r *http.Request, v ctf.Viewer, p page, f eventForm) {
	f.MaxName, f.MaxFormat = ctf.MaxEventNameChars, ctf.MaxFlagFormatChars
	ev := h.svc.Event.Current()
	p.Title, p.Viewer, p.Data = "Event · Admin", v, adminEventData{Form: f, Clock: h.clock(), Unfrozen: ev.Unfrozen}
	h.render(w, r, "admin-event", p)
}

// adminSaveEvent sets the event from the form; a refusal keeps what was
// typed and changes nothing.
func (h *Handler) adminSaveEvent(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	f := eventForm{Name: r.PostFormValue("name"), Start: r.PostFormValue("start"), End: r.PostFormValue("end"),
		Freeze: r.PostFormValue("freeze"), FlagFormat: r.PostFormValue("flagFormat"),
		UnfreezeAtEnd: r.PostFormValue("unfreezeAtEnd") == "1", Practice: r.PostFormValue("practice") == "1"}
	e := ctf.Event{Name: strings.TrimSpace(f.Name), FlagFormat: strings.TrimSpace(f.FlagFormat), UnfreezeAtEnd: f.UnfreezeAtEnd, Practice: f.Practice}
	var err error
	for _, x := range []struct {
		field, label, value string
		to                  **time.Time
	}{{"start", "Start", f.Start, &e.Start}, {"end", "End", f.End, &e.End}, {"freeze", "Freeze", f.Freeze, &e.Freeze}} {
		if *x.to, err = parseInputTime(x.field, x.label, x.value); err != nil {
			break
		}
	}
	if err == nil {
		if _, err = h.svc.Event.Set(r.Context(), v, e); err == nil {
			h.redirectWith(w, r, v, "/admin/event", flash{Notice: "The event's settings are saved."})
			return
		}
	}
	f.Error, f.Field = h.refusal(w, r, err)
	// The message is a sentence now (its first letter raised): the field
	// it starts with is matched whatever its case.
	if n := len(f.Field); eventLabels[f.Field] != "" && len(f.Error) >= n && strings.EqualFold(f.Error[:n], f.Field) {
		f.Error = eventLabels[f.Field] + f.Error[n:]
	}
	h.redirectWith(w, r, v, "/admin/event", flash{Error: f.Error, Section: "event", Form: map[string]string{"name": f.Name, "start": f.Start,
		"end": f.End, "freeze": f.Freeze, "flagFormat": f.FlagFormat, "unfreezeAtEnd": r.PostFormValue("unfreezeAtEnd"),
		"practice": r.PostFormValue("practice"), "field": f.Field}})
}

// refusal is a form's refusal as the page shows it beside the form: the
// message and the field at fault ("" for none). An internal error is
// logged; its message says nothing more.
func (h *Handler) refusal(w http.ResponseWriter, r *http.Request, err error) (msg, field string) {
	var fe *ctf.Error
	if errors.As(err, &fe) {
		field = fe.Field
	}
	return h.refused(w, r, err).Error, field
}

// adminUnfreeze lifts the freeze now.
func (h *Handler) adminUnfreeze(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	f := flash{Notice: "The scoreboard is unfrozen: everyone sees the live standings."}
	if err := h.svc.Event.Unfreeze(r.Context(), v); err != nil {
		f = flash{Error: h.refused(w, r, err).Error}
	}
	h.redirectWith(w, r, v, "/admin/event", f)
}

// seenAt is what the seen cookie (h.seenCookie, "flagship_seen") holds, in
// Unix milliseconds: the newest announcement this browser has seen on
// /announcements; newer ones are unread. A cookie, not an account's
// setting, so it works signed out and without a script; it is no secret,
// so live.js may read it to update the count.
func (h *Handler) seenAt(r *http.Request) int64 {
	c, err := r.Cookie(h.seenCookie)
	if err != nil {
		return 0
	}
	ms, _ := strconv.ParseInt(c.Value, 10, 64)
	return ms
}

type announcementItem struct {
	live.AnnouncementView
	Unread bool
}

// announcements lists the announcements, newest first, marking those the
// browser has not seen, and then notes them seen.
func (h *Handler) announcements(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	seen := h.seenAt(r)
	list := h.svc.Event.Announcements()
	items := make([]announcementItem, len(list))
	for i, a := range list {
		items[i] = announcementItem{AnnouncementView: a, Unread: a.CreatedAt.UnixMilli() > seen}
	}
	if len(list) > 0 && list[0].CreatedAt.UnixMilli() > seen {
		http.SetCookie(w, &http.Cookie{Name: h.seenCookie, Value: strconv.FormatInt(list[0].CreatedAt.UnixMilli(), 10), Path: "/",
			MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode, Secure: h.opts.SecureCookies})
	}
	// Once shown, nothing is unread: the list itself marks what was new.
	h.render(w, r, "announcements", page{Title: "Announcements", Viewer: v, Data: items, allRead: true})
}

type adminAnnouncementsData struct {
	Title, Body, Challenge string
	Error, Field           string
	Preview                bool // the message is shown rendered above the form
	Challenges             []live.ChallengeCount
	List                   []live.AnnouncementView
	MaxTitle, MaxBody      int
}

func (h *Handler) adminAnnouncements(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	h.announcementsPage(w, r, v, page{}, adminAnnouncementsData{})
}

func (h *Handler) announcementsPage(w http.ResponseWriter, r *http.Request, v ctf.Viewer, p page, d adminAnnouncementsData) {
	all, err := h.svc.Content.AdminChallenges(r.Context(), v)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	for _, c := range all {
		if !c.Hidden { // a hidden challenge cannot be announced
			d.Challenges = append(d.Challenges, c)
		}
	}
	d.List, d.MaxTitle, d.MaxBody = h.svc.Event.Announcements(), ctf.MaxAnnouncementTitleChars, ctf.MaxAnnouncementBodyChars
	p.Title, p.Viewer, p.Data = "Announcements · Admin", v, d
	h.render(w, r, "admin-announcements", p)
}

// adminPostAnnouncement posts an announcement and lands on the list with
// "The announcement is posted.". "Preview" (a button named preview) shows
// the form again as typed with the message rendered above it, and posts
// nothing. A refusal shows the form again at this address with everything
// typed (the message may be 20,000 characters, more than a flash holds).
func (h *Handler) adminPostAnnouncement(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	d := adminAnnouncementsData{Title: r.PostFormValue("title"), Body: r.PostFormValue("body"), Challenge: r.PostFormValue("challenge")}
	if r.PostFormValue("preview") != "" {
		d.Preview = true
		h.announcementsPage(w, r, v, page{Path: "/admin/announcements"}, d)
		return
	}
	_, err := h.svc.Event.PostAnnouncement(r.Context(), v, d.Title, d.Body, d.Challenge)
	if err == nil {
		h.redirectWith(w, r, v, "/admin/announcements", flash{Notice: "The announcement is posted."})
		return
	}
	p := h.refusedInWords(w, r, err)
	d.Error, d.Field = p.Error, fieldOf(err)
	h.announcementsPage(w, r, v, page{Status: p.Status, Path: "/admin/announcements"}, d)
}
