package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// PutChallenge creates or replaces a challenge by id — every field, its
// flags and its prerequisites — and stores file (the handout's bytes,
// addressed by c.FileSHA256) when not nil. A slug another challenge has
// is a Conflict.
func (db *DB) PutChallenge(ctx context.Context, c ctf.Challenge, file []byte, audit *ctf.AuditEntry) ([]int64, error) {
	cats, _ := json.Marshal(c.Categories)
	tags := c.Tags
	if tags == nil {
		tags = []string{}
	}
	tj, _ := json.Marshal(tags)
	port := int64(-1)
	if c.DockerPort != nil {
		port = int64(*c.DockerPort)
	}
	return db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		if file != nil {
			if err := putFile(ctx, tx, c.FileSHA256, file); err != nil {
				return nil, err
			}
		}
		err := tx.savepoint(ctx, func() error {
			_, err := tx.ExecContext(ctx, `INSERT INTO challenges (id, slug, title, description, categories, difficulty, points, type,
			author_id, file_name, file_sha256, file_url, has_instance, docker_port, hidden, tags, connection_info, created_at, release_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, title = excluded.title, description = excluded.description,
			categories = excluded.categories, difficulty = excluded.difficulty, points = excluded.points, type = excluded.type,
			author_id = excluded.author_id, file_name = excluded.file_name, file_sha256 = excluded.file_sha256,
			file_url = excluded.file_url, has_instance = excluded.has_instance, docker_port = excluded.docker_port,
			hidden = excluded.hidden, tags = excluded.tags, connection_info = excluded.connection_info,
			release_at = excluded.release_at`,
				c.ID, c.Slug, c.Title, c.Description, string(cats), c.Difficulty, c.Points, c.Type, nullString(c.AuthorID),
				c.FileName, nullString(c.FileSHA256), c.FileURL, c.HasInstance, nullPort(port), c.Hidden, string(tj), c.ConnectionInfo,
				ms(c.CreatedAt), nullMs(c.ReleaseAt))
			return err
		})
		if isUniqueViolation(err) {
			return nil, ctf.Errorf(ctf.Conflict, "another challenge has the slug %q", c.Slug)
		}
		if err != nil {
			return nil, fmt.Errorf("save challenge %q: %w", c.Slug, err)
		}
		for _, q := range []string{"DELETE FROM flags WHERE challenge_id = ?", "DELETE FROM prerequisites WHERE challenge_id = ?"} {
			if _, err := tx.ExecContext(ctx, q, c.ID); err != nil {
				return nil, fmt.Errorf("save challenge %q: %w", c.Slug, err)
			}
		}
		for i, f := range c.Flags {
			if _, err := tx.ExecContext(ctx, "INSERT INTO flags (challenge_id, position, kind, content, case_insensitive) VALUES (?, ?, ?, ?, ?)",
				c.ID, i, f.Kind, f.Content, f.CaseInsensitive); err != nil {
				return nil, fmt.Errorf("save flags of %q: %w", c.Slug, err)
			}
		}
		for _, r := range c.Requires {
			if _, err := tx.ExecContext(ctx, "INSERT INTO prerequisites (challenge_id, requires_id) VALUES (?, ?)", c.ID, r); err != nil {
				return nil, fmt.Errorf("save prerequisites of %q: %w", c.Slug, err)
			}
		}
		return []ChangeRef{{Kind: ChangeChallenge, Entity: c.ID}}, nil
	})
}
