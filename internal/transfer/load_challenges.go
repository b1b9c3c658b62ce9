package transfer

// Challenges: their fields, flags, prerequisites and files.

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/store"
)

func (l *loader) loadChallenges() error {
	// First pass: every challenge row, so prerequisites can name any of them.
	existed := make([]bool, len(l.ds.Challenges))
	changed := make([]bool, len(l.ds.Challenges))
	refused := make([]bool, len(l.ds.Challenges))
	var bad []error
	for i, c := range l.ds.Challenges {
		var err error
		existed[i], changed[i], err = l.challenge(i, c)
		// A *dataset.Error itself is a challenge's own problem, found
		// before anything of it was written: the others are checked too,
		// so that one load names every bad challenge, and with
		// SkipInvalid the challenge is left out.
		if e, ok := err.(*dataset.Error); ok {
			if l.ds.SkipInvalid {
				r := dataset.RefusalOf(e.File, e.Entry, []error{e})
				r.Slug = c.Slug
				l.rep.Refused = append(l.rep.Refused, r)
				refused[i] = true
				continue
			}
			bad = append(bad, err)
			continue
		}
		if err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		return errors.Join(bad...)
	}
	for i, c := range l.ds.Challenges {
		if refused[i] {
			continue
		}
		id := l.chals[c.Slug]
		want := map[string]bool{}
		for _, req := range c.Requires {
			rid, err := l.challengeNamed("challenges", i, "requires", req)
			if err != nil {
				return err
			}
			if rid == id {
				return l.fail("challenges", i, "requires", "a challenge cannot require itself")
			}
			want[rid] = true
		}
		had, err := l.tx.Content().Prerequisites(id)
		if err != nil {
			return err
		}
		if !maps.Equal(had, want) {
			changed[i] = true
			if err := l.tx.Content().SetPrerequisites(id, want); err != nil {
				return fmt.Errorf("load prerequisites of %q: %w", c.Slug, err)
			}
		}
		l.rep.count("challenges", !existed[i], existed[i] && changed[i])
	}
	return nil
}

// challengeNamed resolves a challenge named by slug, or by title as ctfcli
// files name prerequisites, to an id; field of entry i of kind names it.
func (l *loader) challengeNamed(kind string, i int, field, req string) (string, error) {
	rid, err := l.chalID(req)
	if err != nil || rid != "" {
		return rid, err
	}
	ids, err := l.tx.Content().ChallengeIDsTitled(req)
	if err != nil {
		return "", err
	}
	switch len(ids) {
	case 0:
		return "", l.fail(kind, i, field, "no challenge %q in the dataset or the database", req)
	case 1:
		return ids[0], nil
	}
	return "", l.fail(kind, i, field, "%d challenges are titled %q; name one by its slug", len(ids), req)
}

func (l *loader) challenge(i int, c dataset.Challenge) (exists, changed bool, err error) {
	old, exists, err := l.tx.Content().Challenge(c.Slug)
	if err != nil {
		return false, false, err
	}
	nc := ctf.Challenge{ID: old.ID, Slug: c.Slug, Title: c.Title, Description: c.Description, Categories: c.Categories,
		Difficulty: c.Difficulty, Points: c.Points, Type: c.Type, Tags: c.Tags, ConnectionInfo: c.ConnectionInfo,
		HasInstance: c.HasInstance, DockerPort: c.DockerPort, Hidden: c.Hidden, FlagFormat: c.FlagFormat,
		Origin: c.Origin.Of(), Scoring: c.Scoring.Of(), Hints: dataset.DomainHints(c.Hints), CreatedAt: old.CreatedAt}
	if exists && !old.Origin.SameTask(nc.Origin) {
		// Two sources giving one slug are two challenges: replacing one
		// with the other would lose it, and its solves, silently.
		return exists, false, l.fail("challenges", i, "slug", "%q is already %s; this is %s: give one of them another slug",
			c.Slug, old.Origin, nc.Origin)
	}
	if !exists {
		nc.ID = c.ID
		if nc.ID == "" {
			nc.ID = ctf.NewID()
		}
		nc.CreatedAt = l.stamp(c.CreatedAt)
	} else if c.CreatedAt != nil {
		nc.CreatedAt = ctf.Millis(*c.CreatedAt)
	}
	if nc.Type == "" {
		nc.Type = "standard"
	}
	// Validate checked them; this is the same check for a dataset built
	// in code, and it makes a dynamic challenge's points its initial value.
	if err := ctf.NormalizeScoring(&nc); err != nil {
		field := ""
		var ce *ctf.Error
		if errors.As(err, &ce) {
			field = ce.Field
		}
		return exists, false, l.fail("challenges", i, field, "%s", strings.TrimPrefix(ctf.ErrorMessage(err), field+" "))
	}
	if c.Instance != nil {
		spec, err := c.Instance.Spec()
		if err != nil {
			// Validate refused it already; this is the same check.
			return exists, false, l.fail("challenges", i, "instance", "%s", ctf.ErrorMessage(err))
		}
		port := spec.Port
		nc.Instance, nc.HasInstance, nc.DockerPort = &spec, true, &port
	}
	if c.ReleaseAt != nil {
		r := ctf.Millis(*c.ReleaseAt)
		nc.ReleaseAt = &r
	}
	for j, f := range c.Flags {
		cf := ctf.Flag{Kind: f.Type, Content: f.Content, CaseInsensitive: f.Data == "case_insensitive"}
		if err := cf.Compile(); err != nil {
			return false, false, l.fail("challenges", i, fmt.Sprintf("flags[%d]", j), "%v", err)
		}
		nc.Flags = append(nc.Flags, cf)
	}
	if c.Author != "" {
		if nc.AuthorID, err = l.userID(c.Author); err != nil {
			return false, false, err
		}
		if nc.AuthorID == "" && c.Source.Index >= 0 {
			// ctfcli's author is free text; a dataset's must name a user.
			return false, false, l.fail("challenges", i, "author", "no user %q in the dataset or the database", c.Author)
		}
	}
	if f := c.File; f != nil {
		nc.FileName = f.Name
		if f.URL != "" {
			nc.FileURL = f.URL
		} else if nc.FileSHA256, err = l.storeFile(i, f); err != nil {
			return false, false, err
		}
	}
	err = l.tx.Content().UpsertChallenge(nc)
	if store.IsUniqueViolation(err) {
		// Wrapped: the statement failed, so the transaction cannot go on
		// (loadChallenges skips only a bare *dataset.Error).
		return false, false, fmt.Errorf("%w", l.fail("challenges", i, "id", "id %q already belongs to another challenge", nc.ID))
	}
	if err != nil {
		return false, false, fmt.Errorf("load challenge %q: %w", c.Slug, err)
	}
	if err := l.tx.Content().PutFlags(nc.ID, nc.Flags); err != nil {
		return false, false, fmt.Errorf("load flags of %q: %w", c.Slug, err)
	}
	if exists && !slices.Equal(old.Hints, nc.Hints) {
		// The unlocks of the hints the challenge keeps stay, as its solves
		// do; those of a hint it no longer has would name nothing.
		keep := make([]int, len(nc.Hints))
		for j, h := range nc.Hints {
			keep[j] = h.ID
		}
		if err := l.tx.Play().DropHintUnlocks(nc.ID, keep); err != nil {
			return false, false, err
		}
	}
	l.chals[c.Slug] = nc.ID
	return exists, exists && !store.SameChallengeRow(old, nc), nil
}

// storeFile puts a challenge file's bytes in the database, addressed by
// their SHA-256, so the event stays one database.
func (l *loader) storeFile(i int, f *dataset.File) (string, error) {
	var data []byte
	var err error
	switch {
	case f.ContentBase64 != "":
		if data, err = base64.StdEncoding.DecodeString(f.ContentBase64); err != nil {
			return "", l.fail("challenges", i, "file.contentBase64", "not valid base64: %v", err)
		}
	case f.Path != "" || len(f.Pack) > 0:
		field := "file.path"
		if f.Path == "" {
			field = "file" // several files of a benchmark task, zipped
		}
		if data, err = dataset.ReadFile(f); err != nil {
			return "", l.fail("challenges", i, field, "%v", err)
		}
	default:
		return "", l.fail("challenges", i, "file", "needs a path, a url or contentBase64")
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	if f.SHA256 != "" && !strings.EqualFold(f.SHA256, sha) {
		return "", l.fail("challenges", i, "file.sha256", "does not match the file's content (%s)", sha)
	}
	if err := l.tx.Content().PutFile(sha, data); err != nil {
		return "", err
	}
	return sha, nil
}
