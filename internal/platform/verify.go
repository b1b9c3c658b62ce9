package platform

import (
	"bytes"
	"context"
	htmltemplate "html/template"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
)

// Email verification (serve --require-email-verification): an account
// signed up under it gets a link by email, and cannot submit until it has
// opened it. Accounts made otherwise count as verified.

const (
	// VerifyLifetime is how long a confirmation link works.
	VerifyLifetime = 48 * time.Hour
	// maxVerifyMails bounds the links sent again per account per
	// loginWindow.
	maxVerifyMails = 3
)

// ErrUnverified refuses a submission of an account whose address is not
// confirmed yet.
var ErrUnverified = ctf.Errorf(ctf.Forbidden, "confirm your email address first: open the link we sent to it (the page /verify sends it again)")

// VerificationRequired reports whether sign-ups confirm their address.
func (s *Accounts) VerificationRequired() bool { return s.opts.RequireEmailVerification }

// insertUserToVerify records a signed-up account, unverified, with its
// link and the mail that carries it.
func (s *Accounts) insertUserToVerify(ctx context.Context, u ctf.User) (ctf.User, error) {
	u.EmailUnverified = true
	v, msg := s.newVerification(&u)
	defer s.live.Write()()
	seqs, err := s.db.CreateUserToVerify(ctx, u, v, msg)
	if err != nil {
		return ctf.User{}, err
	}
	s.live.Apply(seqs, func(tx *live.Tx) { tx.PutUser(u) })
	return u, nil
}

func (s *Accounts) newVerification(u *ctf.User) (store.EmailVerification, store.OutMail) {
	now := s.now()
	token, hash := secret.NewSessionToken()
	link := strings.TrimRight(s.opts.PublicURL, "/") + "/verify?token=" + token
	name := u.Name
	if name == "" {
		name = u.Username
	}
	text := "Hello " + name + ",\n\nConfirm that " + u.Email + " is the address of the account " + u.Username + ":\n\n" + link +
		"\n\nUntil you do, the account cannot submit flags. The link works once, for 48 hours.\n"
	var html bytes.Buffer
	_ = verifyHTML.Execute(&html, map[string]string{"Name": name, "Username": u.Username, "Email": u.Email, "Link": link})
	return store.EmailVerification{TokenHash: hash, UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(VerifyLifetime)},
		store.OutMail{Kind: "email-verification", To: u.Email, Subject: "Confirm your email address", Text: text, HTML: html.String(),
			CreatedAt: now, GiveUpAt: now.Add(VerifyLifetime)}
}

var verifyHTML = htmltemplate.Must(htmltemplate.New("verify").Parse(`<!DOCTYPE html>
<html lang="en"><body style="font-family: sans-serif; line-height: 1.5">
<p>Hello {{.Name}},</p>
<p>Confirm that {{.Email}} is the address of the account <strong>{{.Username}}</strong>:</p>
<p><a href="{{.Link}}">Confirm my address</a></p>
<p>Until you do, the account cannot submit flags. The link works once, for 48 hours.</p>
</body></html>`))

// VerifyEmail confirms an address with a link's token.
func (s *Accounts) VerifyEmail(ctx context.Context, token string) (ctf.User, error) {
	token = strings.TrimSpace(token)
	if token == "" || len(token) > 128 {
		return ctf.User{}, ctf.Errorf(ctf.Invalid, "this confirmation link is not valid; send a new one from the confirmation page")
	}
	defer s.live.Write()()
	u, seqs, err := s.db.VerifyEmail(ctx, secret.HashToken(token), s.now())
	if err != nil {
		return ctf.User{}, err
	}
	s.live.Apply(seqs, func(tx *live.Tx) { tx.PutUser(u) })
	return u, nil
}

// ResendVerification mails the caller a new confirmation link (3 per 15
// minutes); a verified account is a Conflict.
func (s *Accounts) ResendVerification(ctx context.Context, v ctf.Viewer) error {
	u, err := s.caller(v)
	if err != nil {
		return err
	}
	if !u.EmailUnverified {
		return ctf.Errorf(ctf.Conflict, "your email address is confirmed already")
	}
	if !s.opts.Mail {
		return errNoMail
	}
	now := s.now()
	id, f, err := s.db.ReserveLoginAttempt(ctx, store.Throttle{Account: "verify:" + u.ID, MaxAccount: maxVerifyMails, Since: now.Add(-loginWindow)}, now)
	if err != nil {
		return err
	}
	if id == 0 {
		e := ctf.Errorf(ctf.RateLimited, "three links were sent in the last 15 minutes; look for them (and in your spam folder) before asking again")
		e.RetryAfter = max(f.AccountLast.Add(loginWindow).Sub(now), time.Second)
		return e
	}
	ver, msg := s.newVerification(u)
	return s.db.AddEmailVerification(ctx, ver, msg)
}

// unverified reports whether the person behind v (an agent's owner for an
// agent) has not confirmed their address, as the hot state knows them.
func (s *core) unverified(v ctf.Viewer) bool {
	u, ok := s.userByID(v.User.ID)
	if !ok {
		return false
	}
	if u.Kind == ctf.KindAgent && u.OwnerID != "" {
		if o, ok := s.userByID(u.OwnerID); ok {
			return o.EmailUnverified
		}
	}
	return u.EmailUnverified
}
