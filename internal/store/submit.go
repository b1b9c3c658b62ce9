package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// Submission is one checked flag submission.
type Submission struct {
	UserID      string
	ChallengeID string
	Flag        string
	Correct     bool
	At          time.Time
	Door        ctf.Door // the front door that made it: ctf.DoorAPI, DoorWeb, DoorMCP
	KeyID       string   // the API key that authenticated it, "" for a session
	// Practice marks a submission after the end in practice mode: recorded,
	// counted nowhere, and not told on the live stream.
	Practice bool
	// Unannounced marks a solve the public may not see (an admin's, one
	// held by the freeze): recorded and counted as any other, but given no
	// row in the live stream, so that the stream's numbers, which the
	// public reads, move only with what the public sees.
	Unannounced bool
	// CheckSharing: a wrong flag of a challenge with per-player flags, to
	// be recorded as suspected sharing when it is another player's.
	CheckSharing bool
	// Hints: the challenge has hints with a cost; a solve reads which of
	// them the user unlocked before it (Recorded.ChargedHints).
	Hints bool
}

// Recorded is a recorded submission: the row's sequence number in its
// table, and the solve when the flag was right.
type Recorded struct {
	Seq   int64
	Solve *ctf.Solve
	// ChargedHints are the hints the user unlocked on the challenge before
	// this solve (only read when Submission.Hints).
	ChargedHints []int
}

// SubmitOutcome is what became of one submission of a batch: recorded, or
// refused on its own (Err: Conflict or RateLimited) while the rest of the
// batch went on.
type SubmitOutcome struct {
	Recorded
	Err error
}

// RateLimit bounds wrong submissions per user and challenge in a window.
// Max <= 0 disables it.
type RateLimit struct {
	Max    int
	Window time.Duration
}

// bound is the count of recent wrong submissions a new one must stay
// under: the statements compare with it, so no limit is the largest count.
func (l RateLimit) bound() int64 {
	if l.Max <= 0 {
		return math.MaxInt64
	}
	return int64(l.Max)
}

// testHookBeforeSubmitCommit, set by tests only, sees a submission's
// transaction just before it commits.
var testHookBeforeSubmitCommit func(ctx context.Context, tx *sqlTx)

// RecordSubmission records one submission: RecordSubmissions with a batch
// of one.
func (p Play) RecordSubmission(ctx context.Context, s Submission, limit RateLimit) (Recorded, error) {
	out, err := p.RecordSubmissions(ctx, []Submission{s}, limit)
	if err != nil {
		return Recorded{}, err
	}
	return out[0].Recorded, out[0].Err
}

// RecordSubmissions applies the database's part of the submit rules to a
// batch of submissions in one transaction, so that the batch shares one
// commit and one wait for the disk. For each submission, in the batch's
// order and in the order docs/product.md#submitting-a-flag fixes: an existing solve is a Conflict
// (whatever the flag), then too many recent wrong submissions is
// RateLimited, then the submission is recorded, as a solve when correct or
// as a wrong attempt. A refusal is that submission's Outcome alone; an
// error of the database fails the whole batch, and nothing of it is
// recorded. It returns once the batch is durable: the commit waits for the
// disk (SQLite synchronous=FULL, PostgreSQL synchronous_commit on), so an
// acknowledged attempt or solve survives a crash or a power cut.
//
// Each submission is checked and recorded by one statement, which sees
// what the batch recorded before it, so a batch may hold several
// submissions of one user to one challenge (on PostgreSQL, the wrong
// submissions alone on theirs share one statement: submit_postgres.go). The database keeps the rules
// exact across processes: SQLite runs one write transaction at a time;
// on PostgreSQL the transaction first takes an advisory lock on each user
// and challenge of the batch, in one order every process follows. A
// solve's time is never before that of the challenge's newest solve (it is
// moved up to it if need be), and on PostgreSQL solves of one challenge
// are recorded under a lock on it, so for each challenge the order by
// (time, seq) is the order in which the solves were committed: the first
// in that order, the first blood, is decided once. So when
// RecordSubmissions returns a solve, every solve of the challenge before
// it in that order is committed: a read made then (SolvesSince) finds
// them all. The same holds for each user's solves (a solve's time is never
// before the user's newest, and on PostgreSQL a user's solves are recorded
// under a lock on the user), so the badges a solve announces, a function
// of the user's solves in time order, are not undone by a solve of theirs
// committed earlier on another replica with a later time.
func (p Play) RecordSubmissions(ctx context.Context, subs []Submission, limit RateLimit) ([]SubmitOutcome, error) {
	st, err := p.submitStatements(ctx)
	if err != nil {
		return nil, fmt.Errorf("submit: prepare: %w", err)
	}
	tx, err := p.db.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}
	defer tx.Rollback()
	if err := lockSubmissions(ctx, tx, subs); err != nil {
		return nil, fmt.Errorf("submit: lock: %w", err)
	}
	out := make([]SubmitOutcome, len(subs))
	handled, err := recordLoneAttempts(ctx, tx, subs, limit, out)
	if err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}
	var stream []StreamRow
	recorded := false
	for i, s := range subs {
		if handled[i] {
			recorded = recorded || out[i].Err == nil
			continue
		}
		rec, refused, err := p.recordOne(ctx, tx, st, s, limit)
		if err != nil {
			return nil, fmt.Errorf("submit: %w", err)
		}
		if refused != nil {
			out[i].Err = refused
			continue
		}
		out[i].Recorded, recorded = rec, true
		if rec.Solve != nil && !s.Practice && !s.Unannounced {
			stream = append(stream, StreamRow{Kind: ctf.StreamSolve, UserID: s.UserID, ChallengeID: s.ChallengeID, Ref: rec.Solve.ID, At: rec.Solve.At})
		}
	}
	if !recorded {
		return out, nil
	}
	// Last, so the stream's counter is held only until the commit.
	if _, err := appendStreams(ctx, tx, stream); err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}
	if err := notifyChange(ctx, tx); err != nil {
		return nil, fmt.Errorf("submit: %w", err)
	}
	if testHookBeforeSubmitCommit != nil {
		testHookBeforeSubmitCommit(ctx, tx)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("submit: commit: %w", err)
	}
	return out, nil
}

// The statements that check and record a submission: an INSERT …
// SELECT of the row (attemptColumns, solveColumns) under the checks. The
// SELECT's parameters are cast so that PostgreSQL knows their types
// without a VALUES list to infer them from. The solve check comes first
// (409 before 429); ON CONFLICT keeps a racing duplicate from aborting the
// batch. Built once: the driver and the server prepare them by their text.
var (
	insertAttempt = submitInsert("attempts", attemptColumns, nil) + "\n\tRETURNING seq"
	// insertSolve is the solve's statement in each dialect, by postgres().
	insertSolve = map[bool]string{}
)

func init() {
	for _, d := range []*dialect{{name: sqliteName}, {name: postgresName}} {
		at := d.greatest("CAST(? AS BIGINT)", d.greatest("COALESCE((SELECT max(solved_at) FROM solves WHERE challenge_id = ?), 0)",
			"COALESCE((SELECT max(solved_at) FROM solves WHERE user_id = ?), 0)"))
		insertSolve[d.postgres()] = submitInsert("solves", solveColumns, map[string]string{"solved_at": at}) +
			"\n\tON CONFLICT DO NOTHING\n\tRETURNING seq, solved_at"
	}
}

// submitTypes are the SQL types of the columns a submission writes.
var submitTypes = map[string]string{"id": "TEXT", "user_id": "TEXT", "challenge_id": "TEXT", "flag": "TEXT", "created_at": "BIGINT",
	"solved_at": "BIGINT", "door": "TEXT", "key_id": "TEXT", "practice": "BOOLEAN"}

// submitInsert is the INSERT … SELECT of a submission's row of cols into
// table, each column a parameter cast to its type but those exprs gives,
// under the checks: its parameters are the row's values in cols' order,
// then user, challenge, user, challenge, the rate limit's window start
// and its bound.
func submitInsert(table string, cols []string, exprs map[string]string) string {
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = "CAST(? AS " + submitTypes[c] + ")"
		if e, ok := exprs[c]; ok {
			sel[i] = e
		}
	}
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ")\n\tSELECT " + strings.Join(sel, ", ") + `
	WHERE NOT EXISTS (SELECT 1 FROM solves WHERE user_id = ? AND challenge_id = ?)
	AND (SELECT count(*) ` + recentWrongFrom + `) < ?`
}

// recordOne checks and records one submission in tx, or says why it
// refused to (Conflict or RateLimited).
func (p Play) recordOne(ctx context.Context, tx *sqlTx, st submitStatements, s Submission, limit RateLimit) (Recorded, *ctf.Error, error) {
	since := ms(s.At.Add(-limit.Window))
	id := ctf.NewID()
	var rec Recorded
	var err error
	if !s.Correct {
		err = tx.QueryRowStmt(ctx, st.attempt, insertAttempt, id, s.UserID, s.ChallengeID, s.Flag, ms(s.At), s.Door, nullString(s.KeyID), s.Practice,
			s.UserID, s.ChallengeID, s.UserID, s.ChallengeID, since, limit.bound()).Scan(&rec.Seq)
	} else {
		solve := &ctf.Solve{ID: id, UserID: s.UserID, ChallengeID: s.ChallengeID, Flag: s.Flag, Practice: s.Practice}
		var at int64
		err = tx.QueryRowStmt(ctx, st.solve, insertSolve[p.db.dialect.postgres()], id, s.UserID, s.ChallengeID, s.Flag, ms(s.At), s.ChallengeID, s.UserID,
			s.Door, nullString(s.KeyID), s.Practice, s.UserID, s.ChallengeID, s.UserID, s.ChallengeID, since, limit.bound()).Scan(&solve.Seq, &at)
		solve.At = fromMs(at)
		rec = Recorded{Seq: solve.Seq, Solve: solve}
		if err == nil && s.Hints {
			if rec.ChargedHints, err = chargedHints(ctx, tx, s.UserID, s.ChallengeID); err != nil {
				return Recorded{}, nil, err
			}
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		refused, err := refusal(ctx, tx, s, limit, since)
		return Recorded{}, refused, err
	}
	if err != nil {
		return Recorded{}, nil, fmt.Errorf("record: %w", err)
	}
	if s.CheckSharing && !s.Correct {
		if err := recordSharing(ctx, tx, s); err != nil {
			return Recorded{}, nil, err
		}
	}
	return rec, nil, nil
}

// submitStatements are the two statements prepared, on SQLite, whose
// driver parses a query at every use otherwise (on PostgreSQL, nil: pgx
// keeps prepared statements per connection by itself).
type submitStatements struct{ attempt, solve *sql.Stmt }

func (p Play) submitStatements(ctx context.Context) (st submitStatements, err error) {
	if p.db.dialect.postgres() {
		return st, nil
	}
	if st.attempt, err = p.db.w.prepared(ctx, insertAttempt); err != nil {
		return st, err
	}
	st.solve, err = p.db.w.prepared(ctx, insertSolve[p.db.dialect.postgres()])
	return st, err
}

// refusal says why a submission's statement recorded nothing: the checks
// again, in the same transaction, to tell a solve from the rate limit and
// to compute when the limit lifts.
func refusal(ctx context.Context, tx *sqlTx, s Submission, limit RateLimit, since int64) (*ctf.Error, error) {
	var solved, recent int
	var oldest *int64
	if err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM solves WHERE user_id = ? AND challenge_id = ?),
		(SELECT count(*) `+recentWrongFrom+`),
		(SELECT min(created_at) `+recentWrongFrom+`)`,
		s.UserID, s.ChallengeID, s.UserID, s.ChallengeID, since, s.UserID, s.ChallengeID, since).Scan(&solved, &recent, &oldest); err != nil {
		return nil, fmt.Errorf("checks: %w", err)
	}
	if solved > 0 || limit.Max <= 0 || recent < limit.Max {
		// Nothing else stops the statement: a racing duplicate solve.
		return ctf.Errorf(ctf.Conflict, "challenge already solved"), nil
	}
	retry := limit.Window
	if oldest != nil {
		retry = fromMs(*oldest).Add(limit.Window).Sub(s.At)
	}
	e := ctf.Errorf(ctf.RateLimited, "too many wrong submissions for this challenge; try again later")
	e.RetryAfter = retry
	return e, nil
}
