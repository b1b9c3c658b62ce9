// Package arena writes an agent's run in the shapes agent benchmarks use,
// so a run on Flagship can sit beside runs of NYU CTF Bench or Cybench:
// the NYU CTF Bench leaderboard's summary.json, a JSON Lines file of every
// attempt, and a table per challenge of time to solve against the first
// person's.
package arena

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

// Summary is the NYU CTF Bench leaderboard's summary.json: who ran, with
// which model, when, and solved or not per challenge (by slug).
type Summary struct {
	Metadata struct {
		Agent string `json:"agent"`
		Model string `json:"model"`
		Date  string `json:"date"` // YYYY-MM-DD
	} `json:"metadata"`
	Results map[string]bool `json:"results"`
}

// NewSummary is run's summary, dated date.
func NewSummary(run live.Run, date time.Time) Summary {
	var s Summary
	s.Metadata.Agent, s.Metadata.Model, s.Metadata.Date = run.Agent.Username, run.Agent.Model, date.UTC().Format(time.DateOnly)
	s.Results = make(map[string]bool, len(run.Challenges))
	for _, c := range run.Challenges {
		s.Results[c.Slug] = c.Solved
	}
	return s
}

// WriteSummary writes run's summary.json.
func WriteSummary(w io.Writer, run live.Run, date time.Time) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(NewSummary(run, date))
}

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
// the first person's, as CSV.
func WriteTimes(w io.Writer, run live.Run) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(TimesHeader); err != nil {
		return err
	}
	for _, c := range run.Challenges {
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
