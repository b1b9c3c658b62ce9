package platform

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
)

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

// AdminList returns, for an admin while challenges are pending (before the
// start, before their release), the challenge list as they see it: every
// challenge that is not hidden, in list order. ok is false for everyone
// else, and when nothing is pending: their list is the public one.
func (s *Content) AdminList(v Viewer) (list []ChallengeSummary, ok bool) {
	if !v.admin() {
		return nil, false
	}
	st := s.state()
	st.mu.RLock()
	defer st.mu.RUnlock()
	chals := st.listFor(v)
	if len(chals) == len(st.visible) {
		return nil, false
	}
	u := st.users[v.ID()]
	for _, c := range chals {
		list = append(list, c.summary(u != nil && u.solved[c.ID] != nil, st.publicURL))
	}
	return list, true
}
