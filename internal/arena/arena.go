// Package arena writes an agent's run in the shapes agent benchmarks use,
// so a run on Flagship can sit beside runs of NYU CTF Bench or Cybench:
// the NYU CTF Bench leaderboard's summary.json, Cybench's run log per task,
// a JSON Lines file of every attempt, and a table per challenge of time to
// solve against the first person's (docs/product.md#export-agents).
package arena

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// Attempt is one line of attempts.jsonl.
type Attempt struct {
	Time      string   `json:"time"`
	Challenge string   `json:"challenge"`
	Correct   bool     `json:"correct"`
	Door      ctf.Door `json:"door"` // api, web, mcp, or import
	Key       string   `json:"key,omitempty"`
}

// WriteAttempts writes every recorded submission of run, one JSON object a
// line, in time order.
func WriteAttempts(w io.Writer, run live.Run) error {
	enc := json.NewEncoder(w)
	for _, a := range run.Attempts {
		if err := enc.Encode(Attempt{Time: ctf.FormatTime(a.At), Challenge: a.Slug, Correct: a.Correct, Door: a.Door, Key: a.KeyID}); err != nil {
			return err
		}
	}
	return nil
}

// TimesHeader names the columns of times.csv. Durations are in seconds,
// from the challenge's release; agent_minus_human_s is negative when the
// agent was faster than the first person.
var TimesHeader = []string{"challenge", "points", "solved", "attempts", "first_attempt_at", "solved_at",
	"time_to_solve_s", "first_human_solve_at", "human_time_to_solve_s", "agent_minus_human_s"}

// WriteTimes writes the table per challenge of run's times to solve against
// the first person's, as CSV, in solve order (SolveOrder).
func WriteTimes(w io.Writer, run live.Run) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(TimesHeader); err != nil {
		return err
	}
	for _, c := range SolveOrder(run.Challenges) {
		row := []string{c.Slug, strconv.Itoa(c.Points), strconv.FormatBool(c.Solved), strconv.Itoa(c.Attempts),
			timeCell(c.FirstAttemptAt), timeCell(c.SolvedAt), secs(c.TimeToSolve), timeCell(c.FirstHumanSolveAt),
			secs(c.HumanTimeToSolve), ""}
		if c.TimeToSolve != nil && c.HumanTimeToSolve != nil {
			d := *c.TimeToSolve - *c.HumanTimeToSolve
			row[9] = secs(&d)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// SolveOrder is challenges in the order the agent went through them: the
// solved ones by solve time (the earlier listed first on a tie), then the
// unsolved ones in list order. The slice given is not changed.
func SolveOrder(challenges []live.RunChallenge) []live.RunChallenge {
	out := slices.Clone(challenges)
	slices.SortStableFunc(out, func(a, b live.RunChallenge) int {
		switch {
		case a.Solved && b.Solved:
			return a.SolvedAt.Compare(*b.SolvedAt)
		case a.Solved:
			return -1
		case b.Solved:
			return 1
		}
		return 0
	})
	return out
}

func timeCell(t *time.Time) string {
	if t == nil {
		return ""
	}
	return ctf.FormatTime(*t)
}

func secs(d *time.Duration) string {
	if d == nil {
		return ""
	}
	return fmt.Sprintf("%.3f", d.Seconds())
}
