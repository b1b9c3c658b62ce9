package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/flagshipctf/flagship/internal/arena"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

func (a *app) exportAgents(ctx context.Context, args []string) error {
	fs := a.flags("export agents", "export agents [--out DIR] [--agent USERNAME] [--format all|nyu|cybench] [--comment TEXT] [--link URL]")
	out := fs.String("out", "agent-runs", "directory to write into: one directory per agent")
	only := fs.String("agent", "", "export this agent only")
	format := fs.String("format", string(arena.FormatAll), "all: summary.json (NYU's), attempts.jsonl and times.csv; nyu: summary.json; cybench: a run log per Cybench task")
	comment := fs.String("comment", "", "the NYU leaderboard's comment, e.g. pass@1")
	link := fs.String("link", "", "the NYU leaderboard's link: the agent's repository or documentation")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	f, err := arena.ParseFormat(*format)
	if err != nil {
		return err
	}
	meta := arena.Meta{Comment: *comment, Link: *link, Date: time.Now()}
	if err := meta.Validate(); err != nil {
		return err
	}
	svc, closeDB, err := a.service(ctx)
	if err != nil {
		return err
	}
	defer closeDB()
	agents, err := svc.Agents.All(ctx, ctf.Operator)
	if err != nil {
		return err
	}
	type written struct {
		Agent    string   `json:"agent"`
		Model    string   `json:"model"`
		Solved   int      `json:"solved"`
		Attempts int      `json:"attempts"`
		Files    []string `json:"files"`
	}
	var report []written
	var text strings.Builder
	for _, u := range agents {
		if *only != "" && u.Username != *only {
			continue
		}
		run, err := svc.Agents.Run(ctx, ctf.Operator, u.Username)
		if err != nil {
			return err
		}
		dir := filepath.Join(*out, u.Username)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("export %s: %w", u.Username, err)
		}
		w := written{Agent: u.Username, Model: u.Model, Attempts: len(run.Attempts)}
		for _, c := range run.Challenges {
			if c.Solved {
				w.Solved++
			}
		}
		for _, file := range arena.Files(run, f, meta) {
			p := filepath.Join(dir, file.Name)
			if err := writeFile(p, file.Write); err != nil {
				return fmt.Errorf("export %s: %w", u.Username, err)
			}
			w.Files = append(w.Files, p)
		}
		if f == arena.FormatCybench {
			files, err := writeCybench(filepath.Join(dir, arena.CybenchDir), run)
			if err != nil {
				return fmt.Errorf("export %s: %w", u.Username, err)
			}
			w.Files = append(w.Files, files...)
		}
		report = append(report, w)
		fmt.Fprintf(&text, "%s (%s): %d of %d solved, %d attempts → %s\n", u.Username, u.Model, w.Solved, len(run.Challenges), w.Attempts, dir)
	}
	if *only != "" && len(report) == 0 {
		return fmt.Errorf("no agent %q", *only)
	}
	if len(report) == 0 {
		text.WriteString("no agent to export\n")
	}
	a.print(report, text.String())
	return nil
}

// writeCybench writes run's Cybench logs into dir, replacing what dir
// held: a task's log changes name when it is solved, and a stale
// "…_fail_…" beside the new "…_success_…" would count twice. The logs are
// written in a directory beside dir, which then takes dir's place.
func writeCybench(dir string, run live.Run) ([]string, error) {
	logs, err := arena.CybenchLogs(run)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var files []string
	for _, l := range logs {
		if err := writeFile(filepath.Join(tmp, l.Name), l.Write); err != nil {
			return nil, err
		}
		files = append(files, filepath.Join(dir, l.Name))
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	return files, os.Rename(tmp, dir)
}

// writeFile writes a file whole or not at all: a half-written export is
// never left under the final name.
func writeFile(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
