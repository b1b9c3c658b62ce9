package web_test

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
)

// exportEvent: pam runs pam-bot, which solved an NYU CTF Bench task after
// a wrong flag on a Cybench task; the organiser's own challenge is left
// untried. Times are in the past so every challenge is released.
const exportEvent = `
users:
  - {username: root, email: root@example.com, password: root-password, role: admin}
  - {username: pam, email: pam@example.com, password: pam-password}
  - {username: evil, email: evil@example.com, password: evil-password}
  - {username: pam-bot, kind: agent, owner: pam, model: claude-sonnet-4-5, harness: react}
challenges:
  - {slug: 2099q-rev-spinner, title: Spinner, categories: [rev], points: 100, flags: ['flag{spin}'],
     origin: {benchmark: nyu, path: 2099/CSAW-Quals/rev/spinner}, createdAt: 2026-01-01T00:00:00Z}
  - {slug: lost-page, title: Lost Page, categories: [web], points: 300, flags: ['SEKAI{l0st}'],
     origin: {benchmark: cybench, path: 'benchmark/acme/ctf-2099/web/[Medium] Lost Page'}, createdAt: 2026-01-01T00:00:00Z}
  - {slug: warmup, title: Warmup, categories: [misc], points: 50, flags: ['flag{warm}'], createdAt: 2026-01-01T00:00:00Z}
solves:
  - {user: pam-bot, challenge: 2099q-rev-spinner, at: 2026-01-01T02:00:00Z, flag: 'flag{spin}', door: mcp}
attempts:
  - {user: pam-bot, challenge: lost-page, at: 2026-01-01T00:30:00Z, flag: 'nope', door: api}
`

// TestAgentRunDownloads: the owner and an admin download each file of the
// agent's run from the web app, with its type, as an attachment; anyone
// else is refused, and an unknown file or a bad link is a clear error.
func TestAgentRunDownloads(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, exportEvent)
	pam := newBrowser(t, s)
	base := "/settings/agents/pam-bot/export/"
	want(t, "signed out", pam.get(base+"summary.json"), http.StatusSeeOther)
	pam.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})
	want(t, "the agents page offers the files", pam.get("/settings/agents"), 200,
		`action="/settings/agents/pam-bot/export/summary.json"`, `href="/settings/agents/pam-bot/export/cybench.zip"`,
		`href="/settings/agents/pam-bot/export/attempts.jsonl"`, `href="/settings/agents/pam-bot/export/times.csv"`)
	want(t, "the profile offers them to the owner", pam.get("/users/"+mustUser(t, s, "pam-bot")), 200, `href="/settings/agents/pam-bot/export/summary.json"`)

	download := func(b *browser, file, contentType string) []byte {
		t.Helper()
		p := b.get(base + file)
		if p.status != 200 {
			t.Fatalf("%s: %d %.500s", file, p.status, p.body)
		}
		if got := p.header.Get("Content-Type"); got != contentType {
			t.Errorf("%s: Content-Type %q, want %q", file, got, contentType)
		}
		if got, want := p.header.Get("Content-Disposition"), "attachment; filename=pam-bot-"+strings.SplitN(file, "?", 2)[0]; got != want {
			t.Errorf("%s: Content-Disposition %q, want %q", file, got, want)
		}
		return []byte(p.body)
	}

	// summary.json: NYU's shape, the NYU task only, today's date.
	summary := download(pam, "summary.json?comment=pass%401&link=https%3A%2F%2Fexample.org%2Fbot", "application/json")
	date := regexp.MustCompile(`"date": "(\d{4}/\d{2}/\d{2})"`).FindSubmatch(summary)
	if date == nil || (string(date[1]) != time.Now().UTC().Format("2006/01/02") && string(date[1]) != time.Now().UTC().Add(-time.Minute).Format("2006/01/02")) {
		t.Fatalf("summary.json is not dated today:\n%s", summary)
	}
	wantSummary := "{\n  \"metadata\": {\n    \"agent\": \"pam-bot\",\n    \"comment\": \"pass@1\",\n    \"model\": \"claude-sonnet-4-5\",\n" +
		"    \"link\": \"https://example.org/bot\",\n    \"date\": \"" + string(date[1]) + "\"\n  },\n" +
		"  \"results\": {\n    \"2099q-rev-spinner\": true\n  }\n}\n"
	if string(summary) != wantSummary {
		t.Errorf("summary.json:\n%s\nwant:\n%s", summary, wantSummary)
	}

	// attempts.jsonl: one JSON object a line, in time order.
	lines := strings.Split(strings.TrimSpace(string(download(pam, "attempts.jsonl", "application/x-ndjson"))), "\n")
	if len(lines) != 2 {
		t.Fatalf("attempts.jsonl: %q", lines)
	}
	for i, w := range []struct {
		challenge string
		correct   bool
	}{{"lost-page", false}, {"2099q-rev-spinner", true}} {
		var a struct {
			Challenge string
			Correct   bool
		}
		if err := json.Unmarshal([]byte(lines[i]), &a); err != nil || a.Challenge != w.challenge || a.Correct != w.correct {
			t.Errorf("attempts.jsonl line %d: %s %v", i+1, lines[i], err)
		}
	}

	// times.csv: the header, the solved challenge first, then the others
	// in list order.
	rows, err := csv.NewReader(bytes.NewReader(download(pam, "times.csv", "text/csv; charset=utf-8"))).ReadAll()
	if err != nil || len(rows) != 4 || rows[0][0] != "challenge" || rows[1][0] != "2099q-rev-spinner" || rows[1][2] != "true" || rows[1][6] != "7200.000" {
		t.Errorf("times.csv: %v %v", rows, err)
	}

	// cybench.zip: a run log per Cybench task.
	z := download(pam, "cybench.zip", "application/zip")
	zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil || len(zr.File) != 1 || zr.File[0].Name != "cybench/claude-sonnet-4-5_fail_[Medium]_Lost_Page_run_log.json" {
		t.Fatalf("cybench.zip: %v %v", zr, err)
	}
	rc, _ := zr.File[0].Open()
	var log struct {
		Task       struct{ Path string } `json:"task"`
		NumCorrect int                   `json:"num_correct_subtasks"`
		NumSub     int                   `json:"num_subtasks"`
		Taken      float64               `json:"time_taken_in_ms"`
	}
	if err := json.NewDecoder(rc).Decode(&log); err != nil || log.Task.Path != "benchmark/acme/ctf-2099/web/[Medium] Lost Page" ||
		log.NumCorrect != 0 || log.NumSub != 1 || log.Taken != 1800000 {
		t.Errorf("the Cybench log: %+v %v", log, err)
	}
	rc.Close()

	// Errors: an unknown file, a link that is no address.
	want(t, "an unknown file", pam.get(base+"secrets.txt"), 404)
	want(t, "a bad link", pam.get(base+"summary.json?link=javascript:alert(1)"), 400, "link")

	// An admin downloads too; another player, and a person's name, are refused.
	root := newBrowser(t, s)
	root.post("/login", url.Values{"username": {"root"}, "password": {"root-password"}})
	download(root, "times.csv", "text/csv; charset=utf-8")
	want(t, "the profile offers them to an admin", root.get("/users/"+mustUser(t, s, "pam-bot")), 200, `href="/settings/agents/pam-bot/export/times.csv"`)
	evil := newBrowser(t, s)
	evil.post("/login", url.Values{"username": {"evil"}, "password": {"evil-password"}})
	for _, f := range []string{"summary.json", "attempts.jsonl", "times.csv", "cybench.zip"} {
		want(t, "someone else's agent: "+f, evil.get(base+f), 403)
	}
	if strings.Contains(evil.get("/users/"+mustUser(t, s, "pam-bot")).body, "/export/") {
		t.Error("the profile offers the run to another player")
	}
	want(t, "a person's name", root.get("/settings/agents/pam/export/times.csv"), 404)
}
