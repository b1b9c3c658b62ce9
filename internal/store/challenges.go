package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// challengeColumns are a challenge row's columns, in the order of
// challengeValues and scanChallenge.
var challengeColumns = []string{"id", "slug", "title", "description", "categories", "difficulty", "points", "type",
	"author_id", "file_name", "file_sha256", "file_url", "has_instance", "docker_port", "hidden", "tags", "connection_info",
	"created_at", "release_at", "instance", "flag_format", "origin", "origin_path", "origin_name",
	"scoring", "hints"}

// flagColumns are a flag row's columns (a challenge's flags in order of
// position), prerequisiteColumns a prerequisite's.
var (
	flagColumns         = []string{"challenge_id", "position", "kind", "content", "case_insensitive"}
	prerequisiteColumns = []string{"challenge_id", "requires_id"}
)

var (
	insertFlagSQL         = insertSQL("flags", flagColumns)
	insertPrerequisiteSQL = insertSQL("prerequisites", prerequisiteColumns)
	// putChallengeSQL replaces a challenge by id; it keeps its creation time.
	putChallengeSQL = upsertSQL("challenges", challengeColumns, "id", "created_at")
	// loadChallengeSQL replaces a challenge by slug; it keeps its id.
	loadChallengeSQL = upsertSQL("challenges", challengeColumns, "slug", "id")
	// selectChallenges reads challenge rows for scanChallenge.
	selectChallenges = "SELECT " + strings.Join(challengeColumns, ", ") + " FROM challenges "
)

// challengeValues is c as stored, in challengeColumns' order. Categories,
// tags and the instance spec are JSON (tags never null); no docker port,
// author, file hash, release time or instance spec is NULL.
func challengeValues(c ctf.Challenge) []any {
	cats, _ := json.Marshal(c.Categories)
	tags := c.Tags
	if tags == nil {
		tags = []string{}
	}
	tj, _ := json.Marshal(tags)
	var port any
	if c.DockerPort != nil {
		port = int64(*c.DockerPort)
	}
	var inst any
	if c.Instance != nil {
		b, _ := json.Marshal(c.Instance)
		inst = string(b)
	}
	return []any{c.ID, c.Slug, c.Title, c.Description, string(cats), c.Difficulty, int64(c.Points), c.Type, nullString(c.AuthorID),
		c.FileName, nullString(c.FileSHA256), c.FileURL, c.HasInstance, port, c.Hidden, string(tj), c.ConnectionInfo,
		ms(c.CreatedAt), nullMs(c.ReleaseAt), inst, c.FlagFormat, c.Origin.Benchmark, c.Origin.Path, c.Origin.Name,
		scoringValue(c.Scoring), hintsValue(c.Hints)}
}

// scoringValue is a scoring as stored: "" for static, else its JSON.
func scoringValue(s ctf.Scoring) string {
	if !s.IsDynamic() {
		return ""
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// hintsValue is a challenge's hints as stored: "" for none, else their JSON.
func hintsValue(hints []ctf.Hint) string {
	if len(hints) == 0 {
		return ""
	}
	b, _ := json.Marshal(hints)
	return string(b)
}

// parseHints reads a challenge's hints as stored (hintsValue).
func parseHints(text string) ([]ctf.Hint, error) {
	if text == "" {
		return nil, nil
	}
	var hints []ctf.Hint
	err := json.Unmarshal([]byte(text), &hints)
	return hints, err
}

// scanChallenge reads a row of selectChallenges (flags and prerequisites
// are read apart).
func scanChallenge(sc scanner) (ctf.Challenge, error) {
	var c ctf.Challenge
	var cats, tags, scoring, hints string
	var author, sha, inst sql.NullString
	var port, release sql.NullInt64
	var created int64
	if err := sc.Scan(&c.ID, &c.Slug, &c.Title, &c.Description, &cats, &c.Difficulty, &c.Points, &c.Type,
		&author, &c.FileName, &sha, &c.FileURL, &c.HasInstance, &port, &c.Hidden,
		&tags, &c.ConnectionInfo, &created, &release, &inst, &c.FlagFormat, &c.Origin.Benchmark, &c.Origin.Path, &c.Origin.Name,
		&scoring, &hints); err != nil {
		return c, fmt.Errorf("scan challenge: %w", err)
	}
	c.AuthorID, c.FileSHA256 = author.String, sha.String
	if err := json.Unmarshal([]byte(cats), &c.Categories); err != nil {
		return c, fmt.Errorf("challenge %s categories: %w", c.Slug, err)
	}
	if err := json.Unmarshal([]byte(tags), &c.Tags); err != nil {
		return c, fmt.Errorf("challenge %s tags: %w", c.Slug, err)
	}
	if port.Valid {
		p := int(port.Int64)
		c.DockerPort = &p
	}
	if inst.Valid {
		c.Instance = new(ctf.InstanceSpec)
		if err := json.Unmarshal([]byte(inst.String), c.Instance); err != nil {
			return c, fmt.Errorf("challenge %s instance: %w", c.Slug, err)
		}
	}
	if scoring != "" {
		if err := json.Unmarshal([]byte(scoring), &c.Scoring); err != nil {
			return c, fmt.Errorf("challenge %s scoring: %w", c.Slug, err)
		}
	}
	hs, err := parseHints(hints)
	if err != nil {
		return c, fmt.Errorf("challenge %s hints: %w", c.Slug, err)
	}
	c.Hints = hs
	c.CreatedAt = fromMs(created)
	c.ReleaseAt = fromNullMs(release)
	return c, nil
}

// SameChallengeRow reports whether a and b are stored as the same row,
// flags included (prerequisites are not compared).
func SameChallengeRow(a, b ctf.Challenge) bool {
	return slices.Equal(challengeValues(a), challengeValues(b)) &&
		slices.EqualFunc(a.Flags, b.Flags, func(x, y ctf.Flag) bool {
			return x.Kind == y.Kind && x.Content == y.Content && x.CaseInsensitive == y.CaseInsensitive
		})
}

// PutChallenge creates or replaces a challenge by id — every field, its
// flags and its prerequisites — and stores file (the handout's bytes,
// addressed by c.FileSHA256) when not nil. A slug another challenge has
// is a Conflict.
func (ct Content) PutChallenge(ctx context.Context, c ctf.Challenge, file []byte, audit *ctf.AuditEntry) ([]int64, error) {
	return ct.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		if file != nil {
			if err := putFile(ctx, tx, c.FileSHA256, file); err != nil {
				return nil, err
			}
		}
		err := tx.savepoint(ctx, func() error {
			_, err := tx.ExecContext(ctx, putChallengeSQL, challengeValues(c)...)
			return err
		})
		if isUniqueViolation(err) {
			return nil, ctf.Errorf(ctf.Conflict, "another challenge has the slug %q", c.Slug)
		}
		if err != nil {
			return nil, fmt.Errorf("save challenge %q: %w", c.Slug, err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM prerequisites WHERE challenge_id = ?", c.ID); err != nil {
			return nil, fmt.Errorf("save challenge %q: %w", c.Slug, err)
		}
		if err := putFlags(ctx, tx, c.ID, c.Flags); err != nil {
			return nil, fmt.Errorf("save flags of %q: %w", c.Slug, err)
		}
		if err := dropHintUnlocks(ctx, tx, c.ID, hintIDs(c.Hints)); err != nil {
			return nil, fmt.Errorf("save hints of %q: %w", c.Slug, err)
		}
		for _, r := range c.Requires {
			if _, err := tx.ExecContext(ctx, insertPrerequisiteSQL, c.ID, r); err != nil {
				return nil, fmt.Errorf("save prerequisites of %q: %w", c.Slug, err)
			}
		}
		return []ChangeRef{{Kind: ChangeChallenge, Entity: c.ID}}, nil
	})
}

// putFlags replaces the flags of challenge id with flags, in their order.
func putFlags(ctx context.Context, tx *sqlTx, id string, flags []ctf.Flag) error {
	if _, err := tx.ExecContext(ctx, "DELETE FROM flags WHERE challenge_id = ?", id); err != nil {
		return err
	}
	for i, f := range flags {
		if _, err := tx.ExecContext(ctx, insertFlagSQL,
			id, i, f.Kind, f.Content, f.CaseInsensitive); err != nil {
			return err
		}
	}
	return nil
}
