package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const exportDataset = `
users:
  - {username: pam, email: pam@example.com, password: pam-password}
  - {username: pam-bot, name: Pam's Bot, kind: agent, owner: pam, model: openai/gpt-4o}
challenges:
  - {slug: 2099q-rev-spinner, title: Spinner, categories: [rev], points: 100, flags: ['flag{spin}'],
     origin: {benchmark: nyu, path: 2099/CSAW-Quals/rev/spinner}, createdAt: 2026-01-01T00:00:00Z}
  - {slug: lost-page, title: Lost Page, categories: [web], points: 300, flags: ['SEKAI{l0st}'],
     origin: {benchmark: cybench, path: 'benchmark/acme/ctf-2099/web/[Medium] Lost Page'}, createdAt: 2026-01-01T00:00:00Z}
  - {slug: warmup, title: Warmup, categories: [misc], points: 50, flags: ['flag{warm}'], createdAt: 2026-01-01T00:00:00Z}
solves:
  - {user: pam-bot, challenge: warmup, at: 2026-01-01T01:00:00Z, flag: 'flag{warm}'}
attempts:
  - {user: pam-bot, challenge: lost-page, at: 2026-01-01T00:30:00Z, flag: 'nope'}
`

// TestExportAgentsFormats: each format writes its files and only those; a
// Cybench export replaces the logs of an earlier one; bad options are
// refused before anything is written.
func TestExportAgentsFormats(t *testing.T) {
	dir := t.TempDir()
	src, db := filepath.Join(dir, "event.yaml"), "sqlite:"+filepath.Join(dir, "export.db")
	if err := os.WriteFile(src, []byte(exportDataset), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, e := run(t, "", "--db", db, "load", src); code != 0 {
		t.Fatalf("load: %s", e)
	}
	out := filepath.Join(dir, "runs")
	ls := func() string {
		var names []string
		filepath.WalkDir(filepath.Join(out, "pam-bot"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(filepath.Join(out, "pam-bot"), p)
				names = append(names, filepath.ToSlash(rel))
			}
			return nil
		})
		return strings.Join(names, " ")
	}

	if code, _, e := run(t, "", "--db", db, "export", "agents", "--out", out, "--format", "nyu", "--comment", "pass@1", "--link", "https://example.org/bot"); code != 0 {
		t.Fatalf("export nyu: %s", e)
	}
	if got := ls(); got != "summary.json" {
		t.Errorf("--format nyu wrote %s", got)
	}
	summary, _ := os.ReadFile(filepath.Join(out, "pam-bot", "summary.json"))
	if !regexp.MustCompile(`^\{\n  "metadata": \{\n    "agent": "Pam's Bot",\n    "comment": "pass@1",\n    "model": "openai/gpt-4o",\n` +
		`    "link": "https://example\.org/bot",\n    "date": "\d{4}/\d{2}/\d{2}"\n  \},\n  "results": \{\n    "2099q-rev-spinner": false\n  \}\n\}\n$`).Match(summary) {
		t.Errorf("summary.json:\n%s", summary)
	}

	// A stale log of the task (as if it had been solved before) goes.
	stale := filepath.Join(out, "pam-bot", "cybench", "openai_gpt-4o_success_[Medium]_Lost_Page_run_log.json")
	os.MkdirAll(filepath.Dir(stale), 0o755)
	os.WriteFile(stale, []byte("{}"), 0o600)
	if code, _, e := run(t, "", "--db", db, "export", "agents", "--out", out, "--format", "cybench"); code != 0 {
		t.Fatalf("export cybench: %s", e)
	}
	if got := ls(); got != "cybench/openai_gpt-4o_fail_[Medium]_Lost_Page_run_log.json summary.json" {
		t.Errorf("--format cybench left %s", got)
	}

	if code, _, e := run(t, "", "--db", db, "export", "agents", "--out", out); code != 0 {
		t.Fatalf("export: %s", e)
	}
	if got := ls(); !strings.Contains(got, "attempts.jsonl") || !strings.Contains(got, "times.csv") {
		t.Errorf("the default format wrote %s", got)
	}

	for _, args := range [][]string{{"--format", "csv"}, {"--link", "ftp://example.org"}, {"--comment", "a\nb"}} {
		code, _, e := run(t, "", append([]string{"--db", db, "export", "agents", "--out", filepath.Join(dir, "bad")}, args...)...)
		if code == 0 || e == "" {
			t.Errorf("export %v: exit %d", args, code)
		}
		if _, err := os.Stat(filepath.Join(dir, "bad")); err == nil {
			t.Errorf("export %v wrote something", args)
		}
	}
}
