package platform

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/flagshipctf/flagship/internal/ctf"
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
func (s *Keys) Create(ctx context.Context, v Viewer, in NewAPIKey) (APIKeyView, string, error) {
	owner, audit, err := s.keyOwner(v, in.Owner, "apikey.create")
	if err != nil {
		return APIKeyView{}, "", err
	}
	if err := s.keyRefusal(v, owner); err != nil {
		return APIKeyView{}, "", err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" || utf8.RuneCountInString(name) > MaxKeyNameChars || ctf.ValidateDisplayName(name) != nil {
		return APIKeyView{}, "", ctf.FieldErrorf("name", "must be 1 to %d characters of printable text", MaxKeyNameChars)
	}
	key, prefix, hash := secret.NewAPIKey()
	k := ctf.APIKey{ID: ctf.NewID(), UserID: owner, Name: name, Prefix: prefix, Hash: hash, CreatedAt: ctf.Millis(s.now()), ReadOnly: in.ReadOnly}
	s.gate.RLock()
	defer s.gate.RUnlock()
	seqs, err := s.db.CreateAPIKey(ctx, k, audit)
	if err != nil {
		return APIKeyView{}, "", err
	}
	return s.applyKey(seqs, k), key, nil
}

// List lists a user's keys (owner "" for the caller), oldest first,
// revoked ones included.
func (s *Keys) List(ctx context.Context, v Viewer, owner string) ([]APIKeyView, error) {
	owner, _, err := s.keyOwner(v, owner, "")
	if err != nil {
		return nil, err
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.users[owner]
	if u == nil {
		return nil, ctf.Errorf(ctf.NotFound, "no such user")
	}
	out := make([]APIKeyView, 0, len(u.keys))
	for _, k := range u.keys {
		out = append(out, keyView(k))
	}
	return out, nil
}

// Revoke revokes a user's key (owner "" for the caller): this
// process refuses it at once, every other as soon as it has read the
// change. An unknown key is NotFound.
func (s *Keys) Revoke(ctx context.Context, v Viewer, owner, keyID string) (APIKeyView, error) {
	owner, audit, err := s.keyOwner(v, owner, "apikey.revoke")
	if err != nil {
		return APIKeyView{}, err
	}
	s.gate.RLock()
	defer s.gate.RUnlock()
	k, seqs, err := s.db.RevokeAPIKey(ctx, owner, keyID, s.now(), audit)
	if err != nil {
		return APIKeyView{}, err
	}
	return s.applyKey(seqs, k), nil
}

// applyKey applies this process's write of k and returns its view.
func (s *core) applyKey(seqs []int64, k ctf.APIKey) (view APIKeyView) {
	s.applyOwn(seqs, func(st *state, _ dirtySet) {
		st.putKey(k)
		if x := st.keyByID[k.ID]; x != nil {
			view = keyView(x)
		}
	})
	return view
}

// keyOwner resolves whose keys a call is about, and the audit entry when an
// admin acts on another user's keys (action "" for a read).
func (s *core) keyOwner(v Viewer, owner, action string) (string, *ctf.AuditEntry, error) {
	if owner == "" || (v.User != nil && owner == v.User.ID) {
		if v.User == nil {
			return "", nil, errAuthRequired
		}
		return v.User.ID, nil, nil
	}
	u, ok := s.userByID(owner)
	if ok && v.User != nil && u.IsAgent() && u.OwnerID == v.User.ID {
		return u.ID, nil, nil // a person's own agent
	}
	if !v.admin() {
		return "", nil, errNotAdmin
	}
	if !ok {
		return "", nil, ctf.Errorf(ctf.NotFound, "no such user")
	}
	if action == "" {
		return u.ID, nil, nil
	}
	return u.ID, s.audit(v, action, u.Username, nil), nil
}
