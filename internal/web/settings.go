package web

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"image/png"
	"net/http"
	"net/url"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/pquerna/otp"
)

// settingsData is the settings page: profile, password, two-factor
// authentication, sessions and API keys.
type settingsData struct {
	Me        live.MyProfile
	Sessions  []live.SessionView
	Keys      []live.APIKeyView
	NewKey    string // a key just made: shown this once
	BaseURL   string
	Enrolment *enrolmentView
	Recovery  []string // recovery codes just made: shown this once
	// What a two-factor form did, said in its section.
	TwoFactorNotice, TwoFactorError string
	CodesLeft                       int
}

type enrolmentView struct {
	Secret string
	QR     template.URL // a PNG of the otpauth URI, as a data URL
}

// signedIn returns the caller, or sends them to log in and returns false.
func (h *Handler) signedIn(w http.ResponseWriter, r *http.Request) (ctf.Viewer, bool) {
	v := h.viewer(w, r)
	if v.User == nil {
		next := r.URL.Path
		if r.Method != http.MethodGet {
			next = "/settings"
		}
		redirect(w, r, "/login?next="+url.QueryEscape(next))
		return v, false
	}
	return v, true
}

func (h *Handler) settings(w http.ResponseWriter, r *http.Request) {
	v, ok := h.signedIn(w, r)
	if !ok {
		return
	}
	f := h.takeFlash(w, r, v)
	p, d := page{Notice: f.Notice, Error: f.Error, flashTaken: true}, settingsData{NewKey: f.Key, Recovery: f.Recovery}
	if f.Section == "twofactor" {
		// Said beside the QR code and the code's field, where the page lands.
		d.TwoFactorNotice, d.TwoFactorError, p.Notice, p.Error = p.Notice, p.Error, "", ""
	}
	h.settingsPage(w, r, v, p, d)
}

func (h *Handler) settingsPage(w http.ResponseWriter, r *http.Request, v ctf.Viewer, p page, d settingsData) {
	ctx := r.Context()
	var err error
	if d.Me, err = h.svc.Accounts.Me(ctx, v); err != nil {
		h.error(w, r, v, err)
		return
	}
	d.Sessions, _ = h.svc.Accounts.Sessions(ctx, v)
	d.Keys, _ = h.svc.Keys.List(ctx, v, "")
	if d.Me.TwoFactorEnabled {
		d.CodesLeft, _ = h.svc.Accounts.RecoveryCodesLeft(ctx, v)
	} else {
		d.Recovery = nil // codes are only ever of an account with 2FA on
		if e, ok, err := h.svc.Accounts.PendingTwoFactor(ctx, v); err != nil {
			h.log.Warn("read a pending 2FA enrolment", "err", err)
		} else if ok {
			d.Enrolment = &enrolmentView{Secret: e.Secret, QR: qrDataURL(e.URI)}
		}
	}
	d.BaseURL = h.baseURL(r)
	p.Title, p.Viewer, p.Data = "Settings", v, d
	h.render(w, r, "settings", p)
}

// settingsForm runs one form of the settings page and goes back to the
// page (post/redirect/get) with fn's notice or error, and what fn put in d
// to show once (a new key, recovery codes).
func (h *Handler) settingsForm(fn func(r *http.Request, v ctf.Viewer, d *settingsData) (notice string, err error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, ok := h.signedIn(w, r)
		if !ok {
			return
		}
		var d settingsData
		notice, err := fn(r, v, &d)
		to, f := "/settings", flash{Notice: notice, Key: d.NewKey, Recovery: d.Recovery}
		if strings.HasPrefix(r.URL.Path, "/settings/2fa/") {
			to, f.Section = "/settings#twofactor", "twofactor"
		}
		if err != nil {
			f = flash{Error: h.refused(w, r, err).Error, Section: f.Section}
		}
		h.redirectWith(w, r, v, to, f)
	}
}

func (h *Handler) cookieValue(r *http.Request) string {
	token, _ := h.session.Token(r)
	return token
}

func (h *Handler) saveProfile(r *http.Request, v ctf.Viewer, _ *settingsData) (string, error) {
	_, err := h.svc.Accounts.UpdateProfile(r.Context(), v, r.PostFormValue("name"), r.PostFormValue("image"))
	return "Profile saved.", err
}

func (h *Handler) changePassword(r *http.Request, v ctf.Viewer, _ *settingsData) (string, error) {
	if r.PostFormValue("new") != r.PostFormValue("new2") {
		return "", ctf.FieldErrorf("new password", "and its repetition differ")
	}
	return "Password changed; your other sessions are logged out.", h.svc.Accounts.ChangePassword(r.Context(), v, r.PostFormValue("current"), r.PostFormValue("new"))
}

func (h *Handler) beginTwoFactor(r *http.Request, v ctf.Viewer, d *settingsData) (string, error) {
	if _, err := h.svc.Accounts.BeginTwoFactor(r.Context(), v); err != nil {
		return "", err
	}
	// The settings page shows the pending secret until a right code comes.
	return "Scan the code with your authenticator app, then enter the code it shows.", nil
}

func (h *Handler) confirmTwoFactor(r *http.Request, v ctf.Viewer, d *settingsData) (string, error) {
	codes, err := h.svc.Accounts.ConfirmTwoFactor(r.Context(), v, r.PostFormValue("code"))
	if err != nil {
		return "", err
	}
	d.Recovery = codes
	return "Two-factor authentication is on. Your other sessions are logged out. Keep the recovery codes below somewhere safe: they are shown only now.", nil
}

func (h *Handler) disableTwoFactor(r *http.Request, v ctf.Viewer, _ *settingsData) (string, error) {
	return "Two-factor authentication is off. Your other sessions are logged out.",
		h.svc.Accounts.DisableTwoFactor(r.Context(), v, r.PostFormValue("password"), r.PostFormValue("code"))
}

func (h *Handler) revokeSession(r *http.Request, v ctf.Viewer, _ *settingsData) (string, error) {
	return "Session ended.", h.svc.Accounts.RevokeSession(r.Context(), v, r.PostFormValue("id"))
}

func (h *Handler) revokeOtherSessions(r *http.Request, v ctf.Viewer, _ *settingsData) (string, error) {
	return "Your other sessions are logged out.", h.svc.Accounts.RevokeOtherSessions(r.Context(), v)
}

func (h *Handler) createKey(r *http.Request, v ctf.Viewer, d *settingsData) (string, error) {
	_, secret, err := h.svc.Keys.Create(r.Context(), v, platform.NewAPIKey{Name: r.PostFormValue("name"), ReadOnly: r.PostFormValue("readonly") == "1"})
	if err != nil {
		return "", err
	}
	d.NewKey = secret
	return "Key created. Copy it now: it is shown only this once.", nil
}

func (h *Handler) revokeKey(r *http.Request, v ctf.Viewer, _ *settingsData) (string, error) {
	_, err := h.svc.Keys.Revoke(r.Context(), v, "", r.PostFormValue("id"))
	return "Key revoked.", err
}

// qrDataURL draws the otpauth URI as a QR code PNG in a data URL (the CSP
// allows data: images; nothing leaves the server).
func qrDataURL(uri string) template.URL {
	key, err := otp.NewKeyFromURL(uri)
	if err != nil {
		return ""
	}
	img, err := key.Image(240, 240)
	if err != nil {
		return ""
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return ""
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())) // #nosec: our own PNG
}
