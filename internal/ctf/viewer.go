package ctf

// Viewer is the caller of a use case: nil User means anonymous.
type Viewer struct {
	User     *User
	KeyID    string // the API key that authenticated the call, if one did
	ReadOnly bool   // that key is read-only: no submissions
	// Session is the id hash of the web session that authenticated the
	// call, if one did (a password change keeps it, ending the others).
	Session string
	// Operator is the operator's CLI: an admin that is no account.
	Operator bool
	// Door is the front door the call came through (DoorAPI, DoorWeb,
	// DoorMCP), recorded with a submission: a key authenticates for the
	// API and a session for the web app until a front door says otherwise.
	Door Door
}

// Operator is the viewer of the operator's commands (flagship user, apikey,
// load): every admin use case is open to it, and the audit log names it.
var Operator = Viewer{Operator: true}

// ID returns the caller's user id, "" for anonymous.
func (v Viewer) ID() string {
	if v.User == nil {
		return ""
	}
	return v.User.ID
}

// IsAdmin reports whether v may use the admin use cases (an admin who is
// not banned, or the operator): front doors ask it to choose what to show.
func (v Viewer) IsAdmin() bool {
	return v.Operator || (v.User != nil && v.User.Role == RoleAdmin && !v.User.Banned)
}
