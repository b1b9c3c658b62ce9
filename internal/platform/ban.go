package platform

import "github.com/flagshipctf/flagship/internal/ctf"

// userBanned reports whether the user id is banned, by its own ban or,
// for an agent, its owner's; an unknown id is not.
func (s *core) userBanned(id string) bool { return s.live.State().Accounts().Banned(id) }

// errBannedLogin answers a banned user's log-in, given only once the
// password (and second factor) were right: a wrong password reads as any
// wrong password.
var errBannedLogin = ctf.Errorf(ctf.Forbidden, "your account is banned; ask the organisers if you think this is a mistake")

// loginRefusal refuses a session to a user whose credentials were right.
func (s *core) loginRefusal(u *ctf.User) error {
	if s.userBanned(u.ID) {
		return errBannedLogin
	}
	return nil
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
