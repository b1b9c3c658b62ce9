package platform

import (
	"bytes"
	"context"
	"encoding/json"
	htmltemplate "html/template"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
)

// Account recovery (docs/product.md#account-recovery): a player asks for
// a reset link by email (ForgotPassword), an admin or the operator makes
// one (Admin.ResetLink); either sets a new password once (ResetPassword),
// ends every session and keeps two-factor authentication.

const (
	// ResetLifetime is how long an emailed reset link works.
	ResetLifetime = 30 * time.Minute
	// AdminResetLifetime is how long a link an admin or the operator makes
	// works: they pass it on by hand.
	AdminResetLifetime = 24 * time.Hour
	// Reset emails asked for, per loginWindow: per account (past it no
	// more mail is sent, and the answer is the same) and per client
	// address (past it 429).
	maxResetsPerAccount = 3
	maxResetsPerAddress = 20
)

// MailEnabled reports whether email is sent (serve --smtp-url).
func (s *Accounts) MailEnabled() bool { return s.opts.Mail }

// errNoMail is the answer to a reset by email on a server that sends none.
var errNoMail = ctf.Errorf(ctf.Unavailable, "this server sends no email; ask the organisers to reset your password")

// ForgotPassword asks for a reset link for the account named (a username
// or an email) and mails it to the account's address. The answer is the
// same whether or not such an account exists, has an address, or has had
// its share of mails: only the client address's limit is told (429).
func (s *Accounts) ForgotPassword(ctx context.Context, name, address string) error {
	if !s.opts.Mail {
		return errNoMail
	}
	name = strings.TrimSpace(name)
	var u *ctf.User
	account := ""
	if loginName(name) {
		u = s.userByLogin(name)
		account = "reset:" + ctf.FoldUsername(name)
		if u != nil {
			account = "reset:" + u.ID
		}
	}
	now := s.now()
	th := store.Throttle{Account: account, MaxAccount: maxResetsPerAccount, MaxAddress: maxResetsPerAddress, Since: now.Add(-loginWindow)}
	if address != "" {
		th.Address = "reset:" + address
	}
	id, f, err := s.db.ReserveLoginAttempt(ctx, th, now)
	if err != nil {
		return err
	}
	if id == 0 {
		if th.Address != "" && f.Address >= maxResetsPerAddress {
			e := ctf.Errorf(ctf.RateLimited, "too many password resets were asked for from your address; wait before asking again")
			e.RetryAfter = max(f.AddressLast.Add(loginWindow).Sub(now), time.Second)
			return e
		}
		return nil // the account's share: nothing more is sent, and nothing said
	}
	if u == nil || u.Email == "" || u.Kind == ctf.KindAgent {
		return nil
	}
	token, hash := secret.NewSessionToken()
	link := s.resetLink(token)
	msg := resetMessage(u, link, now)
	r := store.PasswordReset{TokenHash: hash, UserID: u.ID, Origin: "email", CreatedAt: now, ExpiresAt: now.Add(ResetLifetime)}
	audit := &ctf.AuditEntry{Actor: "visitor", Action: "user.reset-request", Target: u.Username, At: ctf.Millis(now)}
	if b, err := json.Marshal(map[string]any{"address": address}); err == nil && address != "" {
		audit.Detail = string(b)
	}
	return s.db.CreatePasswordReset(ctx, r, &msg, audit)
}

// resetLink is the page a token opens: an absolute URL under the public
// URL, or a path when there is none (the CLI without --public-url).
func (s *core) resetLink(token string) string {
	return strings.TrimRight(s.opts.PublicURL, "/") + "/reset?token=" + token
}

var resetHTML = htmltemplate.Must(htmltemplate.New("reset").Parse(`<!DOCTYPE html>
<html lang="en"><body style="font-family: sans-serif; line-height: 1.5">
<p>Hello {{.Name}},</p>
<p>Someone (we hope you) asked to reset the password of the account <strong>{{.Username}}</strong>.</p>
<p><a href="{{.Link}}">Choose a new password</a></p>
<p>The link works once, for 30 minutes. If you did not ask, ignore this email: your password stays as it is.</p>
</body></html>`))

// resetMessage is the email that carries a reset link.
func resetMessage(u *ctf.User, link string, now time.Time) store.OutMail {
	name := u.Name
	if name == "" {
		name = u.Username
	}
	text := "Hello " + name + ",\n\n" +
		"Someone (we hope you) asked to reset the password of the account " + u.Username + ".\n" +
		"Choose a new password here:\n\n" + link + "\n\n" +
		"The link works once, for 30 minutes. If you did not ask, ignore this email: your password stays as it is.\n"
	var html bytes.Buffer
	_ = resetHTML.Execute(&html, map[string]string{"Name": name, "Username": u.Username, "Link": link})
	return store.OutMail{Kind: "password-reset", To: u.Email, Subject: "Reset your password", Text: text, HTML: html.String(),
		CreatedAt: now, GiveUpAt: now.Add(ResetLifetime)}
}

// ResetTarget is what the reset page shows: whose password it sets, and
// whether a second factor is asked for too.
type ResetTarget struct {
	Username  string
	TwoFactor bool
}

// ResetTarget reads a reset token: Invalid when it is unknown, used or
// expired (the same answer for each).
func (s *Accounts) ResetTarget(ctx context.Context, token string) (ResetTarget, error) {
	u, err := s.resetUser(ctx, token)
	if err != nil {
		return ResetTarget{}, err
	}
	on, err := s.twoFactorOn(ctx, u.ID)
	return ResetTarget{Username: u.Username, TwoFactor: on}, err
}

// twoFactorOn asks the database, not the hot state: a second factor
// turned on a moment ago on another replica is asked for too.
func (s *Accounts) twoFactorOn(ctx context.Context, userID string) (bool, error) {
	tf, err := s.db.TwoFactorOf(ctx, userID)
	return tf.Secret != "", err
}

func (s *Accounts) resetUser(ctx context.Context, token string) (*ctf.User, error) {
	token = strings.TrimSpace(token)
	if token == "" || len(token) > 128 {
		return nil, ctf.Errorf(ctf.Invalid, "this reset link is not valid; ask for a new one")
	}
	id, err := s.db.PasswordResetUser(ctx, secret.HashToken(token), s.now())
	if err != nil {
		return nil, err
	}
	u, ok := s.userByID(id)
	if !ok {
		s.catchUpOnMiss(ctx)
		if u, ok = s.userByID(id); !ok {
			return nil, ctf.Errorf(ctf.Invalid, "this reset link is not valid; ask for a new one")
		}
	}
	return u, nil
}

// PasswordReset is a new password set by a reset link.
type PasswordReset struct {
	Token, Password string
	Code            string // a TOTP or recovery code, for an account with 2FA
	Address         string // the client's, for the code's throttle
}

// ResetPassword sets a new password with a reset link, once: the password
// rules are sign-up's; an account with two-factor authentication must give
// a code (TOTP or recovery, throttled as a login's); every session of the
// user ends, and their failed logins are forgotten.
func (s *Accounts) ResetPassword(ctx context.Context, in PasswordReset) (ctf.User, error) {
	u, err := s.resetUser(ctx, in.Token)
	if err != nil {
		return ctf.User{}, err
	}
	if err := ctf.ValidatePassword(in.Password, u.Username); err != nil {
		return ctf.User{}, err
	}
	on, err := s.twoFactorOn(ctx, u.ID)
	if err != nil {
		return ctf.User{}, err
	}
	if on {
		if strings.TrimSpace(in.Code) == "" {
			return ctf.User{}, ctf.FieldErrorf("code", "is required: this account has two-factor authentication; give a code of your app or a recovery code")
		}
		t, err := s.reserve(ctx, "2fa:"+u.ID, in.Address)
		if err != nil {
			return ctf.User{}, err
		}
		ok, err := s.checkSecondFactor(ctx, u.ID, in.Code)
		if err != nil {
			t.forgive(ctx)
			return ctf.User{}, err
		}
		if !ok {
			return ctf.User{}, ctf.Errorf(ctf.Invalid, "wrong or already used code")
		}
		t.succeed(ctx)
	}
	hash, err := s.hashPassword(ctx, in.Password)
	if err != nil {
		return ctf.User{}, err
	}
	now := s.now()
	audit := &ctf.AuditEntry{ActorID: u.ID, Actor: u.Username, Action: "user.password-reset", Target: u.Username, At: ctf.Millis(now)}
	defer s.live.Write()()
	nu, seqs, err := s.db.ResetPassword(ctx, secret.HashToken(strings.TrimSpace(in.Token)), hash, now, audit)
	if err != nil {
		return ctf.User{}, err
	}
	s.applyOwnWithSessions(ctx, nu, seqs)
	// Locked out by failed logins? Not any more: the password is new.
	if err := s.db.ClearLoginFailures(context.WithoutCancel(ctx), u.ID, now.Add(-loginWindow)); err != nil {
		s.log.Warn("clear failed logins after a reset", "err", err)
	}
	return nu, nil
}

// RegenerateRecoveryCodes replaces the caller's recovery codes with ten
// new ones, shown this once, given the account's password (checked and
// throttled as a password change's): the old ones, used or not, stop
// working. Two-factor authentication off is a Conflict, before any check.
func (s *Accounts) RegenerateRecoveryCodes(ctx context.Context, v ctf.Viewer, password string) ([]string, error) {
	u, err := s.caller(v)
	if err != nil {
		return nil, err
	}
	if !u.TwoFactor {
		return nil, ctf.Errorf(ctf.Conflict, "two-factor authentication is off: there are no recovery codes to replace")
	}
	t, err := s.reserve(ctx, u.ID, "")
	if err != nil {
		return nil, err
	}
	ok, err := s.checkPassword(ctx, u.PasswordHash, password)
	if err != nil {
		t.forgive(ctx)
		return nil, err
	}
	if !ok {
		return nil, ctf.FieldErrorf("password", "is wrong")
	}
	t.succeed(ctx)
	codes, hashes := newRecoveryCodes()
	if err := s.db.ReplaceRecoveryCodes(ctx, u.ID, hashes); err != nil {
		return nil, err
	}
	return codes, nil
}
