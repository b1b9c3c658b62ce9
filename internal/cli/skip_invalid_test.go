package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadSkipInvalid: a checkout with bad tasks loads nothing and names
// every bad task, not only the first; with --skip-invalid every valid task
// loads in one go and each bad one is reported with its reason, a task
// whose slug is taken by a challenge of another origin included.
func TestLoadSkipInvalid(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) { writeTestFile(t, dir, rel, content) }
	// Good NYU and Cybench tasks; an NYU task without a flag; a Cybench
	// task without flag.txt; an NYU task with a port out of range.
	write("bench/nyu/2024/Quals/crypto/good_one/challenge.json", `{"name": "Good One", "category": "crypto", "flag": "flag{g}"}`)
	write("bench/nyu/2024/Quals/rev/no_flag/challenge.json", `{"name": "No Flag", "category": "rev"}`)
	write("bench/nyu/2024/Quals/pwn/bad_port/challenge.json", `{"name": "Bad Port", "category": "pwn", "flag": "flag{p}", "internal_port": "99999"}`)
	write("bench/cybench/benchmark/ctf/Fine/metadata/metadata.json", `{"categories": ["misc"], "difficulty": "1", "hard_prompt": "Go."}`)
	write("bench/cybench/benchmark/ctf/Fine/metadata/solution/flag.txt", "flag{fine}")
	write("bench/cybench/benchmark/ctf/Flagless/metadata/metadata.json", `{"categories": ["misc"], "difficulty": "1", "hard_prompt": "Go."}`)
	// The organiser's own challenge with the slug the Cybench task "Taken" gets.
	write("bench/cybench/benchmark/ctf/Taken/metadata/metadata.json", `{"categories": ["web"], "difficulty": "1", "hard_prompt": "Go."}`)
	write("bench/cybench/benchmark/ctf/Taken/metadata/solution/flag.txt", "flag{taken}")
	write("own.yaml", "challenges:\n  - {slug: taken, title: Taken, categories: [web], points: 10, flags: ['flag{own}']}\n")

	db := "sqlite:" + filepath.Join(dir, "skip.db")
	if code, out, errOut := run(t, "", "--db", db, "load", filepath.Join(dir, "own.yaml")); code != 0 {
		t.Fatalf("load own: %s %s", out, errOut)
	}
	bench := filepath.Join(dir, "bench")

	// Without --skip-invalid: nothing loads, and every bad task is named.
	code, _, errOut := run(t, "", "--db", db, "load", bench)
	if code == 0 {
		t.Fatal("a checkout with bad tasks loaded without --skip-invalid")
	}
	for _, want := range []string{"no_flag", "bad_port", "Flagless", "flag.txt"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("error does not name %s:\n%s", want, errOut)
		}
	}
	if n := countChallenges(t, db); n != 1 {
		t.Errorf("%d challenges after a refused load; want the organiser's 1", n)
	}

	// With --skip-invalid: the two good tasks load, four are refused.
	code, out, errOut := run(t, "", "--db", db, "--json", "load", "--skip-invalid", bench)
	if code != 0 {
		t.Fatalf("load --skip-invalid: %d %s %s", code, out, errOut)
	}
	var rep struct {
		Created map[string]int
		Refused []struct{ File, Entry, Slug, Reason string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rep.Created["challenges"] != 2 {
		t.Errorf("created %v; want the 2 valid tasks", rep.Created)
	}
	want := map[string]string{"no_flag": "flag: required", "bad_port": "internal_port", "Flagless": "flag.txt",
		"Taken": `"taken" is already the organiser's own challenge; this is Cybench task`}
	if len(rep.Refused) != len(want) {
		t.Errorf("refused %+v; want %d", rep.Refused, len(want))
	}
	for _, r := range rep.Refused {
		for dirName, reason := range want {
			if strings.Contains(r.File, dirName) && !strings.Contains(r.Reason, reason) {
				t.Errorf("%s refused for %q; want %q", r.File, r.Reason, reason)
			}
		}
	}
	if n := countChallenges(t, db); n != 3 {
		t.Errorf("%d challenges; want the organiser's and the 2 valid tasks", n)
	}
	// The text report lists each refused task.
	_, out, _ = run(t, "", "--db", db, "load", "--skip-invalid", bench)
	if !strings.Contains(out, "refused:    4 challenges, left out:") || strings.Count(out, "\n  ") != 4 {
		t.Errorf("text report:\n%s", out)
	}
}

func countChallenges(t *testing.T, db string) int {
	t.Helper()
	code, out, errOut := run(t, "", "--db", db, "--json", "dump")
	if code != 0 {
		t.Fatalf("dump: %s", errOut)
	}
	var ds struct{ Challenges []json.RawMessage }
	if err := json.Unmarshal([]byte(out), &ds); err != nil {
		t.Fatal(err)
	}
	return len(ds.Challenges)
}

// writeTestFile writes content to rel (slash-separated) under dir, making
// its directories.
func writeTestFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
