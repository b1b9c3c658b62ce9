package platform

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/live"
)

// ModerateWriteup approves or rejects a writeup; a rejection may say why,
// and its author sees it.
func (s *Content) ModerateWriteup(ctx context.Context, v ctf.Viewer, writeupID string, approve bool, reason string) (live.WriteupView, error) {
	if !v.IsAdmin() {
		return live.WriteupView{}, ctf.ErrNotAdmin
	}
	status, reason := ctf.WriteupApproved, strings.TrimSpace(reason)
	if !approve {
		status = ctf.WriteupRejected
	}
	if err := ctf.ValidateReason("reason", reason); err != nil {
		return live.WriteupView{}, err
	}
	if approve {
		reason = ""
	}
	defer s.live.Write()()
	w, seqs, err := s.db.ModerateWriteup(ctx, writeupID, status, reason,
		s.audit(v, "writeup."+map[bool]string{true: "approve", false: "reject"}[approve], writeupID, map[string]any{"reason": reason}))
	if err != nil {
		return live.WriteupView{}, err
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
	// Instance, when set, is how the challenge's per-player instances run
	// (HasInstance and DockerPort then follow it).
	Instance       *ctf.InstanceSpec
	Tags           []string
	ConnectionInfo string
	// FlagFormat is the flag's shape as players are told it; empty:
	// derived from the flags.
	FlagFormat string
	// ReleaseAt, when set, keeps the challenge pending until then.
	ReleaseAt *time.Time
	// Scoring is static (the zero value: Points) or dynamic (Points then
	// follows its initial value); Hints are the challenge's hints.
	Scoring ctf.Scoring
	Hints   []ctf.Hint
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
func (s *Content) SaveChallenge(ctx context.Context, v ctf.Viewer, in ChallengeInput) (ctf.Challenge, error) {
	if !v.IsAdmin() {
		return ctf.Challenge{}, ctf.ErrNotAdmin
	}
	c, file, err := s.checkChallenge(in)
	if err != nil {
		return ctf.Challenge{}, err
	}
	action := "challenge.update"
	if in.ID == "" {
		action = "challenge.create"
	}
	defer s.live.Write()()
	seqs, err := s.db.PutChallenge(ctx, c, file, s.audit(v, action, c.Slug, map[string]any{"points": c.Points, "hidden": c.Hidden}))
	if err != nil {
		return ctf.Challenge{}, err
	}
	s.live.Apply(seqs, func(tx *live.Tx) { tx.PutChallenge(c) })
	return c, nil
}

// SetChallengeHidden hides or shows a challenge.
func (s *Content) SetChallengeHidden(ctx context.Context, v ctf.Viewer, slug string, hidden bool) (ctf.Challenge, error) {
	in, err := s.ChallengeForEdit(ctx, v, slug)
	if err != nil {
		return ctf.Challenge{}, err
	}
	in.Hidden = hidden
	return s.SaveChallenge(ctx, v, in)
}

// ChallengeForEdit returns a challenge, hidden or not, as SaveChallenge
// takes it.
func (s *Content) ChallengeForEdit(ctx context.Context, v ctf.Viewer, slug string) (ChallengeInput, error) {
	if !v.IsAdmin() {
		return ChallengeInput{}, ctf.ErrNotAdmin
	}
	c, requires, author, ok := s.live.State().ChallengeForEdit(slug)
	if !ok {
		return ChallengeInput{}, ctf.ErrNoChallenge
	}
	in := ChallengeInput{ID: c.ID, Slug: c.Slug, Title: c.Title, Description: c.Description, Type: c.Type,
		Categories: append([]string(nil), c.Categories...), Difficulty: c.Difficulty, Points: c.Points,
		HasInstance: c.HasInstance, Hidden: c.Hidden, DockerPort: c.DockerPort, Tags: append([]string(nil), c.Tags...),
		ConnectionInfo: c.ConnectionInfo, FlagFormat: c.FlagFormat, ReleaseAt: c.ReleaseAt, Instance: c.Instance,
		Scoring: c.Scoring, Hints: append([]ctf.Hint(nil), c.Hints...)}
	for _, f := range c.Flags {
		in.Flags = append(in.Flags, ctf.Flag{Kind: f.Kind, Content: f.Content, CaseInsensitive: f.CaseInsensitive})
	}
	in.Requires, in.Author = requires, author
	return in, nil
}

// checkChallenge validates in against the rules and the hot state, and
// returns the challenge to store (flags compiled) and the file's bytes.
func (s *core) checkChallenge(in ChallengeInput) (ctf.Challenge, []byte, error) {
	c := ctf.Challenge{ID: in.ID, Slug: strings.TrimSpace(in.Slug), Title: strings.TrimSpace(in.Title), Description: in.Description,
		Difficulty: in.Difficulty, Points: in.Points, Type: strings.TrimSpace(in.Type), HasInstance: in.HasInstance,
		DockerPort: in.DockerPort, Hidden: in.Hidden, Tags: in.Tags, ConnectionInfo: strings.TrimSpace(in.ConnectionInfo),
		FlagFormat: strings.TrimSpace(in.FlagFormat), Scoring: in.Scoring, Hints: in.Hints}
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
	if in.Instance != nil {
		spec := in.Instance.WithDefaults()
		if err := ctf.ValidateInstance(spec); err != nil {
			return c, nil, err
		}
		if c.DockerPort != nil && *c.DockerPort != spec.Port {
			return c, nil, ctf.FieldErrorf("dockerPort", "must be the instance's port (%d) or left out", spec.Port)
		}
		port := spec.Port
		c.Instance, c.HasInstance, c.DockerPort = &spec, true, &port
	}
	for _, err := range []error{ctf.ValidateDescription(c.Description), ctf.ValidateCategories(c.Categories), ctf.ValidateDifficulty(c.Difficulty),
		ctf.ValidatePoints(c.Points), ctf.ValidateDockerPort(c.DockerPort), ctf.ValidateFlagFormat(c.FlagFormat),
		ctf.NormalizeScoring(&c)} {
		if err != nil {
			return c, nil, err
		}
	}
	if len(in.Flags) == 0 && !c.PerPlayer() {
		return c, nil, ctf.FieldErrorf("flags", "needs at least one flag (or a per-player instance)")
	}
	for i, f := range in.Flags {
		f := ctf.Flag{Kind: f.Kind, Content: f.Content, CaseInsensitive: f.CaseInsensitive}
		if err := f.Compile(); err != nil {
			return c, nil, ctf.FieldErrorf(fmt.Sprintf("flags[%d]", i), "%s", ctf.ErrorMessage(err))
		}
		c.Flags = append(c.Flags, f)
	}

	st := s.live.State()
	if c.ID != "" {
		old, ok := st.ChallengeByID(c.ID)
		if !ok {
			return c, nil, ctf.ErrNoChallenge
		}
		c.CreatedAt, c.Origin = old.CreatedAt, old.Origin
		c.FileName, c.FileSHA256, c.FileURL = old.FileName, old.FileSHA256, old.FileURL
	} else {
		c.ID, c.CreatedAt = ctf.NewID(), ctf.Millis(s.now())
	}
	if other, ok := st.ChallengeBySlug(c.Slug); ok && other.ID != c.ID {
		return c, nil, ctf.Errorf(ctf.Conflict, "another challenge has the slug %q", c.Slug)
	}
	if in.Author != "" {
		id, ok := st.Accounts().UserIDByName(in.Author)
		if !ok {
			return c, nil, ctf.FieldErrorf("author", "names no user: %q", in.Author)
		}
		c.AuthorID = id
	}
	for _, slug := range in.Requires {
		p, ok := st.ChallengeBySlug(strings.TrimSpace(slug))
		if !ok {
			return c, nil, ctf.FieldErrorf("requires", "names no challenge: %q", slug)
		}
		if p.ID == c.ID {
			return c, nil, ctf.FieldErrorf("requires", "cannot name the challenge itself")
		}
		if !hasString(c.Requires, p.ID) {
			c.Requires = append(c.Requires, p.ID)
		}
	}
	if path := st.RequiresPath(c.ID, c.Requires); path != nil {
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

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// AdminChallenges is live.State.AdminChallenges.
func (s *Content) AdminChallenges(ctx context.Context, v ctf.Viewer) ([]live.ChallengeCount, error) {
	return s.live.State().AdminChallenges(ctx, v)
}

// AdminList is live.State.AdminList.
func (s *Content) AdminList(v ctf.Viewer) (list []live.ChallengeSummary, ok bool) {
	return s.live.State().AdminList(v)
}

// ModerationQueue is live.State.ModerationQueue.
func (s *Content) ModerationQueue(ctx context.Context, v ctf.Viewer) ([]live.WriteupView, error) {
	return s.live.State().ModerationQueue(ctx, v)
}
