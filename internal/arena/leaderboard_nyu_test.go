package arena

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// A Go port of the algorithm of NYU-LLM-CTF/leaderboard_submissions'
// generate_leaderboard.py, so that the tests read our summary.json as the
// leaderboard does. Where the script would stop with an exception
// (KeyError, TypeError, AttributeError, a JSON error), the port returns an
// error naming it; where the script prints "skipping", the port records a
// skip. Nothing of the script's code is copied: this follows its steps.

// nyuRepository prefixes a submission's logs link, as the script does.
const nyuRepository = "https://github.com/NYU-LLM-CTF/leaderboard_submissions/tree/main/"

// nyuCategories are the keys of nyuctf.utils.CATEGORY_SHORT: the
// leaderboard counts solves per one of these, and a solved task of another
// category stops the script (KeyError).
var nyuCategories = []string{"crypto", "forensics", "misc", "pwn", "rev", "web"}

type nyuLeaderboard struct {
	Dataset     map[string]int
	Submissions []nyuSubmission
	Skipped     map[string]string // folder → why the script skips it
}

type nyuSubmission struct {
	Name, Comment, Link, Model, Date any // copied from the metadata as they are
	Logs                             string
	Solved                           int
	PerCategory                      map[string]int
}

// loadNYUDataset reads a dataset JSON as nyuctf's CTFDataset holds it: an
// object of canonical name → task.
func loadNYUDataset(path string) (map[string]map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ds map[string]map[string]any
	if err := json.Unmarshal(b, &ds); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ds, nil
}

// generateNYULeaderboard is the script over basedir/transcripts/*/summary.json.
func generateNYULeaderboard(basedir string, dataset map[string]map[string]any) (nyuLeaderboard, error) {
	lb := nyuLeaderboard{Dataset: map[string]int{}, Skipped: map[string]string{}}
	for _, cat := range nyuCategories {
		for _, task := range dataset {
			if task["category"] == cat {
				lb.Dataset[cat]++
			}
		}
		lb.Dataset[cat] += 0 // a category without tasks is there, at 0
	}
	lb.Dataset["total"] = len(dataset)

	paths, err := filepath.Glob(filepath.Join(basedir, "transcripts", "*", "summary.json"))
	if err != nil {
		return lb, err
	}
	for _, p := range paths {
		folder := filepath.Base(filepath.Dir(p))
		sub, skip, err := nyuSubmissionOf(basedir, p, dataset)
		switch {
		case err != nil:
			return lb, fmt.Errorf("%s: %w", folder, err)
		case skip != "":
			lb.Skipped[folder] = skip
		default:
			lb.Submissions = append(lb.Submissions, sub)
		}
	}
	return lb, nil
}

func nyuSubmissionOf(basedir, path string, dataset map[string]map[string]any) (nyuSubmission, string, error) {
	var sub nyuSubmission
	raw, err := os.ReadFile(path)
	if err != nil {
		return sub, "", err
	}
	var summary any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&summary); err != nil {
		return sub, "", fmt.Errorf("json.loads: %w", err)
	}
	if dec.More() {
		return sub, "", fmt.Errorf("json.loads: extra data after the document")
	}
	top, ok := summary.(map[string]any)
	if !ok {
		return sub, "", fmt.Errorf("TypeError: the summary is a %T, not an object", summary)
	}
	if _, ok := top["metadata"]; !ok {
		return sub, "Metadata not found", nil
	}
	if _, ok := top["results"]; !ok {
		return sub, "Results not found", nil
	}
	metadata, ok := top["metadata"].(map[string]any)
	if !ok {
		return sub, "", fmt.Errorf("TypeError: metadata is a %T, not an object", top["metadata"])
	}
	results, ok := top["results"].(map[string]any)
	if !ok {
		return sub, "", fmt.Errorf("AttributeError: results is a %T, not an object", top["results"])
	}

	sub.PerCategory = map[string]int{}
	for _, c := range nyuCategories {
		sub.PerCategory[c] = 0
	}
	for name, v := range results {
		if !pyTruthy(v) {
			continue
		}
		task, ok := dataset[name]
		if !ok {
			return sub, "", fmt.Errorf("TypeError: solved task %q is not in the dataset (dataset.get gives None)", name)
		}
		cat, ok := task["category"]
		if !ok {
			return sub, "", fmt.Errorf("KeyError: task %q has no category", name)
		}
		catName, _ := cat.(string)
		if _, ok := sub.PerCategory[catName]; !ok {
			return sub, "", fmt.Errorf("KeyError: task %q's category %v is not one of %v", name, cat, nyuCategories)
		}
		sub.Solved++
		sub.PerCategory[catName]++
	}
	for _, k := range []string{"agent", "comment", "link", "model", "date"} {
		if _, ok := metadata[k]; !ok {
			return sub, "", fmt.Errorf("KeyError: metadata has no %q", k)
		}
	}
	sub.Name, sub.Comment, sub.Link, sub.Model, sub.Date = metadata["agent"], metadata["comment"], metadata["link"], metadata["model"], metadata["date"]
	rel, err := filepath.Rel(basedir, path)
	if err != nil {
		return sub, "", err
	}
	sub.Logs = nyuRepository + filepath.ToSlash(rel)
	return sub, "", nil
}

// pyTruthy is Python's truth of a JSON value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// nyuTree lays out a leaderboard_submissions checkout in a temporary
// directory: one folder per submission, each with its summary.json.
func nyuTree(t *testing.T, summaries map[string][]byte) string {
	t.Helper()
	base := t.TempDir()
	for folder, b := range summaries {
		p := filepath.Join(base, "transcripts", folder, "summary.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// TestNYULeaderboard: the leaderboard reads our export as it reads a
// submission written in NYU's own format, beside it.
func TestNYULeaderboard(t *testing.T) {
	dataset, err := loadNYUDataset(filepath.Join("testdata", "nyu", "test_dataset.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ours bytes.Buffer
	if err := WriteNYUSummary(&ours, testRun(), testMeta); err != nil {
		t.Fatal(err)
	}
	base := nyuTree(t, map[string][]byte{
		"example_baseline": readFixture(t, "nyu/transcripts/example_baseline/summary.json"),
		"flagship_pam-bot": ours.Bytes(),
	})
	lb, err := generateNYULeaderboard(base, dataset)
	if err != nil {
		t.Fatal(err)
	}
	if len(lb.Skipped) > 0 {
		t.Fatalf("skipped: %v", lb.Skipped)
	}
	wantDataset := map[string]int{"crypto": 1, "forensics": 1, "misc": 1, "pwn": 1, "rev": 1, "web": 1, "total": 6}
	if !reflect.DeepEqual(lb.Dataset, wantDataset) {
		t.Errorf("dataset %v, want %v", lb.Dataset, wantDataset)
	}
	cats := func(rev, web, pwn, misc int) map[string]int {
		return map[string]int{"crypto": 0, "forensics": 0, "misc": misc, "pwn": pwn, "rev": rev, "web": web}
	}
	want := []nyuSubmission{
		{Name: "Example Baseline", Comment: "pass@5", Link: "https://example.org/baseline/", Model: "example-model-2099-01-01", Date: "2099/01/31",
			Logs: nyuRepository + "transcripts/example_baseline/summary.json", Solved: 3, PerCategory: cats(1, 0, 1, 1)},
		{Name: "Zoë's Agent 🤖", Comment: "pass@1", Link: "https://example.org/agents/zoe?v=1&x=<y>", Model: "claude-sonnet-4-5", Date: "2025/03/08",
			Logs: nyuRepository + "transcripts/flagship_pam-bot/summary.json", Solved: 2, PerCategory: cats(1, 1, 0, 0)},
	}
	if !reflect.DeepEqual(lb.Submissions, want) {
		t.Errorf("submissions\n%+v\nwant\n%+v", lb.Submissions, want)
	}
	// The README asks for the date as YYYY/MM/DD.
	for _, s := range lb.Submissions {
		if d, _ := s.Date.(string); !regexp.MustCompile(`^\d{4}/\d{2}/\d{2}$`).MatchString(d) {
			t.Errorf("%v's date %v is not YYYY/MM/DD", s.Name, s.Date)
		}
	}
}

// TestNYULeaderboardRefuses: the port stops or skips where the script
// does, so a summary it accepts would pass the script.
func TestNYULeaderboardRefuses(t *testing.T) {
	dataset, err := loadNYUDataset(filepath.Join("testdata", "nyu", "test_dataset.json"))
	if err != nil {
		t.Fatal(err)
	}
	good := string(readFixture(t, "nyu/transcripts/example_baseline/summary.json"))
	for _, c := range []struct {
		name, summary, err, skip string
	}{
		{"no comment", strings.Replace(good, `"comment": "pass@5",`, "", 1), `no "comment"`, ""},
		{"no date", strings.Replace(good, `,
    "date": "2099/01/31"`, "", 1), `no "date"`, ""},
		{"an unknown task solved", strings.Replace(good, `"2099q-msc-riddle": true`, `"2099q-msc-unknown": true`, 1), "not in the dataset", ""},
		{"an unknown task failed", strings.Replace(good, `"2099f-for-lost_bits": false`, `"2099f-for-elsewhere": false`, 1), "", ""},
		{"not JSON", good[:40], "json.loads", ""},
		{"results a list", `{"metadata": {}, "results": []}`, "AttributeError", ""},
		{"no metadata", `{"results": {}}`, "", "Metadata not found"},
		{"no results", `{"metadata": {}}`, "", "Results not found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			lb, err := generateNYULeaderboard(nyuTree(t, map[string][]byte{"x": []byte(c.summary)}), dataset)
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("error %v, want one saying %q", err, c.err)
			case c.err == "" && err != nil:
				t.Errorf("error %v", err)
			case c.skip != lb.Skipped["x"]:
				t.Errorf("skipped %q, want %q", lb.Skipped["x"], c.skip)
			}
		})
	}
	// A solved task of a category outside CATEGORY_SHORT.
	odd := map[string]map[string]any{"2099q-hw-chip": {"category": "hardware"}}
	_, err = generateNYULeaderboard(nyuTree(t, map[string][]byte{"x": []byte(
		`{"metadata": {"agent": "a", "comment": "", "link": "", "model": "m", "date": "2099/01/01"}, "results": {"2099q-hw-chip": true}}`)}), odd)
	if err == nil || !strings.Contains(err.Error(), "KeyError") {
		t.Errorf("a solved hardware task: %v", err)
	}
}
