package platform

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// The admin use cases: open to admins and to the operator's CLI, each
// recorded in the audit log in the same transaction as its change.

// audit returns the audit entry of an admin action.
func (s *core) audit(v Viewer, action, target string, detail map[string]any) *ctf.AuditEntry {
	a := &ctf.AuditEntry{Actor: "operator", Action: action, Target: target, At: ctf.Millis(s.now())}
	if v.User != nil {
		a.ActorID, a.Actor = v.User.ID, v.User.Username
	}
	if len(detail) > 0 {
		b, _ := json.Marshal(detail)
		a.Detail = string(b)
	}
	return a
}

// AuditLog returns up to limit entries of the audit log, newest first,
// older than before (0: the newest).
func (s *Admin) AuditLog(ctx context.Context, v Viewer, before int64, limit int) ([]ctf.AuditEntry, error) {
	if !v.admin() {
		return nil, errNotAdmin
	}
	if limit <= 0 || limit > 500 {
		limit = 100
	}
	return s.db.AuditLog(ctx, before, limit)
}

// UserView is an account as admins and the operator see it.
type UserView struct {
	ID, Username, Name, Email string
	Role                      ctf.Role
	Banned, TwoFactor         bool
	CreatedAt                 string
}

// Users lists the accounts whose username, name or email contains query
// (all for ""), oldest first.
func (s *Admin) Users(ctx context.Context, v Viewer, query string) ([]UserView, error) {
	if !v.admin() {
		return nil, errNotAdmin
	}
	q := strings.ToLower(strings.TrimSpace(query))
	st := s.state()
	st.mu.RLock()
	out := []UserView{}
	for _, u := range st.users {
		if q == "" || strings.Contains(strings.ToLower(u.Username), q) || strings.Contains(strings.ToLower(u.Name), q) ||
			strings.Contains(strings.ToLower(u.Email), q) {
			out = append(out, UserView{ID: u.ID, Username: u.Username, Name: u.Name, Email: u.Email, Role: u.Role,
				Banned: u.Banned, TwoFactor: u.TwoFactor, CreatedAt: ctf.FormatTime(u.CreatedAt)})
		}
	}
	st.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].CreatedAt != out[j].CreatedAt {
			return out[i].CreatedAt < out[j].CreatedAt
		}
		return out[i].Username < out[j].Username
	})
	return out, nil
}

// UserByName returns the account with that username, for admins and the
// operator.
func (s *Admin) UserByName(ctx context.Context, v Viewer, username string) (UserView, error) {
	if !v.admin() {
		return UserView{}, errNotAdmin
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	u := st.byName[username]
	if u == nil {
		return UserView{}, ctf.Errorf(ctf.NotFound, "no user %q", username)
	}
	return UserView{ID: u.ID, Username: u.Username, Name: u.Name, Email: u.Email, Role: u.Role, Banned: u.Banned,
		TwoFactor: u.TwoFactor, CreatedAt: ctf.FormatTime(u.CreatedAt)}, nil
}

// SetBanned bans or unbans a user: a banned user's solves, attempts and
// reviews leave every public aggregate, and they cannot submit.
func (s *Admin) SetBanned(ctx context.Context, v Viewer, userID string, banned bool) (ctf.User, error) {
	u, err := s.adminOnOther(v, userID, "ban or unban")
	if err != nil {
		return ctf.User{}, err
	}
	action := "user.unban"
	if banned {
		action = "user.ban"
	}
	return s.accounts.updateUser(ctx, u.ID, store.UserUpdate{Banned: &banned}, s.audit(v, action, u.Username, nil))
}

// SetRole promotes a user to admin or demotes them to player.
func (s *Admin) SetRole(ctx context.Context, v Viewer, userID string, role ctf.Role) (ctf.User, error) {
	if err := ctf.ValidateRole(role); err != nil {
		return ctf.User{}, err
	}
	u, err := s.adminOnOther(v, userID, "change the role of")
	if err != nil {
		return ctf.User{}, err
	}
	return s.accounts.updateUser(ctx, u.ID, store.UserUpdate{Role: &role}, s.audit(v, "user.role", u.Username, map[string]any{"role": role}))
}

// adminOnOther checks that v is an admin acting on another account (an
// admin who banned or demoted themselves would lock the event's admins
// out) and returns that account.
func (s *core) adminOnOther(v Viewer, userID, what string) (*ctf.User, error) {
	if !v.admin() {
		return nil, errNotAdmin
	}
	if v.User != nil && v.User.ID == userID {
		return nil, ctf.Errorf(ctf.Forbidden, "you cannot %s yourself; ask another admin", what)
	}
	u, ok := s.userByID(userID)
	if !ok {
		return nil, ctf.Errorf(ctf.NotFound, "no such user")
	}
	return u, nil
}

// ModerationQueue lists the writeups awaiting moderation, oldest first.
func (s *Content) ModerationQueue(ctx context.Context, v Viewer) ([]WriteupView, error) {
	if !v.admin() {
		return nil, errNotAdmin
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	var pending []*writeup
	for _, w := range st.writeups {
		if w.Status == ctf.WriteupPending {
			pending = append(pending, w)
		}
	}
	sort.Slice(pending, func(i, j int) bool {
		if !pending[i].UpdatedAt.Equal(pending[j].UpdatedAt) {
			return pending[i].UpdatedAt.Before(pending[j].UpdatedAt)
		}
		return pending[i].ID < pending[j].ID
	})
	out := make([]WriteupView, 0, len(pending))
	for _, w := range pending {
		out = append(out, st.writeupView(w))
	}
	return out, nil
}

// MaxReasonChars bounds a rejection's reason.
const MaxReasonChars = 500

// ModerateWriteup approves or rejects a writeup; a rejection may say why,
// and its author sees it.
func (s *Content) ModerateWriteup(ctx context.Context, v Viewer, writeupID string, approve bool, reason string) (WriteupView, error) {
	if !v.admin() {
		return WriteupView{}, errNotAdmin
	}
	status, reason := ctf.WriteupApproved, strings.TrimSpace(reason)
	if !approve {
		status = ctf.WriteupRejected
	}
	if len([]rune(reason)) > MaxReasonChars {
		return WriteupView{}, ctf.FieldErrorf("reason", "must be at most %d characters", MaxReasonChars)
	}
	if approve {
		reason = ""
	}
	s.gate.RLock()
	defer s.gate.RUnlock()
	w, seqs, err := s.db.ModerateWriteup(ctx, writeupID, status, reason,
		s.audit(v, "writeup."+map[bool]string{true: "approve", false: "reject"}[approve], writeupID, map[string]any{"reason": reason}))
	if err != nil {
		return WriteupView{}, err
	}
	return s.applyWriteup(seqs, w), nil
}

// ChallengeInput is every field of a challenge an admin sets, as the
// dataset format has them.
type ChallengeInput struct {
	ID                       string // "" creates a challenge
	Slug                     string // "" derives one from the title
	Title, Description, Type string
	Categories               []string
	Difficulty               ctf.Difficulty
	Points                   int
	Flags                    []ctf.Flag // Kind, Content, CaseInsensitive
	Requires                 []string   // prerequisite slugs
	Author                   string     // a username, "" for none
	File                     *FileInput // nil keeps the current file
	RemoveFile               bool
	HasInstance, Hidden      bool
	DockerPort               *int
	Tags                     []string
	ConnectionInfo           string
	// ReleaseAt, when set, keeps the challenge pending until then.
	ReleaseAt *time.Time
}

// FileInput is a challenge's handout: uploaded bytes, or a link.
type FileInput struct {
	Name string
	Data []byte
	URL  string
}

// DefaultMaxFileBytes bounds an uploaded handout unless Options say.
const DefaultMaxFileBytes = 64 << 20

// SaveChallenge creates or edits a challenge with every rule the dataset
// format has (flags that compile and stay anchored, prerequisites that
// exist and make no cycle, a unique slug) and applies it to the hot
// state of every replica without a rebuild.
func (s *Content) SaveChallenge(ctx context.Context, v Viewer, in ChallengeInput) (ctf.Challenge, error) {
	if !v.admin() {
		return ctf.Challenge{}, errNotAdmin
	}
	c, file, err := s.checkChallenge(in)
	if err != nil {
		return ctf.Challenge{}, err
	}
	action := "challenge.update"
	if in.ID == "" {
		action = "challenge.create"
	}
	s.gate.RLock()
	defer s.gate.RUnlock()
	seqs, err := s.db.PutChallenge(ctx, c, file, s.audit(v, action, c.Slug, map[string]any{"points": c.Points, "hidden": c.Hidden}))
	if err != nil {
		return ctf.Challenge{}, err
	}
	s.applyOwn(seqs, func(st *state, dirty dirtySet) { st.putChallenge(c, dirty) })
	return c, nil
}

// SetChallengeHidden hides or shows a challenge.
func (s *Content) SetChallengeHidden(ctx context.Context, v Viewer, slug string, hidden bool) (ctf.Challenge, error) {
	in, err := s.ChallengeForEdit(ctx, v, slug)
	if err != nil {
		return ctf.Challenge{}, err
	}
	in.Hidden = hidden
	return s.SaveChallenge(ctx, v, in)
}

// ChallengeForEdit returns a challenge, hidden or not, as SaveChallenge
// takes it.
func (s *Content) ChallengeForEdit(ctx context.Context, v Viewer, slug string) (ChallengeInput, error) {
	if !v.admin() {
		return ChallengeInput{}, errNotAdmin
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	c := st.bySlug[slug]
	if c == nil {
		return ChallengeInput{}, ErrNoChallenge
	}
	in := ChallengeInput{ID: c.ID, Slug: c.Slug, Title: c.Title, Description: c.Description, Type: c.Type,
		Categories: append([]string(nil), c.Categories...), Difficulty: c.Difficulty, Points: c.Points,
		HasInstance: c.HasInstance, Hidden: c.Hidden, DockerPort: c.DockerPort, Tags: append([]string(nil), c.Tags...),
		ConnectionInfo: c.ConnectionInfo, ReleaseAt: c.ReleaseAt}
	for _, f := range c.Flags {
		in.Flags = append(in.Flags, ctf.Flag{Kind: f.Kind, Content: f.Content, CaseInsensitive: f.CaseInsensitive})
	}
	for _, id := range c.Requires {
		if p := st.chals[id]; p != nil {
			in.Requires = append(in.Requires, p.Slug)
		}
	}
	if c.creator != nil {
		in.Author = c.creator.Username
	}
	return in, nil
}

// checkChallenge validates in against the rules and the hot state, and
// returns the challenge to store (flags compiled) and the file's bytes.
func (s *core) checkChallenge(in ChallengeInput) (ctf.Challenge, []byte, error) {
	c := ctf.Challenge{ID: in.ID, Slug: strings.TrimSpace(in.Slug), Title: strings.TrimSpace(in.Title), Description: in.Description,
		Difficulty: in.Difficulty, Points: in.Points, Type: strings.TrimSpace(in.Type), HasInstance: in.HasInstance,
		DockerPort: in.DockerPort, Hidden: in.Hidden, Tags: in.Tags, ConnectionInfo: strings.TrimSpace(in.ConnectionInfo)}
	if in.ReleaseAt != nil {
		at := ctf.Millis(*in.ReleaseAt)
		c.ReleaseAt = &at
	}
	if c.Title == "" {
		return c, nil, ctf.FieldErrorf("title", "is required")
	}
	if c.Slug == "" {
		c.Slug = dataset.Slugify(c.Title)
	}
	if err := ctf.ValidateSlug(c.Slug); err != nil {
		return c, nil, err
	}
	if c.Type == "" {
		c.Type = "standard"
	}
	if c.Tags == nil {
		c.Tags = []string{}
	}
	for _, cat := range in.Categories {
		if cat = strings.TrimSpace(cat); cat != "" && !hasString(c.Categories, cat) {
			c.Categories = append(c.Categories, cat)
		}
	}
	for _, err := range []error{ctf.ValidateDescription(c.Description), ctf.ValidateCategories(c.Categories), ctf.ValidateDifficulty(c.Difficulty),
		ctf.ValidatePoints(c.Points), ctf.ValidateDockerPort(c.DockerPort)} {
		if err != nil {
			return c, nil, err
		}
	}
	if len(in.Flags) == 0 {
		return c, nil, ctf.FieldErrorf("flags", "needs at least one flag")
	}
	for i, f := range in.Flags {
		f := ctf.Flag{Kind: f.Kind, Content: f.Content, CaseInsensitive: f.CaseInsensitive}
		if err := f.Compile(); err != nil {
			return c, nil, ctf.FieldErrorf(fmt.Sprintf("flags[%d]", i), "%s", ctf.ErrorMessage(err))
		}
		c.Flags = append(c.Flags, f)
	}

	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	var old *chal
	if c.ID != "" {
		if old = st.chals[c.ID]; old == nil {
			return c, nil, ErrNoChallenge
		}
		c.CreatedAt = old.CreatedAt
		c.FileName, c.FileSHA256, c.FileURL = old.FileName, old.FileSHA256, old.FileURL
	} else {
		c.ID, c.CreatedAt = ctf.NewID(), ctf.Millis(s.now())
	}
	if other := st.bySlug[c.Slug]; other != nil && other.ID != c.ID {
		return c, nil, ctf.Errorf(ctf.Conflict, "another challenge has the slug %q", c.Slug)
	}
	if in.Author != "" {
		u := st.byName[in.Author]
		if u == nil {
			return c, nil, ctf.FieldErrorf("author", "names no user: %q", in.Author)
		}
		c.AuthorID = u.ID
	}
	for _, slug := range in.Requires {
		p := st.bySlug[strings.TrimSpace(slug)]
		if p == nil {
			return c, nil, ctf.FieldErrorf("requires", "names no challenge: %q", slug)
		}
		if p.ID == c.ID {
			return c, nil, ctf.FieldErrorf("requires", "cannot name the challenge itself")
		}
		if !hasString(c.Requires, p.ID) {
			c.Requires = append(c.Requires, p.ID)
		}
	}
	if path := st.requiresPath(c.ID, c.Requires); path != nil {
		return c, nil, ctf.FieldErrorf("requires", "would make a cycle: %s", strings.Join(path, " -> "))
	}
	var data []byte
	switch f := in.File; {
	case in.RemoveFile:
		c.FileName, c.FileSHA256, c.FileURL = "", "", ""
	case f != nil:
		name := strings.TrimSpace(f.Name)
		if err := ctf.ValidateFileName(name); err != nil {
			return c, nil, err
		}
		c.FileName = name
		if f.URL != "" {
			if err := ctf.ValidateWebURL("file.url", f.URL); err != nil {
				return c, nil, err
			}
			c.FileURL, c.FileSHA256 = f.URL, ""
			break
		}
		if max := s.maxFileBytes(); len(f.Data) > max {
			return c, nil, ctf.FieldErrorf("file", "is larger than the %d MiB allowed", max>>20)
		}
		sum := sha256.Sum256(f.Data)
		c.FileSHA256, c.FileURL, data = hex.EncodeToString(sum[:]), "", f.Data
	}
	return c, data, nil
}

func (s *core) maxFileBytes() int {
	if s.opts.MaxFileBytes > 0 {
		return s.opts.MaxFileBytes
	}
	return DefaultMaxFileBytes
}

// requiresPath returns a cycle that giving id the prerequisites reqs would
// make (slugs, from id back to id), or nil.
func (st *state) requiresPath(id string, reqs []string) []string {
	edges := func(x string) []string {
		if x == id {
			return reqs
		}
		if c := st.chals[x]; c != nil {
			return c.Requires
		}
		return nil
	}
	seen := map[string]bool{}
	var path []string
	var visit func(x string) bool
	visit = func(x string) bool {
		for _, y := range edges(x) {
			if y == id {
				path = append(path, x)
				return true
			}
			if !seen[y] {
				seen[y] = true
				if visit(y) {
					path = append(path, x)
					return true
				}
			}
		}
		return false
	}
	if !visit(id) {
		return nil
	}
	out := []string{}
	slug := func(x string) string {
		if c := st.chals[x]; c != nil {
			return c.Slug
		}
		return x
	}
	for i := len(path) - 1; i >= 0; i-- {
		out = append(out, slug(path[i]))
	}
	return append(out, slug(id))
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ImportReport is what a load did, and what the operator should know of
// what it loaded.
type ImportReport struct {
	transfer.LoadReport
	// Warnings name the entries that loaded but will not work as they
	// are, with the file, entry and field, e.g. a webhook on a private
	// host while this service refuses those.
	Warnings []string `json:"warnings,omitempty"`
}

// Import loads a dataset (flagship load): a bulk change, after which every
// replica rebuilds its state once.
func (s *Admin) Import(ctx context.Context, v Viewer, ds *dataset.Dataset) (ImportReport, error) {
	if !v.admin() {
		return ImportReport{}, errNotAdmin
	}
	lr, err := transfer.Load(ctx, s.db, ds)
	rep := ImportReport{LoadReport: lr}
	if err != nil {
		return rep, err
	}
	detail := map[string]any{"created": rep.Created, "updated": rep.Updated}
	if err := s.db.AddAudit(ctx, *s.audit(v, "event.load", fmt.Sprintf("%d challenges, %d users", len(ds.Challenges), len(ds.Users)), detail)); err != nil {
		return rep, err
	}
	if s.state() != nil {
		if err := s.load(ctx); err != nil {
			return rep, err
		}
	}
	rep.Warnings = s.webhookWarnings(ds)
	return rep, nil
}

// webhookWarnings names the dataset's webhooks whose URL the admin form
// would refuse as naming a private host. They load (a file restores what
// an operator had, perhaps on a server that allows them), but unless the
// server allows private targets every delivery to them will be refused.
func (s *core) webhookWarnings(ds *dataset.Dataset) []string {
	if s.opts.WebhooksAllowPrivate {
		return nil
	}
	var out []string
	for i, w := range ds.Webhooks {
		if err := checkTargetURL(w.URL); err != nil {
			out = append(out, ds.Errorf("webhooks", i, "url", "names a private host (loopback, private, link-local or localhost): "+
				"its deliveries will be refused unless serve runs with --webhooks-allow-private").Error())
		}
	}
	return out
}

// Export reads the whole platform as one dataset (flagship dump).
func (s *Admin) Export(ctx context.Context, v Viewer) (*dataset.Dataset, error) {
	if !v.admin() {
		return nil, errNotAdmin
	}
	s.flushTouches(ctx)
	return transfer.Dump(ctx, s.db)
}

// Overview is the event at a glance, for its organisers.
type Overview struct {
	Players, Ranked, Solves int
	Attempts                int64
	SolvesPerHour           []HourCount // the last 48 hours with a solve, oldest first
	Challenges              []ChallengeCount
	FirstBloods             []FirstBlood // newest first
}

// HourCount is how many solves an hour saw.
type HourCount struct {
	Hour  time.Time
	Count int
}

// ChallengeCount is a challenge's solves and attempts.
type ChallengeCount struct {
	Slug, Title string
	Solves      int
	Attempts    int64
	Hidden      bool
	// Pending: not open to players yet (before the start or its release,
	// ReleaseAt when set).
	Pending   bool
	ReleaseAt *time.Time
}

// FirstBlood is a challenge's first solve by a player.
type FirstBlood struct {
	Slug, Title, UserID, Username string
	At                            time.Time
}

// Overview returns the event at a glance: counts, solves per hour, the
// challenges by solves (most solved first) and the latest first bloods.
func (s *Admin) Overview(ctx context.Context, v Viewer) (Overview, error) {
	if !v.admin() {
		return Overview{}, errNotAdmin
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	var o Overview
	perHour := map[time.Time]int{}
	for _, u := range st.users {
		if u.player {
			o.Players++
			if len(u.solves) > 0 {
				o.Ranked++
			}
		}
	}
	for _, c := range st.visible {
		o.Challenges = append(o.Challenges, ChallengeCount{Slug: c.Slug, Title: c.Title, Solves: len(c.playerSolves), Attempts: c.attempts()})
		o.Solves += len(c.playerSolves)
		o.Attempts += c.attempts()
		for _, x := range c.playerSolves {
			perHour[x.At.UTC().Truncate(time.Hour)]++
		}
		if len(c.playerSolves) > 0 {
			x := c.playerSolves[0]
			o.FirstBloods = append(o.FirstBloods, FirstBlood{Slug: c.Slug, Title: c.Title, UserID: x.user.ID, Username: x.user.Username, At: x.At})
		}
	}
	for h, n := range perHour {
		o.SolvesPerHour = append(o.SolvesPerHour, HourCount{Hour: h, Count: n})
	}
	sort.Slice(o.SolvesPerHour, func(i, j int) bool { return o.SolvesPerHour[i].Hour.Before(o.SolvesPerHour[j].Hour) })
	if n := len(o.SolvesPerHour); n > 48 {
		o.SolvesPerHour = o.SolvesPerHour[n-48:]
	}
	sort.SliceStable(o.Challenges, func(i, j int) bool { return o.Challenges[i].Solves > o.Challenges[j].Solves })
	sort.Slice(o.FirstBloods, func(i, j int) bool { return o.FirstBloods[i].At.After(o.FirstBloods[j].At) })
	if len(o.FirstBloods) > 10 {
		o.FirstBloods = o.FirstBloods[:10]
	}
	return o, nil
}

// AdminChallenges lists every challenge, pending and hidden ones included,
// in list order (pending, then hidden, last): an organiser sets up the
// event before it opens.
func (s *Content) AdminChallenges(ctx context.Context, v Viewer) ([]ChallengeCount, error) {
	if !v.admin() {
		return nil, errNotAdmin
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	out := []ChallengeCount{}
	for _, c := range st.visible {
		out = append(out, ChallengeCount{Slug: c.Slug, Title: c.Title, Solves: len(c.playerSolves), Attempts: c.attempts(), ReleaseAt: c.ReleaseAt})
	}
	var pending, hidden []ChallengeCount
	for _, c := range st.chals {
		switch {
		case c.Hidden:
			hidden = append(hidden, ChallengeCount{Slug: c.Slug, Title: c.Title, Hidden: true, Attempts: c.wrong, ReleaseAt: c.ReleaseAt})
		case c.pending:
			pending = append(pending, ChallengeCount{Slug: c.Slug, Title: c.Title, Pending: true, Attempts: c.wrong, ReleaseAt: c.ReleaseAt})
		}
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i].Slug < pending[j].Slug })
	sort.Slice(hidden, func(i, j int) bool { return hidden[i].Slug < hidden[j].Slug })
	return append(append(out, pending...), hidden...), nil
}
