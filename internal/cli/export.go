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
)

func (a *app) exportAgents(ctx context.Context, args []string) error {
	fs := a.flags("export agents", "export agents [--out DIR] [--agent USERNAME]")
	out := fs.String("out", "agent-runs", "directory to write into: one directory per agent")
	only := fs.String("agent", "", "export this agent only")
	if err := a.parse(fs, args); err != nil {
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
	now := time.Now()
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
		for _, f := range []struct {
			name  string
			write func(io.Writer) error
		}{
			{"summary.json", func(w io.Writer) error { return arena.WriteSummary(w, run, now) }},
			{"attempts.jsonl", func(w io.Writer) error { return arena.WriteAttempts(w, run) }},
			{"times.csv", func(w io.Writer) error { return arena.WriteTimes(w, run) }},
		} {
			p := filepath.Join(dir, f.name)
			if err := writeFile(p, f.write); err != nil {
				return fmt.Errorf("export %s: %w", u.Username, err)
			}
			w.Files = append(w.Files, p)
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
