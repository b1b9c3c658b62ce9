package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// PutReview creates or changes a user's review of a challenge (one per
// user and challenge) and returns it as stored.
func (ct Content) PutReview(ctx context.Context, r ctf.Review) (ctf.Review, []int64, error) {
	var out ctf.Review
	seqs, err := ct.db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
		rows, err := queryReviewsWhere(ctx, tx, `WHERE id = (SELECT id FROM reviews WHERE user_id = ? AND challenge_id = ?)`, r.UserID, r.ChallengeID)
		if err != nil {
			return nil, err
		}
		if len(rows) == 1 {
			r.ID, r.CreatedAt = rows[0].ID, rows[0].CreatedAt
			_, err = tx.ExecContext(ctx, updateReview.sql, updateReview.args(reviewValues(r))...)
		} else {
			_, err = tx.ExecContext(ctx, createReviewSQL, reviewValues(r)...)
		}
		if isUniqueViolation(err) {
			return nil, ctf.Errorf(ctf.Conflict, "the review changed meanwhile; try again")
		}
		if err != nil {
			return nil, fmt.Errorf("save review: %w", err)
		}
		out = r
		return []ChangeRef{{Kind: ChangeReview, Entity: r.ID}}, nil
	})
	return out, seqs, err
}

const writeupColumns = "id, user_id, challenge_id, title, content, images, status, reason, created_at, updated_at"

func scanWriteup(sc interface{ Scan(...any) error }) (ctf.Writeup, error) {
	var w ctf.Writeup
	var images string
	var created, updated int64
	if err := sc.Scan(&w.ID, &w.UserID, &w.ChallengeID, &w.Title, &w.Content, &images, &w.Status, &w.Reason, &created, &updated); err != nil {
		return w, err
	}
	w.CreatedAt, w.UpdatedAt = fromMs(created), fromMs(updated)
	if err := jsonUnmarshalStrings(images, &w.Images); err != nil {
		return w, fmt.Errorf("writeup %s images: %w", w.ID, err)
	}
	return w, nil
}

func queryWriteups(ctx context.Context, q querier, where string, args ...any) ([]ctf.Writeup, error) {
	var out []ctf.Writeup
	err := eachRow(ctx, q, "SELECT "+writeupColumns+" FROM writeups "+where+" ORDER BY created_at, id", func(sc scanner) error {
		w, err := scanWriteup(sc)
		out = append(out, w)
		return err
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("read writeups: %w", err)
	}
	return out, nil
}

// PutWriteup creates or replaces a user's writeup of a challenge (one per
// user and challenge): title, content, images and status as given, the
// id and creation time of an existing one kept. It returns it as stored.
func (ct Content) PutWriteup(ctx context.Context, w ctf.Writeup) (ctf.Writeup, []int64, error) {
	var out ctf.Writeup
	if w.Images == nil {
		w.Images = []string{}
	}
	seqs, err := ct.db.write(ctx, nil, func(tx *sqlTx) ([]ChangeRef, error) {
		old, err := queryWriteups(ctx, tx, "WHERE user_id = ? AND challenge_id = ?", w.UserID, w.ChallengeID)
		if err != nil {
			return nil, err
		}
		if len(old) == 1 {
			w.ID, w.CreatedAt = old[0].ID, old[0].CreatedAt
			_, err = tx.ExecContext(ctx, updateWriteup.sql, updateWriteup.args(writeupValues(w))...)
		} else {
			_, err = tx.ExecContext(ctx, createWriteupSQL, writeupValues(w)...)
		}
		if isUniqueViolation(err) {
			return nil, ctf.Errorf(ctf.Conflict, "the writeup changed meanwhile; try again")
		}
		if err != nil {
			return nil, fmt.Errorf("save writeup: %w", err)
		}
		out = w
		return []ChangeRef{{Kind: ChangeWriteup, Entity: w.ID}}, nil
	})
	return out, seqs, err
}

// ModerateWriteup sets a writeup's status and reason and returns it.
func (ct Content) ModerateWriteup(ctx context.Context, id string, status ctf.WriteupStatus, reason string, audit *ctf.AuditEntry) (ctf.Writeup, []int64, error) {
	var w ctf.Writeup
	seqs, err := ct.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		var err error
		w, err = scanWriteup(tx.QueryRowContext(ctx, "UPDATE writeups SET status = ?, reason = ? WHERE id = ? RETURNING "+writeupColumns,
			status, reason, id))
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ctf.Errorf(ctf.NotFound, "no such writeup")
		}
		if err != nil {
			return nil, fmt.Errorf("moderate writeup: %w", err)
		}
		return []ChangeRef{{Kind: ChangeWriteup, Entity: id}}, nil
	})
	return w, seqs, err
}
