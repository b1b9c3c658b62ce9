package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/flagshipctf/flagship/internal/clientaddr"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
)

// Account recovery (docs/product.md#account-recovery): "Forgot password?"
// mails a reset link, the reset page sets a new password with it, and an
// admin recovers an account without email. The rules are the Accounts
// and Admin use cases'.

type forgotForm struct {
	Name   string
	NoMail bool // no SMTP server: ask the organisers
	Sent   bool
}

func (h *Handler) forgotPage(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	fl := h.takeFlash(w, r, v)
	h.render(w, r, "forgot", page{Title: "Forgot your password?", Viewer: v, Error: fl.Error, flashTaken: true,
		Data: forgotForm{Name: fl.Form["name"], NoMail: !h.svc.Accounts.MailEnabled(), Sent: r.URL.Query().Get("sent") == "1"}})
}

// forgot asks for a reset link; the answer is the same whether or not the
// account exists.
func (h *Handler) forgot(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	if err := h.svc.Accounts.ForgotPassword(r.Context(), name, clientaddr.Bucket(r)); err != nil {
		h.redirectWith(w, r, h.viewer(w, r), "/forgot", flash{Error: h.refused(w, r, err).Error, Form: map[string]string{"name": name}})
		return
	}
	redirect(w, r, "/forgot?sent=1")
}

type resetForm struct {
	Token  string
	Target platform.ResetTarget
	Bad    bool // the link does not work: ask for a new one
}

// resetPage shows the form of a reset link, or why the link does not work.
// The token is in the address: the page sends no Referer anywhere.
func (h *Handler) resetPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Referrer-Policy", "no-referrer")
	token := r.URL.Query().Get("token")
	p := page{Title: "Choose a new password", Viewer: h.viewer(w, r), NoIndex: true}
	target, err := h.svc.Accounts.ResetTarget(r.Context(), token)
	if err != nil {
		p.Data = resetForm{Bad: true}
		h.formError(w, r, "reset", p, err)
		return
	}
	p.Data = resetForm{Token: token, Target: target}
	h.render(w, r, "reset", p)
}

// reset sets the new password, then sends the person to log in with it;
// a refusal goes back to the link's page.
func (h *Handler) reset(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Referrer-Policy", "no-referrer")
	token := r.PostFormValue("token")
	var err error
	if password := r.PostFormValue("password"); password != r.PostFormValue("password2") {
		err = ctf.Errorf(ctf.Invalid, "The two passwords differ.")
	} else {
		_, err = h.svc.Accounts.ResetPassword(r.Context(), platform.PasswordReset{Token: token, Password: password,
			Code: r.PostFormValue("code"), Address: clientaddr.Bucket(r)})
	}
	if err != nil {
		h.redirectWith(w, r, h.viewer(w, r), "/reset?token="+url.QueryEscape(token), flash{Error: h.refused(w, r, err).Error})
		return
	}
	// Any session this browser had ended with the others.
	h.session.Clear(w)
	redirect(w, r, "/login?reset=1")
}

type recoveryData struct {
	User live.UserView
	Link string // a reset link just made, shown once
}

// adminRecovery is an account's recovery page: a one-time reset link,
// two-factor off, name and email.
func (h *Handler) adminRecovery(w http.ResponseWriter, r *http.Request) {
	v, u, ok := h.adminUser(w, r)
	if !ok {
		return
	}
	f := h.takeFlash(w, r, v)
	p := page{Notice: f.Notice, Error: f.Error, flashTaken: true}
	link := f.Link
	if link != "" && !h.linkIsFor(r, link, u.Username) {
		link = ""
	}
	if link != "" {
		// Shown once: no cache keeps it.
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
	}
	p.Title, p.Viewer, p.Data, p.NoIndex = "Recover "+u.Username+" · Admin", v, recoveryData{User: u, Link: link}, true
	h.render(w, r, "admin-recovery", p)
}

// adminRecoveryAction makes a reset link, turns 2FA off or edits the name
// and email of the account the address names.
func (h *Handler) adminRecoveryAction(w http.ResponseWriter, r *http.Request) {
	v, u, ok := h.adminUser(w, r)
	if !ok {
		return
	}
	var err error
	var link, done string
	switch action := r.PostFormValue("action"); action {
	case "link":
		link, err = h.svc.Admin.ResetLink(r.Context(), v, u.ID)
	case "disable-2fa":
		_, err = h.svc.Admin.DisableTwoFactor(r.Context(), v, u.ID)
		done = "Two-factor authentication is off, and every session of the account has ended."
	case "edit":
		_, err = h.svc.Admin.EditUser(r.Context(), v, u.ID, r.PostFormValue("name"), r.PostFormValue("email"))
		done = "Saved."
	default:
		err = ctf.Errorf(ctf.Invalid, "unknown action %q", action)
	}
	f := flash{Notice: done, Link: link}
	if err != nil {
		f = flash{Error: h.refused(w, r, err).Error}
	}
	h.redirectWith(w, r, v, "/admin/users/"+url.PathEscape(u.Username)+"/recovery", f)
}

// linkIsFor reports whether link is a working reset link of the account
// username: a flash shows a link only then, so a cookie planted by a
// sibling site cannot pass off a link to another account.
func (h *Handler) linkIsFor(r *http.Request, link, username string) bool {
	u, err := url.Parse(link)
	if err != nil {
		return false
	}
	target, err := h.svc.Accounts.ResetTarget(r.Context(), u.Query().Get("token"))
	return err == nil && target.Username == username
}

// regenerateRecoveryCodes replaces the caller's recovery codes, given
// their password; the settings page shows the new ones once.
func (h *Handler) regenerateRecoveryCodes(r *http.Request, v ctf.Viewer, d *settingsData) (string, error) {
	codes, err := h.svc.Accounts.RegenerateRecoveryCodes(r.Context(), v, r.PostFormValue("password"))
	if err != nil {
		return "", err
	}
	d.Recovery = codes
	return "New recovery codes: the old ones no longer work. Keep these somewhere safe: they are shown only now.", nil
}

type verifyData struct {
	Verified   bool // a link just worked
	Unverified bool // the caller's address is not confirmed yet
	Sent       bool
}

// verifyPage confirms an address with ?token=, or shows the caller where
// their confirmation stands, with a form to send the link again.
func (h *Handler) verifyPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Referrer-Policy", "no-referrer")
	v := h.viewer(w, r)
	p := page{Title: "Confirm your email address", Viewer: v, NoIndex: true}
	if token := r.URL.Query().Get("token"); token != "" {
		if _, err := h.svc.Accounts.VerifyEmail(r.Context(), token); err != nil {
			p.Data = verifyData{Unverified: v.User != nil && v.User.EmailUnverified}
			h.formError(w, r, "verify", p, err)
			return
		}
		// The address is confirmed: the page's own address drops the token.
		redirect(w, r, "/verify?done=1")
		return
	}
	p.Data = verifyData{Verified: r.URL.Query().Get("done") == "1", Unverified: v.User != nil && v.User.EmailUnverified,
		Sent: r.URL.Query().Get("sent") == "1"}
	h.render(w, r, "verify", p)
}

// resendVerification mails the caller a new confirmation link.
func (h *Handler) resendVerification(w http.ResponseWriter, r *http.Request) {
	v, ok := h.signedIn(w, r)
	if !ok {
		return
	}
	if err := h.svc.Accounts.ResendVerification(r.Context(), v); err != nil {
		h.redirectWith(w, r, v, "/verify", flash{Error: h.refused(w, r, err).Error})
		return
	}
	redirect(w, r, "/verify?sent=1")
}
