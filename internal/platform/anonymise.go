package platform

import (
	"context"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// AnonymisedName is the username an anonymised account takes: "anonymous-"
// and the start of its id, so it stays unique and says nothing of whom.
func AnonymisedName(userID string) string {
	return "anonymous-" + userID[:min(len(userID), 8)]
}

// AnonymiseUser takes the person out of an account, for an admin who
// types its username to confirm (confirm): the username becomes
// AnonymisedName, the name, email, avatar and password go, and its sessions
// and API keys end. Its solves stay, so the scoreboard and first bloods do
// not move; every replica applies it. An admin cannot anonymise
// themselves. Audited as user.anonymise, named by the new username.
func (s *Admin) AnonymiseUser(ctx context.Context, v ctf.Viewer, userID, confirm string) (ctf.User, error) {
	u, err := s.adminOnOther(v, userID, "anonymise")
	if err != nil {
		return ctf.User{}, err
	}
	if confirm != u.Username {
		return ctf.User{}, ctf.FieldErrorf("confirm", "type the account's username, %s, to confirm", u.Username)
	}
	name := AnonymisedName(u.ID)
	defer s.live.Write()()
	nu, keys, seqs, err := s.db.AnonymiseUser(ctx, u.ID, name, ctf.Millis(s.now()), s.audit(v, "user.anonymise", name, nil))
	if err != nil {
		return ctf.User{}, err
	}
	s.live.Apply(seqs, func(tx *live.Tx) {
		tx.PutUser(nu)
		tx.PutSessions(nu.ID, nil)
		for _, k := range keys {
			tx.PutKey(k)
		}
	})
	return nu, nil
}
