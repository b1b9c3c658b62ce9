package web

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
)

// The admin side: every page and form calls an admin use case, which
// refuses anyone but an admin; the pages also check, to answer 403 before
// showing any form.

// admin returns the caller if they are an admin; else it answers (log in,
// or 403) and returns false.
func (h *Handler) admin(w http.ResponseWriter, r *http.Request) (ctf.Viewer, bool) {
	v, ok := h.signedIn(w, r)
	if !ok {
		return v, false
	}
	if !v.IsAdmin() {
		h.error(w, r, v, ctf.Errorf(ctf.Forbidden, "only admins may see this page"))
		return v, false
	}
	return v, true
}

// adminUser returns the caller if they are an admin, and the account the
// address names ({username}); else it answers (log in, 403, 404) and
// returns false.
func (h *Handler) adminUser(w http.ResponseWriter, r *http.Request) (ctf.Viewer, live.UserView, bool) {
	v, ok := h.admin(w, r)
	if !ok {
		return v, live.UserView{}, false
	}
	u, err := h.svc.Admin.UserByName(r.Context(), v, r.PathValue("username"))
	if err != nil {
		h.error(w, r, v, err)
		return v, u, false
	}
	return v, u, true
}

type overviewData struct {
	O       live.Overview
	MaxHour int
	Pending int
	Audit   []auditRow
}

func (h *Handler) adminOverview(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	o, err := h.svc.Admin.Overview(r.Context(), v)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	d := overviewData{O: o}
	for _, hc := range o.SolvesPerHour {
		d.MaxHour = max(d.MaxHour, hc.Count)
	}
	q, _ := h.svc.Content.ModerationQueue(r.Context(), v)
	d.Pending = len(q)
	audit, _ := h.svc.Admin.AuditLog(r.Context(), v, 0, 10)
	d.Audit = h.auditRows(r.Context(), v, audit)
	h.render(w, r, "admin", page{Title: "Admin", Viewer: v, Data: d})
}

func (h *Handler) adminChallenges(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	list, err := h.svc.Content.AdminChallenges(r.Context(), v)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	h.render(w, r, "admin-challenges", page{Title: "Challenges · Admin", Viewer: v, Data: list})
}

// challengeForm is the edit form of a challenge, as typed.
type challengeForm struct {
	In           platform.ChallengeInput
	New          bool
	Flags        []ctf.Flag // the challenge's, and blank rows for more
	All          []live.ChallengeCount
	Categories   string
	Tags         string
	Port         string
	Instance     string // the instance spec as YAML, as typed
	Difficulties []ctf.Difficulty
	FlagKinds    []ctf.FlagKind
	MaxMiB       int
	Release      string // the release time as typed (UTC), "" for none
	// Handout is the challenge's current handout (nil for none); Preview:
	// the description is shown rendered above the form.
	Handout        *platform.ChallengeFile
	HandoutUnknown bool // the handout could not be read: say nothing of it
	Preview        bool
	// Field is the field a refusal is about, marked in the form.
	Field string
	// Saved is the challenge's slug as saved ("" for a new one): the form
	// may hold another, as typed.
	Saved string
	// Points, Scoring and HintRows are as typed (a number that does not
	// parse stays in its field); HintRows are the challenge's hints and
	// blank rows for more.
	Points     string
	Scoring    scoringForm
	HintRows   []hintRow
	DecayFuncs []ctf.DecayFunc
}

func (h *Handler) challengeFormPage(w http.ResponseWriter, r *http.Request, v ctf.Viewer, f challengeForm, p page) {
	f.All, _ = h.svc.Content.AdminChallenges(r.Context(), v)
	f.Difficulties, f.FlagKinds = ctf.Difficulties, ctf.FlagKinds
	f.MaxMiB = platform.DefaultMaxFileBytes >> 20
	if f.Categories == "" {
		f.Categories = strings.Join(f.In.Categories, ", ")
	}
	if f.Tags == "" {
		f.Tags = strings.Join(f.In.Tags, ", ")
	}
	if f.Release == "" {
		f.Release = inputTime(f.In.ReleaseAt)
	}
	if f.Port == "" && f.In.DockerPort != nil {
		f.Port = strconv.Itoa(*f.In.DockerPort)
	}
	if f.Instance == "" {
		f.Instance = dataset.FormatInstance(f.In.Instance)
	}
	if f.Saved != "" {
		var err error
		if f.Handout, err = h.svc.Content.Handout(r.Context(), v, f.Saved); err != nil {
			h.log.Warn("the editor's handout", "challenge", f.Saved, "err", err)
			f.HandoutUnknown = true
		}
	}
	f.Flags = append(append([]ctf.Flag(nil), f.In.Flags...), ctf.Flag{Kind: ctf.FlagStatic}, ctf.Flag{Kind: ctf.FlagStatic})
	f.editorScoring()
	f.DecayFuncs = []ctf.DecayFunc{ctf.Logarithmic, ctf.Linear}
	p.Viewer, p.Data = v, f
	if p.Title == "" {
		p.Title = "Edit " + f.In.Title + " · Admin"
		if f.New {
			p.Title = "New challenge · Admin"
		}
	}
	// The page's address, for the links that come back to it (the theme
	// switch), is the editor's, not the form's.
	p.Path = "/admin/challenges/new"
	if f.Saved != "" {
		p.Path = "/admin/challenges/" + url.PathEscape(f.Saved)
	}
	h.render(w, r, "admin-challenge", p)
}

func (h *Handler) adminNewChallenge(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	h.challengeFormPage(w, r, v, challengeForm{New: true, In: platform.ChallengeInput{Difficulty: ctf.Medium, Points: 100, Hidden: true}}, page{})
}

func (h *Handler) adminEditChallenge(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	in, err := h.svc.Content.ChallengeForEdit(r.Context(), v, r.PathValue("slug"))
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	h.challengeFormPage(w, r, v, challengeForm{In: in, Saved: in.Slug}, page{})
}

// adminHandout sends an admin the stored handout of a challenge, hidden or
// not (players fetch it at /files/ once they see the challenge).
func (h *Handler) adminHandout(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	f, err := h.svc.Content.OpenHandout(r.Context(), v, r.PathValue("slug"))
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	defer f.Close()
	hd := w.Header()
	hd.Set("Content-Type", "application/octet-stream")
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.Name}))
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Cache-Control", "private, no-store")
	http.ServeContent(w, r, f.Name, time.Time{}, f)
}

// adminSaveChallenge creates (no id) or edits a challenge from the form,
// with an uploaded file (size-limited) or a link, and lands on its editor
// with "Challenge created." or "Changes saved.". "Preview" (a button
// named preview) shows the form again, as typed, with the description
// rendered above it, and saves nothing. A refusal shows the form again
// at this address with the refusal as a sentence and everything typed
// kept but the file: the description alone may be 64 KiB, more than a
// flash holds.
func (h *Handler) adminSaveChallenge(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	// The body is capped for this route (bodyLimits); files past 1 MiB
	// wait on disk.
	if err := r.ParseMultipartForm(1 << 20); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		if isTooLarge(err) {
			h.tooLarge(w, r, bodyLimits[r.Pattern])
			return
		}
		h.error(w, r, v, ctf.Errorf(ctf.Invalid, "the form could not be read"))
		return
	}
	f, err := challengeFormOf(r)
	if r.FormValue("preview") != "" {
		f.Preview = true
		h.challengeFormPage(w, r, v, f, page{})
		return
	}
	if err == nil {
		var c ctf.Challenge
		if c, err = h.svc.Content.SaveChallenge(r.Context(), v, f.In); err == nil {
			notice := "Changes saved."
			if f.New {
				notice = "Challenge created."
			}
			h.redirectWith(w, r, v, "/admin/challenges/"+url.PathEscape(c.Slug), flash{Notice: notice})
			return
		}
	}
	p := h.refusedInWords(w, r, err)
	f.Field = fieldOf(err)
	h.challengeFormPage(w, r, v, f, p)
}

// challengeFormOf reads the editor's form: the form as typed, and the
// first of its fields that does not parse (nil when all do).
func challengeFormOf(r *http.Request) (challengeForm, error) {
	f := challengeForm{New: r.FormValue("id") == "", Categories: r.FormValue("categories"), Tags: r.FormValue("tags"), Port: r.FormValue("dockerPort"),
		Release: r.FormValue("releaseAt"), Instance: r.FormValue("instance"), Saved: r.FormValue("saved")}
	if f.New {
		f.Saved = ""
	}
	in := platform.ChallengeInput{ID: r.FormValue("id"), Slug: r.FormValue("slug"), Title: r.FormValue("title"),
		Description: r.FormValue("description"), Type: r.FormValue("type"), Difficulty: ctf.Difficulty(r.FormValue("difficulty")),
		Author: strings.TrimSpace(r.FormValue("author")), HasInstance: r.FormValue("hasInstance") == "1",
		Hidden: r.FormValue("hidden") == "1", ConnectionInfo: r.FormValue("connectionInfo"), FlagFormat: r.FormValue("flagFormat"), RemoveFile: r.FormValue("removeFile") == "1",
		Categories: splitList(f.Categories), Tags: splitList(f.Tags), Requires: r.Form["requires"]}
	var err error
	f.Points = r.FormValue("points")
	in.Scoring, f.Scoring, err = scoringOf(r)
	if !in.Scoring.IsDynamic() && err == nil {
		// A dynamic challenge's points follow its initial value: the
		// static field, hidden then, is not read.
		if in.Points, err = strconv.Atoi(strings.TrimSpace(f.Points)); err != nil {
			err = ctf.FieldErrorf("points", "must be a whole number")
		}
	}
	var herr error
	in.Hints, f.HintRows, herr = hintsOfForm(r)
	if err == nil {
		err = herr
	}
	if at, rerr := parseInputTime("releaseAt", "releaseAt", f.Release); rerr != nil && err == nil {
		err = rerr
	} else {
		in.ReleaseAt = at
	}
	if spec, ierr := dataset.ParseInstance(f.Instance); ierr != nil && err == nil {
		err = ierr
	} else {
		in.Instance = spec
	}
	if p := strings.TrimSpace(f.Port); p != "" && err == nil {
		n, perr := strconv.Atoi(p)
		if perr != nil {
			err = ctf.FieldErrorf("dockerPort", "must be a port number")
		}
		in.DockerPort = &n
	}
	for i := 0; ; i++ {
		k := strconv.Itoa(i)
		kind, ok := r.Form["flagKind"+k]
		if !ok {
			break
		}
		if content := r.FormValue("flagContent" + k); strings.TrimSpace(content) != "" {
			in.Flags = append(in.Flags, ctf.Flag{Kind: ctf.FlagKind(kind[0]), Content: content, CaseInsensitive: r.FormValue("flagCI"+k) == "1"})
		}
	}
	if url := strings.TrimSpace(r.FormValue("fileURL")); url != "" {
		in.File = &platform.FileInput{Name: r.FormValue("fileName"), URL: url}
		if in.File.Name == "" {
			in.File.Name = url[strings.LastIndex(url, "/")+1:]
		}
	} else if file, header, ferr := r.FormFile("file"); ferr == nil {
		data, rerr := io.ReadAll(file)
		file.Close()
		if rerr != nil && err == nil {
			err = ctf.Errorf(ctf.Invalid, "the file could not be read")
		}
		in.File = &platform.FileInput{Name: header.Filename, Data: data}
	}
	f.In = in
	return f, err
}

// fileSize says a size in bytes for a reader: "512 bytes", "3.2 KiB",
// "64.0 MiB".
func fileSize(n int64) string {
	switch {
	case n < 1<<10:
		return plural(n, "byte")
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func (h *Handler) adminWriteups(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	q, err := h.svc.Content.ModerationQueue(r.Context(), v)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	h.render(w, r, "admin-writeups", page{Title: "Writeups · Admin", Viewer: v, Data: q})
}

func (h *Handler) adminModerate(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	approve := r.PostFormValue("decision") == "approve"
	_, err := h.svc.Content.ModerateWriteup(r.Context(), v, r.PostFormValue("id"), approve, r.PostFormValue("reason"))
	f := flash{Notice: "Writeup rejected."}
	if approve {
		f.Notice = "Writeup approved."
	}
	if err != nil {
		f = flash{Error: h.refused(w, r, err).Error}
	}
	h.redirectWith(w, r, v, "/admin/writeups", f)
}

type usersData struct {
	Query string
	Users []live.UserView
	More  int
	New   newUserForm
}

// newUserForm is the "Create an account" form as typed (never the
// password), with the use case's refusal shown beside it, or the account
// just made.
type newUserForm struct {
	Username, Email, Name string
	Admin                 bool
	Error                 string
	Created               *createdUser
}

// createdUser is the account just made, shown once above the form.
type createdUser struct {
	ID         string   `json:"i"`
	Username   string   `json:"u"`
	Role       ctf.Role `json:"r"`
	NoPassword bool     `json:"n,omitempty"`
}

const usersPageSize = 100

// adminUsers lists the accounts (matching q), with the "Create an
// account" form: as typed after a refusal, or the account just made.
func (h *Handler) adminUsers(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	fl := h.takeFlash(w, r, v)
	p := page{Notice: fl.Notice, Error: fl.Error, flashTaken: true}
	f := newUserForm{Created: fl.Created}
	if c := f.Created; c != nil { // only an account that is: a flash is a cookie
		if u, err := h.svc.Admin.UserByName(r.Context(), v, c.Username); err != nil || u.ID != c.ID {
			f.Created = nil
		}
	}
	if fl.Section == "new" {
		f.Error, p.Error = fl.Error, ""
		f.Username, f.Email, f.Name, f.Admin = fl.Form["username"], fl.Form["email"], fl.Form["name"], fl.Form["admin"] == "1"
	}
	q := r.URL.Query().Get("q")
	users, err := h.svc.Admin.Users(r.Context(), v, q)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	d := usersData{Query: q, Users: users, New: f}
	if len(users) > usersPageSize {
		d.Users, d.More = users[:usersPageSize], len(users)-usersPageSize
	}
	p.Title, p.Viewer, p.Data = "Users · Admin", v, d
	h.render(w, r, "admin-users", p)
}

// usersBack is where a form of the users' pages lands: back, when it is a
// path of this site (the player's page), else the list searched by q.
func usersBack(back, q string) string {
	if sitePath(back) {
		return back
	}
	if q != "" {
		return "/admin/users?q=" + url.QueryEscape(q)
	}
	return "/admin/users"
}

// adminUserAction unbans, promotes or demotes a user (a ban takes its
// confirmation page: admin_ban.go).
func (h *Handler) adminUserAction(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	id, action := r.PostFormValue("id"), r.PostFormValue("action")
	var u ctf.User
	var err error
	var done string
	switch action {
	case "unban":
		u, err = h.svc.Admin.SetBanned(r.Context(), v, id, false, "")
		done = "Unbanned %s: their sessions, solves and agents count again."
	case "promote":
		u, err = h.svc.Admin.SetRole(r.Context(), v, id, ctf.RoleAdmin)
		done = "%s is an admin now."
	case "demote":
		u, err = h.svc.Admin.SetRole(r.Context(), v, id, ctf.RolePlayer)
		done = "%s is a player now."
	case "ban":
		err = ctf.Errorf(ctf.Invalid, "a ban is confirmed on its own page: press Ban beside the account")
	default:
		err = ctf.Errorf(ctf.Invalid, "unknown action %q", action)
	}
	f := flash{Notice: fmt.Sprintf(done, u.Username)}
	if err != nil {
		f = flash{Error: h.refused(w, r, err).Error}
	}
	h.redirectWith(w, r, v, usersBack(r.PostFormValue("back"), r.PostFormValue("q")), f)
}

// adminCreateUser creates an account, whether registration is open or not
// (docs/product.md#registration: then only admins and the CLI do). As with the CLI, the
// password may be left out: such an account (a challenge's author, say)
// exists but nobody can log in to it. The list then shows the new account,
// and the box above the form says it was made (once).
func (h *Handler) adminCreateUser(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	typed := map[string]string{"username": strings.TrimSpace(r.PostFormValue("username")), "email": strings.TrimSpace(r.PostFormValue("email")),
		"name": strings.TrimSpace(r.PostFormValue("name")), "admin": r.PostFormValue("admin")}
	in := platform.NewUser{Username: typed["username"], Email: typed["email"], Name: typed["name"], Password: r.PostFormValue("password"), Role: ctf.RolePlayer}
	if typed["admin"] == "1" {
		in.Role = ctf.RoleAdmin
	}
	var u ctf.User
	var err error
	if in.Password != r.PostFormValue("password2") {
		err = ctf.FieldErrorf("password", "and its repetition differ")
	} else {
		u, err = h.svc.Accounts.CreateUser(r.Context(), v, in)
	}
	if err != nil {
		h.redirectWith(w, r, v, usersBack("", r.PostFormValue("q")), flash{Error: h.refused(w, r, err).Error, Section: "new", Form: typed})
		return
	}
	h.redirectWith(w, r, v, usersBack("", u.Username),
		flash{Created: &createdUser{ID: u.ID, Username: u.Username, Role: u.Role, NoPassword: u.PasswordHash == ""}})
}

type mailData struct {
	Configured bool
	Mail       []platform.MailEntry
	Max        int
}

// adminMail lists the outbox: what was mailed to whom, and whether it went.
func (h *Handler) adminMail(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	box, err := h.svc.Admin.MailLog(r.Context(), v)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	h.render(w, r, "admin-mail", page{Title: "Mail · Admin", Viewer: v,
		Data: mailData{Configured: h.svc.Admin.MailConfigured(), Mail: box, Max: platform.MailLogSize}})
}

func (h *Handler) adminAudit(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admin(w, r)
	if !ok {
		return
	}
	before, _ := strconv.ParseInt(r.URL.Query().Get("before"), 10, 64)
	log, err := h.svc.Admin.AuditLog(r.Context(), v, before, 100)
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	h.render(w, r, "admin-audit", page{Title: "Audit log · Admin", Viewer: v, Data: h.auditRows(r.Context(), v, log)})
}
