package arena

import (
	"io"
	"path"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/live"
)

// CybenchLog is one Cybench task's run log: what Cybench's run_task.py
// writes per task and run (json.dump of its TaskRunCompletion, indent 4),
// cut down to the fields a run on Flagship can fill honestly. Flagship
// runs a task unguided (one subtask: the flag) and knows neither the
// agent's tokens nor its iterations, so usage and the iterations are left
// out rather than made up, and the answers (flags) are never written.
type CybenchLog struct {
	Name string // <model>_<success|fail>_<task name>_run_log.json, as Cybench names it
	Slug string // the challenge's
	log  obj
}

// Write writes the log as Cybench's json.dump(indent=4) does (no final
// newline).
func (l CybenchLog) Write(w io.Writer) error { return pyJSON(w, l.log, 4) }

// CybenchLogs are run's logs, one per Cybench task (a challenge whose
// origin is Cybench), in list order. Two tasks of one name (the last
// element of their path) could not be told apart by their logs' names:
// that is an error.
func CybenchLogs(run live.Run) ([]CybenchLog, error) {
	last := map[string]time.Time{} // slug → the latest attempt
	for _, a := range run.Attempts {
		if a.At.After(last[a.Slug]) {
			last[a.Slug] = a.At
		}
	}
	var out []CybenchLog
	seen := map[string]string{} // task name in a file name → task path
	for _, c := range run.Challenges {
		if c.Origin.Benchmark != ctf.BenchmarkCybench {
			continue
		}
		name := fileSafe(path.Base(c.Origin.Path))
		if other, dup := seen[name]; dup {
			return nil, ctf.Errorf(ctf.Conflict, "cybench tasks %q and %q share the name %s in their logs' file names", other, c.Origin.Path, name)
		}
		seen[name] = c.Origin.Path
		out = append(out, cybenchLog(run.Agent, c, last[c.Slug]))
	}
	return out, nil
}

func cybenchLog(agent ctf.User, c live.RunChallenge, lastAttempt time.Time) CybenchLog {
	name := path.Base(c.Origin.Path)
	// Time taken: from the task's release (Flagship's start of a task) to
	// the solve, or to the last attempt of an unsolved task; 0 untried.
	var taken time.Duration
	switch {
	case c.TimeToSolve != nil:
		taken = *c.TimeToSolve
	case !lastAttempt.IsZero():
		taken = lastAttempt.Sub(c.ReleasedAt)
	}
	ms := pyFloat(max(taken, 0).Milliseconds())
	score, correct, label, status := 0, 0, "fail", "incomplete"
	if c.Solved {
		score, correct, label, status = 1, 1, "success", "complete"
	}
	answered := "not_answered"
	if c.Attempts > 0 {
		answered = "answered"
	}
	// Cybench's own spelling ("reverse" where Flagship says "rev").
	cats := make([]any, 0, len(c.Categories))
	for _, cat := range c.Categories {
		cats = append(cats, dataset.BenchmarkCategory(ctf.BenchmarkCybench, cat))
	}
	task := obj{{"path", c.Origin.Path}, {"name", name}, {"categories", cats}}
	// run_task.py reads the author and the competition off the path:
	// benchmark/<author>/<competition>/…
	if parts := strings.Split(c.Origin.Path, "/"); len(parts) > 3 && parts[0] == "benchmark" {
		task = append(task, member{"competition", obj{{"task_author", parts[1]}, {"competition_name", parts[2]}}})
	}
	log := obj{
		{"task", task},
		{"task_run_input", obj{
			{"task_run_config", obj{
				{"run_with_subtasks", false},
				{"start_time_in_ms", c.ReleasedAt.UnixMilli()},
			}},
			{"agent_config", obj{{"deployment_name", agent.Model}}},
			{"task_dir", c.Origin.Path},
		}},
		{"subtask_completions", obj{
			{"subtask_1", obj{
				{"score", score},
				{"time_taken_in_ms", ms},
				{"completion_status", answered},
				{"solved_with_hint", false},
			}},
		}},
		{"num_correct_subtasks", correct},
		{"num_subtasks", 1},
		{"time_taken_in_ms", ms},
		{"status", status},
	}
	return CybenchLog{Name: fileSafe(agent.Model) + "_" + label + "_" + fileSafe(name) + "_run_log.json", Slug: c.Slug, log: log}
}

// fileSafe is s as one element of a file name: Cybench turns spaces into
// underscores; slashes, backslashes and control characters are too, so a
// model such as openai/gpt-4o names no directory.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '/' || r == '\\' || r < ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, s)
}
