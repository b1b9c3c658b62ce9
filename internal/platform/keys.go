package platform

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
	"github.com/flagshipctf/flagship/internal/secret"
)

// NewAPIKey is a key to mint.
type NewAPIKey struct {
	// Owner is the user id of the key's owner: "" for the caller, or one
	// of the caller's agents. Only admins and the operator mint keys for
	// anyone else.
	Owner    string
	Name     string
	ReadOnly bool // reads everything its user may read; cannot submit
}

// MaxKeyNameChars bounds a key's name.
const MaxKeyNameChars = 64

// Create mints a key and returns its metadata and its secret, which
// is shown this once and never stored. A user holds at most
// ctf.MaxActiveAPIKeys unrevoked keys.
func (s *Keys) Create(ctx context.Context, v ctf.Viewer, in NewAPIKey) (live.APIKeyView, string, error) {
	owner, audit, err := s.keyOwner(v, in.Owner, "apikey.create")
	if err != nil {
		return live.APIKeyView{}, "", err
	}
	if err := s.keyRefusal(v, owner); err != nil {
		return live.APIKeyView{}, "", err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" || utf8.RuneCountInString(name) > MaxKeyNameChars || ctf.ValidateDisplayName(name) != nil {
		return live.APIKeyView{}, "", ctf.FieldErrorf("name", "must be 1 to %d characters of printable text", MaxKeyNameChars)
	}
	key, prefix, hash := secret.NewAPIKey()
	k := ctf.APIKey{ID: ctf.NewID(), UserID: owner, Name: name, Prefix: prefix, Hash: hash, CreatedAt: ctf.Millis(s.now()), ReadOnly: in.ReadOnly}
	defer s.live.Write()()
	seqs, err := s.db.CreateAPIKey(ctx, k, audit)
	if err != nil {
		return live.APIKeyView{}, "", err
	}
	return s.applyKey(seqs, k), key, nil
}

// List lists a user's keys (owner "" for the caller), oldest first,
// revoked ones included.
func (s *Keys) List(ctx context.Context, v ctf.Viewer, owner string) ([]live.APIKeyView, error) {
	owner, _, err := s.keyOwner(v, owner, "")
	if err != nil {
		return nil, err
	}
	out, ok := s.live.State().Accounts().KeysOf(owner)
	if !ok {
		return nil, ctf.Errorf(ctf.NotFound, "no such user")
	}
	return out, nil
}

// Revoke revokes a user's key (owner "" for the caller): this
// process refuses it at once, every other as soon as it has read the
// change. An unknown key is NotFound.
func (s *Keys) Revoke(ctx context.Context, v ctf.Viewer, owner, keyID string) (live.APIKeyView, error) {
	owner, audit, err := s.keyOwner(v, owner, "apikey.revoke")
	if err != nil {
		return live.APIKeyView{}, err
	}
	defer s.live.Write()()
	k, seqs, err := s.db.RevokeAPIKey(ctx, owner, keyID, s.now(), audit)
	if err != nil {
		return live.APIKeyView{}, err
	}
	return s.applyKey(seqs, k), nil
}

// applyKey applies this process's write of k and returns its view.
func (s *core) applyKey(seqs []int64, k ctf.APIKey) (view live.APIKeyView) {
	s.live.Apply(seqs, func(tx *live.Tx) { view = tx.PutKey(k) })
	return view
}

// keyOwner resolves whose keys a call is about, and the audit entry when an
// admin acts on another user's keys (action "" for a read).
func (s *core) keyOwner(v ctf.Viewer, owner, action string) (string, *ctf.AuditEntry, error) {
	if owner == "" || (v.User != nil && owner == v.User.ID) {
		if v.User == nil {
			return "", nil, ctf.ErrAuthRequired
		}
		return v.User.ID, nil, nil
	}
	u, ok := s.userByID(owner)
	if ok && v.User != nil && u.IsAgent() && u.OwnerID == v.User.ID {
		return u.ID, nil, nil // a person's own agent
	}
	if !v.IsAdmin() {
		return "", nil, ctf.ErrNotAdmin
	}
	if !ok {
		return "", nil, ctf.Errorf(ctf.NotFound, "no such user")
	}
	if action == "" {
		return u.ID, nil, nil
	}
	return u.ID, s.audit(v, action, u.Username, nil), nil
}
