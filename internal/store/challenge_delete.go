package store

import (
	"context"
	"fmt"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// ChangeChallengeDeleted names a challenge deleted, by id: a replica drops
// it and everything of it (solves, attempts, reviews, writeups) from its
// state, as the database's cascades dropped the rows.
const ChangeChallengeDeleted ChangeKind = "challenge-deleted"

// DeleteChallenge deletes the challenge of id and, by the schema's
// cascades, its flags, prerequisites, solves, attempts, reviews,
// writeups and instances' records; an announcement about it stays, about
// nothing. solves is the number of solves the admin confirmed will go:
// when the challenge has another number (a player solved it meanwhile),
// nothing is deleted and the answer is a Conflict naming it. A challenge
// with instances still running is a Conflict too: their containers would
// run on, owned by nothing.
func (ct Content) DeleteChallenge(ctx context.Context, id string, solves int, audit *ctf.AuditEntry) ([]int64, error) {
	return ct.db.write(ctx, audit, func(tx *sqlTx) ([]ChangeRef, error) {
		var n, running int
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM solves WHERE challenge_id = ?),
			(SELECT COUNT(*) FROM instances WHERE challenge_id = ? AND stopped_at IS NULL)`, id, id).Scan(&n, &running); err != nil {
			return nil, fmt.Errorf("delete challenge %s: %w", id, err)
		}
		if n != solves {
			return nil, ctf.Errorf(ctf.Conflict, "the challenge has %d %s now, not %d: confirm again", n, plural(n, "solve"), solves)
		}
		if running > 0 {
			return nil, ctf.Errorf(ctf.Conflict, "the challenge has %d %s running: stop %s first", running,
				plural(running, "instance"), map[bool]string{true: "it", false: "them"}[running == 1])
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM challenges WHERE id = ?", id)
		if err != nil {
			return nil, fmt.Errorf("delete challenge %s: %w", id, err)
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return nil, ctf.ErrNoChallenge
		}
		return []ChangeRef{{Kind: ChangeChallengeDeleted, Entity: id}}, nil
	})
}

// plural is word for n of it ("1 solve", "2 solves").
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
