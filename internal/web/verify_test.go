package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/mail/mailtest"
)

var verifyURLRE = regexp.MustCompile(`https?://\S+/verify\?token=[A-Za-z0-9_-]+`)

// TestEmailVerificationByLink: under --require-email-verification a new
// player's flag is refused until they open the link the SMTP server
// received; /verify sends it again; the link works once.
func TestEmailVerificationByLink(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event, apitest.Options{Mail: true, RequireEmailVerification: true})
	smtp := startMail(t, s)
	b := newBrowser(t, s)
	p := b.post("/signup", url.Values{"username": {"newbie"}, "email": {"newbie@example.com"}, "password": {"a long password"}, "password2": {"a long password"}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/verify" {
		t.Fatalf("sign up: %d %s\n%.1000s", p.status, p.header.Get("Location"), p.body)
	}
	want(t, "an unconfirmed flag", b.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), http.StatusOK, "Confirm your email address first")
	want(t, "verify page", b.get("/verify"), http.StatusOK, "cannot submit flags until", "newbie@example.com", "Send the link again")
	if p := b.post("/verify/resend", url.Values{}); p.status != http.StatusSeeOther || p.header.Get("Location") != "/verify?sent=1" {
		t.Fatalf("send again: %d %s", p.status, p.header.Get("Location"))
	}
	msgs := smtp.Wait(t, 2, 10*time.Second)
	link := verifyURLRE.FindString(mailtest.Parse(t, msgs[0].Raw).Parts["text/plain"])
	if link == "" || msgs[0].To[0] != "newbie@example.com" {
		t.Fatalf("no link in %s", msgs[0].Raw)
	}
	path := strings.TrimPrefix(link, s.URL)
	p = b.get(path)
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/verify?done=1" {
		t.Fatalf("follow the link: %d %s\n%.1000s", p.status, p.header.Get("Location"), p.body)
	}
	want(t, "confirmed", b.get("/verify?done=1"), http.StatusOK, "Your email address is confirmed")
	want(t, "a confirmed player's flag", b.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), http.StatusOK, "Correct!")
	want(t, "the link again", b.get(path), http.StatusBadRequest, "not valid")
	want(t, "send again once confirmed", b.send("/verify/resend", url.Values{}), 200, "confirmed already")
	// Accounts made before, or by admins, are confirmed.
	pam := logIn(t, s, "pam")
	want(t, "a loaded player's flag", pam.send("/challenges/warmup/submit", url.Values{"flag": {"flag{warm}"}}), http.StatusOK, "Correct!")
}
