package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Snapshot is everything the in-memory hot state is built from, read in one
// transaction so it is consistent.
type Snapshot struct {
	Revision   int64
	Users      []ctf.User
	Challenges []ctf.Challenge // hidden ones included; flags compiled
	Solves     []ctf.Solve     // in (time, seq) order
	Reviews    []ctf.Review
	// HintUnlocks are every unlock of a hint, oldest first.
	HintUnlocks []ctf.HintUnlock
	Writeups    []ctf.Writeup // oldest first
	APIKeys     []ctf.APIKey  // revoked ones included
	Sessions    []ctf.Session // active ones
	// WrongAttempts counts players' wrong submissions per challenge id.
	// (A user's own counts, which a ban or a promotion moves in or out of
	// these, are read when needed: WrongBaseline.)
	WrongAttempts map[string]int64
	// MaxSolveSeq, MaxAttemptSeq and MaxChangeSeq are the newest rows the
	// snapshot has seen: later ones arrive through Since.
	MaxSolveSeq, MaxAttemptSeq, MaxChangeSeq int64
	// RecentAttemptSeqs and RecentChangeSeqs are the rows the snapshot saw
	// among the last GapWindow numbers; with Solves they tell which numbers
	// below the maxima were not visible yet (transactions still in flight).
	RecentAttemptSeqs, RecentChangeSeqs []int64

	Event         ctf.Event
	Announcements []ctf.Announcement // oldest first
	Pages         []ctf.Page         // those with a row
	Logo          *ctf.Logo          // nil: none
	// Stream is the number of the newest row of the live stream.
	Stream int64
}

// GapWindow is how far below the newest row a snapshot looks for rows not
// yet committed.
const GapWindow = 1024

// Snapshot reads the whole hot state.
func (db *DB) Snapshot(ctx context.Context) (*Snapshot, error) {
	tx, err := db.r.wholeRead(ctx)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	defer tx.Rollback()
	s := &Snapshot{WrongAttempts: map[string]int64{}}
	var rev string
	if err := tx.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'revision'").Scan(&rev); err != nil {
		return nil, fmt.Errorf("snapshot revision: %w", err)
	}
	fmt.Sscan(rev, &s.Revision)
	if s.Users, err = queryUsers(ctx, tx, ""); err != nil {
		return nil, err
	}
	if s.Challenges, err = queryChallenges(ctx, tx); err != nil {
		return nil, err
	}
	if s.Solves, err = querySolves(ctx, tx, "seq > ?", 0); err != nil {
		return nil, err
	}
	if s.Reviews, err = queryReviews(ctx, tx); err != nil {
		return nil, err
	}
	if s.HintUnlocks, err = queryHintUnlocks(ctx, tx, ""); err != nil {
		return nil, err
	}
	if s.Writeups, err = queryWriteups(ctx, tx, ""); err != nil {
		return nil, err
	}
	if s.APIKeys, err = queryKeys(ctx, tx, "1 = 1"); err != nil {
		return nil, err
	}
	if s.Sessions, err = querySessions(ctx, tx, db.now(), "1 = 1"); err != nil {
		return nil, err
	}
	if s.Event, err = queryEvent(ctx, tx); err != nil {
		return nil, err
	}
	if s.Announcements, err = queryAnnouncements(ctx, tx, ""); err != nil {
		return nil, err
	}
	if s.Pages, err = queryPages(ctx, tx, ""); err != nil {
		return nil, err
	}
	if s.Logo, err = queryLogo(ctx, tx); err != nil {
		return nil, err
	}
	if s.Stream, err = streamHead(ctx, tx); err != nil {
		return nil, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT max(seq) FROM solves), 0), COALESCE((SELECT max(seq) FROM attempts), 0),
		COALESCE((SELECT max(seq) FROM changes), 0)`).Scan(&s.MaxSolveSeq, &s.MaxAttemptSeq, &s.MaxChangeSeq); err != nil {
		return nil, fmt.Errorf("snapshot sequences: %w", err)
	}
	recent := func(table string, max int64, out *[]int64) error {
		return eachRow(ctx, tx, fmt.Sprintf("SELECT seq FROM %s WHERE seq > %d ORDER BY seq", table, max-GapWindow), func(sc scanner) error {
			var seq int64
			err := sc.Scan(&seq)
			*out = append(*out, seq)
			return err
		})
	}
	if err := recent("attempts", s.MaxAttemptSeq, &s.RecentAttemptSeqs); err != nil {
		return nil, fmt.Errorf("snapshot recent attempts: %w", err)
	}
	if err := recent("changes", s.MaxChangeSeq, &s.RecentChangeSeqs); err != nil {
		return nil, fmt.Errorf("snapshot recent changes: %w", err)
	}
	// Players' wrong attempts per challenge: all attempts, counted in
	// index order, less those of admins and banned users, found from the
	// users' side (CROSS JOIN keeps that order in SQLite). A join of every
	// attempt with its user instead looks each one up: 10 s at 2 million
	// attempts. attempts.user_id references users, so the two agree.
	// Grouped as attempts_practice is ordered, so the count is one scan of
	// that index.
	all := map[string]int64{}
	err = eachRow(ctx, tx, "SELECT challenge_id, count(*) FROM attempts GROUP BY practice, challenge_id", func(sc scanner) error {
		var id string
		var n int64
		err := sc.Scan(&id, &n)
		all[id] += n
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("count attempts: %w", err)
	}
	others, err := countByChallenge(ctx, tx, `SELECT a.challenge_id, count(*) FROM users u CROSS JOIN attempts a
		WHERE a.user_id = u.id AND `+notPlayer+` GROUP BY a.challenge_id`)
	if err != nil {
		return nil, err
	}
	// Practice attempts of players count nowhere either; they are few,
	// and attempts_practice finds them without a scan.
	practice, err := countByChallenge(ctx, tx, `SELECT a.challenge_id, count(*) FROM attempts a JOIN users u ON u.id = a.user_id
		WHERE a.practice = ? AND NOT `+notPlayer+` GROUP BY a.challenge_id`, true)
	if err != nil {
		return nil, err
	}
	for id, n := range all {
		if n -= others[id] + practice[id]; n > 0 {
			s.WrongAttempts[id] = n
		}
	}
	return s, nil
}

// notPlayer holds for a user row u whose attempts count in no public
// aggregate: an admin's, a banned user's, or an agent's whose owner is
// banned (a ban covers the person; platform's isPlayer is the same rule
// for the hot state). It reads u alone, so the attempts' scan above stays
// one pass per user.
const notPlayer = `(u.role <> 'player' OR u.banned OR EXISTS (SELECT 1 FROM users o WHERE o.id = u.owner_id AND o.banned))`

func countByChallenge(ctx context.Context, q querier, query string, args ...any) (map[string]int64, error) {
	out := map[string]int64{}
	err := eachRow(ctx, q, query, func(sc scanner) error {
		var id string
		var n int64
		err := sc.Scan(&id, &n)
		out[id] = n
		return err
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("count attempts: %w", err)
	}
	return out, nil
}

// WrongBaseline counts a user's wrong submissions per challenge among the
// rows a snapshot saw: sequence numbers up to max, less unseen (those it
// did not see, still in flight then). With what the state applied since,
// that is exactly what the state counted for the user.
func (db *DB) WrongBaseline(ctx context.Context, userID string, max int64, unseen []int64) (map[string]int64, error) {
	q := "SELECT challenge_id, count(*) FROM attempts WHERE user_id = ? AND practice = ? AND seq <= ?"
	args := []any{userID, false, max}
	if len(unseen) > 0 {
		q += " AND seq NOT IN (" + marks(len(unseen)) + ")"
		for _, s := range unseen {
			args = append(args, s)
		}
	}
	return countByChallenge(ctx, db.r, q+" GROUP BY challenge_id", args...)
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *row
}

func queryChallenges(ctx context.Context, q querier) ([]ctf.Challenge, error) {
	return queryChallengesWhere(ctx, q, "")
}

// queryChallengesWhere reads the challenges matching where ("" for all, or
// "WHERE id IN (?, …)"), with their flags (compiled) and prerequisites.
func queryChallengesWhere(ctx context.Context, q querier, where string, args ...any) ([]ctf.Challenge, error) {
	rows, err := q.QueryContext(ctx, selectChallenges+where+" ORDER BY created_at, slug", args...)
	if err != nil {
		return nil, fmt.Errorf("query challenges: %w", err)
	}
	defer rows.Close()
	var out []ctf.Challenge
	index := map[string]int{}
	for rows.Next() {
		c, err := scanChallenge(rows)
		if err != nil {
			return nil, err
		}
		index[c.ID] = len(out)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()

	sub := strings.Replace(where, "WHERE id", "WHERE challenge_id", 1)
	frows, err := q.QueryContext(ctx, "SELECT challenge_id, kind, content, case_insensitive FROM flags "+sub+" ORDER BY challenge_id, position", args...)
	if err != nil {
		return nil, fmt.Errorf("query flags: %w", err)
	}
	defer frows.Close()
	for frows.Next() {
		var id string
		var f ctf.Flag
		if err := frows.Scan(&id, &f.Kind, &f.Content, &f.CaseInsensitive); err != nil {
			return nil, fmt.Errorf("scan flag: %w", err)
		}
		if i, ok := index[id]; ok {
			if err := f.Compile(); err != nil {
				return nil, fmt.Errorf("challenge %s: %w", out[i].Slug, err)
			}
			out[i].Flags = append(out[i].Flags, f)
		}
	}
	if err := frows.Err(); err != nil {
		return nil, err
	}
	frows.Close()

	prows, err := q.QueryContext(ctx, "SELECT challenge_id, requires_id FROM prerequisites "+sub+" ORDER BY challenge_id, requires_id", args...)
	if err != nil {
		return nil, fmt.Errorf("query prerequisites: %w", err)
	}
	defer prows.Close()
	for prows.Next() {
		var id, req string
		if err := prows.Scan(&id, &req); err != nil {
			return nil, fmt.Errorf("scan prerequisite: %w", err)
		}
		if i, ok := index[id]; ok {
			out[i].Requires = append(out[i].Requires, req)
		}
	}
	return out, prows.Err()
}

// querySolves reads the solves matching where (a condition on solves with
// ? placeholders for args), in (time, seq) order.
func querySolves(ctx context.Context, q querier, where string, args ...any) ([]ctf.Solve, error) {
	rows, err := q.QueryContext(ctx, `SELECT seq, id, user_id, challenge_id, COALESCE(flag, ''), solved_at, practice
		FROM solves WHERE `+where+` ORDER BY solved_at, seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("query solves: %w", err)
	}
	defer rows.Close()
	var out []ctf.Solve
	for rows.Next() {
		var s ctf.Solve
		var at int64
		if err := rows.Scan(&s.Seq, &s.ID, &s.UserID, &s.ChallengeID, &s.Flag, &at, &s.Practice); err != nil {
			return nil, fmt.Errorf("scan solve: %w", err)
		}
		s.At = fromMs(at)
		out = append(out, s)
	}
	return out, rows.Err()
}

func queryReviews(ctx context.Context, q querier) ([]ctf.Review, error) {
	return queryReviewsWhere(ctx, q, "")
}

func queryReviewsWhere(ctx context.Context, q querier, where string, args ...any) ([]ctf.Review, error) {
	reviews, err := allRows(ctx, q, selectReviews+where+" ORDER BY created_at, id", scanReview, args...)
	if err != nil {
		return nil, fmt.Errorf("read reviews: %w", err)
	}
	return reviews, nil
}

// scanReview reads a row of selectReviews.
func scanReview(sc scanner) (ctf.Review, error) {
	var r ctf.Review
	var at int64
	err := sc.Scan(&r.ID, &r.UserID, &r.ChallengeID, &r.Stars, &r.Difficulty, &at)
	r.CreatedAt = fromMs(at)
	return r, err
}

// AttemptRef is a wrong submission as the hot state counts it.
type AttemptRef struct {
	Seq         int64
	UserID      string
	ChallengeID string
	Practice    bool // made after the end in practice mode: counts nowhere
}

// Heads are the newest numbers of the append-only tables, the oldest the
// change log still holds, and the revision (bumped by a bulk change, load,
// after which replicas rebuild their state).
type Heads struct {
	Revision               int64
	Solve, Attempt, Change int64
	OldestChange           int64 // 0 when the log is empty
	Stream                 int64 // the live stream's newest number
}

// Heads reads the heads in one round trip: what a replica polls.
func (db *DB) Heads(ctx context.Context) (Heads, error) {
	var h Heads
	var rev string
	err := db.r.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key = 'revision'),
		COALESCE((SELECT max(seq) FROM solves), 0), COALESCE((SELECT max(seq) FROM attempts), 0),
		COALESCE((SELECT max(seq) FROM changes), 0), COALESCE((SELECT min(seq) FROM changes), 0),
		(SELECT value FROM counters WHERE name = 'stream')`).
		Scan(&rev, &h.Solve, &h.Attempt, &h.Change, &h.OldestChange, &h.Stream)
	if err != nil {
		return h, fmt.Errorf("read heads: %w", err)
	}
	if _, err := fmt.Sscan(rev, &h.Revision); err != nil {
		return h, fmt.Errorf("read heads: revision %q: %w", rev, err)
	}
	return h, nil
}
