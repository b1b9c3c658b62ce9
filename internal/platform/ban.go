package platform

import (
	"context"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// userBanned reports whether the user id is banned, by its own ban or,
// for an agent, its owner's; an unknown id is not.
func (s *core) userBanned(id string) bool { return s.live.State().Accounts().Banned(id) }

// loginRefusal refuses a session to a user whose credentials were right:
// a banned user is told so, with the ban's reason (BanNotice). It is
// given only once the password (and second factor) were right, so only
// the holder of the password reads the reason; a wrong password reads as
// any wrong password.
func (s *core) loginRefusal(u *ctf.User) error {
	if s.userBanned(u.ID) {
		return ctf.Errorf(ctf.Forbidden, "%s", BanNotice(s.live.State().Accounts().BanReason(u.ID)))
	}
	return nil
}

// BanNotice is what a banned person is told, on every page of the web app
// and at log-in: that they are banned, why (the admin's reason, when one
// was given), and what it means.
func BanNotice(reason string) string {
	const rest = " You cannot submit flags or log in; ask the organisers if you think this is a mistake."
	if reason == "" {
		return "Your account is banned." + rest
	}
	if !strings.ContainsAny(reason[len(reason)-1:], ".!?") {
		reason += "."
	}
	return "Your account is banned: " + reason + rest
}

// SessionBanNotice answers, for the web app, a session cookie that no
// longer authenticates because its user is banned: the ban's notice
// (BanNotice), and true. Only the holder of the session's secret can ask;
// any other token (unknown, ended, of a user not banned) gives "", false.
func (s *Accounts) SessionBanNotice(ctx context.Context, token string) (string, bool) {
	hash, ok := sessionHash(token)
	if !ok {
		return "", false
	}
	_, reason, banned := s.live.State().Accounts().BanOfSession(hash, s.now())
	if !banned {
		return "", false
	}
	return BanNotice(reason), true
}

// DropCookie reports whether a session cookie that did not authenticate
// should be cleared by whichever door read it: yes for an unknown or ended
// session, no for a banned user's, which is kept (an unban brings it back,
// and the web app tells its holder of the ban meanwhile).
func (s *Accounts) DropCookie(ctx context.Context, token string) bool {
	_, banned := s.SessionBanNotice(ctx, token)
	return !banned
}

// LogoutBanned ends the session whose secret is token when it is a banned
// user's: it authenticates nobody, but its holder may still log out (the
// ban's notice offers it), and logging out ends the session.
func (s *Accounts) LogoutBanned(ctx context.Context, token string) error {
	hash, ok := sessionHash(token)
	if !ok {
		return nil
	}
	userID, _, banned := s.live.State().Accounts().BanOfSession(hash, s.now())
	if !banned {
		return nil
	}
	return s.revokeSessions(ctx, userID, hash, false)
}

// keyRefusal refuses to mint a key for the user id when it is banned, or
// is an agent of a banned person, whoever asks (the user, its owner, an
// admin or the operator): unban first.
func (s *core) keyRefusal(v ctf.Viewer, id string) error {
	if !s.userBanned(id) {
		return nil
	}
	switch u, _ := s.userByID(id); {
	case v.ID() == id:
		return ctf.Errorf(ctf.Forbidden, "your account is banned: it mints no API keys")
	case u != nil && u.IsAgent() && v.ID() == u.OwnerID:
		return ctf.Errorf(ctf.Forbidden, "your account is banned: your agents get no API keys")
	case u != nil && u.IsAgent() && !u.Banned:
		return ctf.Errorf(ctf.Forbidden, "%s is an agent of a banned user: it gets no API keys until its owner is unbanned", u.Username)
	case u != nil:
		return ctf.Errorf(ctf.Forbidden, "%s is banned: it gets no API keys until it is unbanned", u.Username)
	}
	return ctf.Errorf(ctf.Forbidden, "the account is banned: it gets no API keys")
}
