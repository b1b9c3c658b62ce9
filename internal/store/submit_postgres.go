package store

import (
	"context"
	"fmt"
	"strings"
)

// On PostgreSQL every statement is a round trip to the server and a plan,
// which would cost more than the rows a submission writes. So the wrong
// submissions of a batch that are alone on their user and challenge in it
// — nearly all of them — are checked and recorded by one statement over
// arrays. Being alone on their pair, none of them can see another's row,
// so one snapshot decides each as its own statement would.
var insertLoneAttempts = loneAttemptsSQL()

// loneAttemptsSQL is submitInsert's statement for attempts over arrays: its
// parameters are one array per column of attemptColumns, in order, one
// of the rate limit's window starts, and the limit's bound.
func loneAttemptsSQL() string {
	arrays := make([]string, len(attemptColumns))
	for i, c := range attemptColumns {
		arrays[i] = "CAST(? AS " + submitTypes[c] + "[])"
	}
	cols := strings.Join(attemptColumns, ", ")
	return "INSERT INTO attempts (" + cols + ")\n\tSELECT s." + strings.Join(attemptColumns, ", s.") + `
	FROM unnest(` + strings.Join(arrays, ", ") + `, CAST(? AS BIGINT[]))
		AS s(` + cols + `, since)
	WHERE NOT EXISTS (SELECT 1 FROM solves v WHERE v.user_id = s.user_id AND v.challenge_id = s.challenge_id)
	AND (SELECT count(*) FROM attempts a WHERE a.user_id = s.user_id AND a.challenge_id = s.challenge_id AND a.created_at > s.since) < ?
	RETURNING id, seq`
}

// recordLoneAttempts records on PostgreSQL the wrong submissions of subs
// that are alone on their user and challenge in the batch, filling their
// outcomes, and reports which it handled; on SQLite, none (a statement
// there costs no round trip).
func recordLoneAttempts(ctx context.Context, tx *sqlTx, subs []Submission, limit RateLimit, out []SubmitOutcome) ([]bool, error) {
	handled := make([]bool, len(subs))
	if !tx.d.postgres() {
		return handled, nil
	}
	type pair struct{ u, c string }
	count := make(map[pair]int, len(subs))
	for _, s := range subs {
		count[pair{s.UserID, s.ChallengeID}]++
	}
	var ids, users, chals, flags, doors []string
	var keys []*string
	var ats, sinces []int64
	var practice []bool
	byID := map[string]int{}
	for i, s := range subs {
		if s.Correct || s.CheckSharing || count[pair{s.UserID, s.ChallengeID}] > 1 {
			continue
		}
		id := newID()
		byID[id] = i
		ids, users, chals, flags, doors = append(ids, id), append(users, s.UserID), append(chals, s.ChallengeID), append(flags, s.Flag), append(doors, string(s.Door))
		var key *string
		if s.KeyID != "" {
			key = &s.KeyID
		}
		keys = append(keys, key)
		ats, sinces = append(ats, ms(s.At)), append(sinces, ms(s.At.Add(-limit.Window)))
		practice = append(practice, s.Practice)
		handled[i] = true
	}
	if len(ids) == 0 {
		return handled, nil
	}
	rows, err := tx.QueryContext(ctx, insertLoneAttempts, ids, users, chals, flags, ats, doors, keys, practice, sinces, limit.bound())
	if err != nil {
		return nil, fmt.Errorf("record attempts: %w", err)
	}
	recorded := map[int]bool{}
	for rows.Next() {
		var id string
		var seq int64
		if err := rows.Scan(&id, &seq); err != nil {
			rows.Close()
			return nil, fmt.Errorf("record attempts: %w", err)
		}
		i := byID[id]
		out[i].Seq, recorded[i] = seq, true
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("record attempts: %w", err)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("record attempts: %w", err)
	}
	for i, s := range subs {
		if !handled[i] || recorded[i] {
			continue
		}
		refused, err := refusal(ctx, tx, s, limit, ms(s.At.Add(-limit.Window)))
		if err != nil {
			return nil, err
		}
		out[i].Err = refused
	}
	return handled, nil
}
