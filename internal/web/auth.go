package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/flagshipctf/flagship/internal/clientaddr"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
)

type loginForm struct {
	Username string
	NeedCode bool
	Next     string
}

func (h *Handler) loginPage(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	if v.User != nil {
		redirect(w, r, "/")
		return
	}
	fl := h.takeFlash(w, r, v)
	f := loginForm{Next: safeNext(r.URL.Query().Get("next")), Username: fl.Form["username"], NeedCode: fl.NeedCode}
	p := page{Title: "Log in", Data: f, Notice: fl.Notice, Error: fl.Error, flashTaken: true}
	if r.URL.Query().Get("reset") == "1" && p.Notice == "" {
		p.Notice = "Your new password is set, and every session of the account has ended: log in with it."
	}
	h.render(w, r, "login", p)
}

// loginPath is the log-in page that keeps next.
func loginPath(next string) string {
	if next == "/" {
		return "/login"
	}
	return "/login?next=" + url.QueryEscape(next)
}

// login checks the password, and the code when the account has two-factor
// authentication; the code may be sent with the password at once. A
// refusal, or the request for the code, goes back to the log-in page with
// the username kept (never the password).
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	f := loginForm{Username: strings.TrimSpace(r.PostFormValue("username")), Next: safeNext(r.PostFormValue("next"))}
	res, err := h.svc.Accounts.Login(r.Context(), platform.Login{Username: f.Username, Password: r.PostFormValue("password"),
		Code: r.PostFormValue("code"), Address: clientaddr.Bucket(r), UserAgent: r.UserAgent()})
	typed := map[string]string{"username": f.Username}
	switch {
	case err != nil:
		h.redirectWith(w, r, ctf.Viewer{}, loginPath(f.Next), flash{Error: h.refused(w, r, err).Error, Form: typed})
	case res.NeedCode:
		h.redirectWith(w, r, ctf.Viewer{}, loginPath(f.Next), flash{Form: typed, NeedCode: true,
			Notice: "This account has two-factor authentication: enter your password again with the code from your app (or a recovery code)."})
	default:
		h.session.Set(w, res.Token)
		redirect(w, r, f.Next)
	}
}

type signupForm struct {
	Username, Email, Name string
	Closed                bool
}

func (h *Handler) signupPage(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	if v.User != nil {
		redirect(w, r, "/")
		return
	}
	fl := h.takeFlash(w, r, v)
	f := signupForm{Username: fl.Form["username"], Email: fl.Form["email"], Name: fl.Form["name"], Closed: !h.svc.Accounts.RegistrationOpen()}
	h.render(w, r, "signup", page{Title: "Sign up", Data: f, Notice: fl.Notice, Error: fl.Error, flashTaken: true})
}

// signup opens an account and logs it in; a refusal goes back to the form
// with what was typed (never the passwords).
func (h *Handler) signup(w http.ResponseWriter, r *http.Request) {
	f := signupForm{Username: strings.TrimSpace(r.PostFormValue("username")), Email: strings.TrimSpace(r.PostFormValue("email")),
		Name: strings.TrimSpace(r.PostFormValue("name"))}
	typed := map[string]string{"username": f.Username, "email": f.Email, "name": f.Name}
	password := r.PostFormValue("password")
	if password != r.PostFormValue("password2") {
		h.redirectWith(w, r, ctf.Viewer{}, "/signup", flash{Error: "The two passwords differ.", Form: typed})
		return
	}
	if _, err := h.svc.Accounts.SignUp(r.Context(), platform.SignUp{Username: f.Username, Email: f.Email, Password: password, Name: f.Name,
		Address: clientaddr.Bucket(r)}); err != nil {
		h.redirectWith(w, r, ctf.Viewer{}, "/signup", flash{Error: h.refused(w, r, err).Error, Form: typed})
		return
	}
	res, err := h.svc.Accounts.Login(r.Context(), platform.Login{Username: f.Username, Password: password, Address: clientaddr.Bucket(r), UserAgent: r.UserAgent()})
	if err != nil || res.Token == "" {
		redirect(w, r, "/login")
		return
	}
	h.session.Set(w, res.Token)
	if res.User.EmailUnverified {
		redirect(w, r, "/verify") // what to do before playing
		return
	}
	redirect(w, r, "/")
}

func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	v := h.viewer(w, r)
	err := h.svc.Accounts.Logout(r.Context(), v)
	if token, ok := h.session.Token(r); ok && v.User == nil && err == nil {
		err = h.svc.Accounts.LogoutBanned(r.Context(), token) // from the ban's notice
	}
	if err != nil {
		h.error(w, r, v, err)
		return
	}
	h.session.Clear(w)
	redirect(w, r, "/")
}
