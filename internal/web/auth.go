package web

import (
	"net/http"
	"strings"

	"github.com/flagshipctf/flagship/internal/clientaddr"
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
	p := page{Title: "Log in", Data: loginForm{Next: safeNext(r.URL.Query().Get("next"))}}
	if r.URL.Query().Get("reset") == "1" {
		p.Notice = "Your new password is set, and every session of the account has ended: log in with it."
	}
	h.render(w, r, "login", p)
}

// login checks the password, and the code when the account has two-factor
// authentication; the code may be sent with the password at once.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	f := loginForm{Username: strings.TrimSpace(r.PostFormValue("username")), Next: safeNext(r.PostFormValue("next"))}
	res, err := h.svc.Accounts.Login(r.Context(), platform.Login{Username: f.Username, Password: r.PostFormValue("password"),
		Code: r.PostFormValue("code"), Address: clientaddr.Bucket(r), UserAgent: r.UserAgent()})
	switch {
	case err != nil:
		h.formError(w, r, "login", page{Title: "Log in", Data: f}, err)
	case res.NeedCode:
		f.NeedCode = true
		h.render(w, r, "login", page{Title: "Log in", Data: f,
			Notice: "This account has two-factor authentication: enter your password again with the code from your app (or a recovery code).",
			Status: http.StatusUnauthorized})
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
	h.render(w, r, "signup", page{Title: "Sign up", Data: signupForm{Closed: !h.svc.Accounts.RegistrationOpen()}})
}

// signup opens an account and logs it in.
func (h *Handler) signup(w http.ResponseWriter, r *http.Request) {
	f := signupForm{Username: strings.TrimSpace(r.PostFormValue("username")), Email: strings.TrimSpace(r.PostFormValue("email")),
		Name: strings.TrimSpace(r.PostFormValue("name")), Closed: !h.svc.Accounts.RegistrationOpen()}
	password := r.PostFormValue("password")
	if password != r.PostFormValue("password2") {
		h.render(w, r, "signup", page{Title: "Sign up", Data: f, Error: "The two passwords differ.", Status: http.StatusBadRequest})
		return
	}
	if _, err := h.svc.Accounts.SignUp(r.Context(), platform.SignUp{Username: f.Username, Email: f.Email, Password: password, Name: f.Name,
		Address: clientaddr.Bucket(r)}); err != nil {
		h.formError(w, r, "signup", page{Title: "Sign up", Data: f}, err)
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
	if err := h.svc.Accounts.Logout(r.Context(), v); err != nil {
		h.error(w, r, v, err)
		return
	}
	h.session.Clear(w)
	redirect(w, r, "/")
}
