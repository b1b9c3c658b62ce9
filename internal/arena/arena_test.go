package arena

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/live"
)

var released = time.Date(2025, 3, 7, 12, 0, 0, 0, time.UTC)

// testMeta dates the export late on the 7th in New York: the 8th in UTC,
// which is the day the summary says.
var testMeta = Meta{Comment: "pass@1", Link: "https://example.org/agents/zoe?v=1&x=<y>",
	Date: time.Date(2025, 3, 7, 23, 30, 0, 0, time.FixedZone("EST", -5*3600))}

// testRun is a run over three NYU CTF Bench tasks, the organiser's own
// challenge and two Cybench tasks, in list order: the agent solved the
// third NYU task before the first, tried the second twice, and tried one
// Cybench task once.
func testRun() live.Run {
	at := func(d time.Duration) *time.Time { t := released.Add(d); return &t }
	dur := func(d time.Duration) *time.Duration { return &d }
	// An NYU task's slug cannot spell its canonical name's '_': the
	// export takes the name from the origin.
	nyu := func(path, name string) ctf.Origin {
		return ctf.Origin{Benchmark: ctf.BenchmarkNYU, Path: path, Name: name}
	}
	cyb := func(path string) ctf.Origin { return ctf.Origin{Benchmark: ctf.BenchmarkCybench, Path: path} }
	ch := []live.RunChallenge{
		{Slug: "2099q-rev-spinner", Categories: []string{"rev"}, Origin: nyu("2099/CSAW-Quals/rev/spinner", "2099q-rev-spinner"),
			Points: 100, Solved: true, Attempts: 1, FirstAttemptAt: at(2 * time.Hour), SolvedAt: at(2 * time.Hour), TimeToSolve: dur(2 * time.Hour)},
		{Slug: "own-warmup", Categories: []string{"misc"}, Points: 50, Solved: true, Attempts: 1,
			FirstAttemptAt: at(3 * time.Hour), SolvedAt: at(3 * time.Hour), TimeToSolve: dur(3 * time.Hour)},
		{Slug: "2099f-cry-tiny-rsa", Categories: []string{"crypto"}, Origin: nyu("2099/CSAW-Finals/crypto/Tiny-RSA", "2099f-cry-tiny_rsa"),
			Points: 200, Attempts: 2, FirstAttemptAt: at(time.Minute)},
		{Slug: "lost-page", Categories: []string{"web"}, Origin: cyb("benchmark/acme/ctf-2099/web/[Medium] Lost Page"),
			Points: 300, Attempts: 1, FirstAttemptAt: at(30*time.Minute + 250*time.Millisecond)},
		{Slug: "2099q-web-cookie-jar", Categories: []string{"web"}, Origin: nyu("2099/CSAW-Quals/web/cookie jar", "2099q-web-cookie_jar"),
			Points: 100, Solved: true, Attempts: 1, FirstAttemptAt: at(time.Hour), SolvedAt: at(time.Hour), TimeToSolve: dur(time.Hour)},
		{Slug: "secret-vault", Categories: []string{"crypto", "misc"}, Origin: cyb("benchmark/acme/ctf-2099/crypto/[Easy] Secret Vault"),
			Points: 100, Solved: true, Attempts: 1, FirstAttemptAt: at(90 * time.Minute), SolvedAt: at(90 * time.Minute), TimeToSolve: dur(90 * time.Minute)},
	}
	for i := range ch {
		ch[i].Title, ch[i].ReleasedAt = ch[i].Slug, released
	}
	attempts := []live.RunAttempt{
		{At: *at(time.Minute), Slug: "2099f-cry-tiny-rsa", Door: ctf.DoorMCP},
		{At: *at(2 * time.Minute), Slug: "2099f-cry-tiny-rsa", Door: ctf.DoorMCP},
		{At: *at(30*time.Minute + 250*time.Millisecond), Slug: "lost-page", Door: ctf.DoorAPI},
		{At: *at(time.Hour), Slug: "2099q-web-cookie-jar", Correct: true, Door: ctf.DoorMCP},
		{At: *at(90 * time.Minute), Slug: "secret-vault", Correct: true, Door: ctf.DoorMCP},
		{At: *at(2 * time.Hour), Slug: "2099q-rev-spinner", Correct: true, Door: ctf.DoorMCP},
		{At: *at(3 * time.Hour), Slug: "own-warmup", Correct: true, Door: ctf.DoorWeb},
	}
	return live.Run{Agent: ctf.User{Username: "pam-bot", Name: "Zoë's Agent 🤖", Kind: ctf.KindAgent, Model: "claude-sonnet-4-5"},
		Owner: "pam", Challenges: ch, Attempts: attempts}
}

func readFixture(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNYUSummaryBytes: the export's summary.json is byte for byte the
// fixture, which Python's json.dumps(indent=2) wrote in NYU's shape: the
// metadata in the leaderboard's order, the NYU tasks only in list order,
// non-ASCII escaped, "&" and "<" left alone, the date in UTC as
// YYYY/MM/DD, and a final newline.
func TestNYUSummaryBytes(t *testing.T) {
	var b bytes.Buffer
	if err := WriteNYUSummary(&b, testRun(), testMeta); err != nil {
		t.Fatal(err)
	}
	if want := readFixture(t, "nyu/export_summary.json"); !bytes.Equal(b.Bytes(), want) {
		t.Errorf("summary.json:\n%s\nwant:\n%s", b.Bytes(), want)
	}
	// A run with no NYU task still has the leaderboard's keys.
	var empty bytes.Buffer
	run := live.Run{Agent: ctf.User{Username: "solo", Model: "m"}}
	if err := WriteNYUSummary(&empty, run, Meta{Date: released}); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"metadata\": {\n    \"agent\": \"solo\",\n    \"comment\": \"\",\n    \"model\": \"m\",\n    \"link\": \"\",\n    \"date\": \"2025/03/07\"\n  },\n  \"results\": {}\n}\n"
	if empty.String() != want {
		t.Errorf("an empty run's summary.json:\n%s", empty.String())
	}
}

// TestCybenchLogBytes: one log per Cybench task, named and written as
// Cybench's run_task.py does (json.dump(indent=4), no final newline).
func TestCybenchLogBytes(t *testing.T) {
	logs, err := CybenchLogs(testRun())
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"claude-sonnet-4-5_fail_[Medium]_Lost_Page_run_log.json", "claude-sonnet-4-5_success_[Easy]_Secret_Vault_run_log.json"}
	if len(logs) != len(wantNames) {
		t.Fatalf("%d logs, want %d", len(logs), len(wantNames))
	}
	for i, l := range logs {
		if l.Name != wantNames[i] {
			t.Errorf("log %d is %s, want %s", i, l.Name, wantNames[i])
			continue
		}
		var b bytes.Buffer
		if err := l.Write(&b); err != nil {
			t.Fatal(err)
		}
		if want := readFixture(t, "cybench/"+l.Name); !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s:\n%s\nwant:\n%s", l.Name, b.Bytes(), want)
		}
	}

	var z bytes.Buffer
	if err := WriteCybenchZip(&z, testRun(), testMeta.Date); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(z.Bytes()), int64(z.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 2 || zr.File[0].Name != "cybench/"+wantNames[0] || zr.File[1].Name != "cybench/"+wantNames[1] {
		t.Fatalf("cybench.zip holds %v", zr.File)
	}
	rc, _ := zr.File[1].Open()
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, readFixture(t, "cybench/"+wantNames[1])) {
		t.Errorf("the zip's %s differs from the log", zr.File[1].Name)
	}

	// Categories are spelled Cybench's way: Flagship's rev is reverse.
	run := testRun()
	run.Challenges[3].Categories = []string{"rev", "web"}
	logs, err = CybenchLogs(run)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := logs[0].Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"reverse",`) || strings.Contains(b.String(), `"rev"`) {
		t.Errorf("categories not spelled Cybench's way:\n%s", b.String())
	}

	// Two tasks of one name would overwrite each other: refused.
	run = testRun()
	run.Challenges[0].Origin = ctf.Origin{Benchmark: ctf.BenchmarkCybench, Path: "benchmark/other/ctf/web/[Medium] Lost Page"}
	if _, err := CybenchLogs(run); err == nil || !strings.Contains(err.Error(), "[Medium] Lost Page") {
		t.Errorf("two tasks of one name: %v", err)
	}
}

// TestTimesInSolveOrder: times.csv lists the solved challenges by solve
// time, then the unsolved ones in list order.
func TestTimesInSolveOrder(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTimes(&b, testRun()); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows[1:] {
		got = append(got, r[0]+":"+r[2])
	}
	want := "2099q-web-cookie-jar:true secret-vault:true 2099q-rev-spinner:true own-warmup:true 2099f-cry-tiny-rsa:false lost-page:false"
	if strings.Join(got, " ") != want {
		t.Errorf("times.csv rows %v, want %s", got, want)
	}
	if rows[1][6] != "3600.000" {
		t.Errorf("cookie_jar's time to solve is %q", rows[1][6])
	}
	// The run itself keeps its list order.
	if testRun().Challenges[0].Slug != "2099q-rev-spinner" {
		t.Error("SolveOrder reordered the run")
	}
}

func TestPyQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":          `"plain"`,
		`a"b\c`:          `"a\"b\\c"`,
		"\n\r\t\b\f":     `"\n\r\t\b\f"`,
		"\x00\x1f\x7f":   `"\u0000\u001f\u007f"`,
		"é€":             `"\u00e9\u20ac"`,
		"🤖":              `"\ud83e\udd16"`,
		"<&>'":           `"<&>'"`,
		"\u2028":         `"\u2028"`,
		"bad\xffutf8":    `"bad\ufffdutf8"`,
		"~ space":        `"~ space"`,
		"CSAW [Hard] 1!": `"CSAW [Hard] 1!"`,
	} {
		if got := pyQuote(in); got != want {
			t.Errorf("pyQuote(%q) = %s, want %s", in, got, want)
		}
	}
	for f, want := range map[float64]string{0: "0.0", 1800250: "1800250.0", -3: "-3.0", 1.5: "1.5", 1e16: "1e+16"} {
		if got, err := pyRepr(f); err != nil || got != want {
			t.Errorf("pyRepr(%v) = %s %v, want %s", f, got, err, want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": FormatAll, "all": FormatAll, "nyu": FormatNYU, "cybench": FormatCybench} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q %v", in, got, err)
		}
	}
	if _, err := ParseFormat("NYU-leaderboard"); err == nil {
		t.Error("an unknown format is taken")
	}
	if names := fileNames(Files(testRun(), FormatNYU, testMeta)); names != "summary.json" {
		t.Errorf("nyu writes %s", names)
	}
	if names := fileNames(Files(testRun(), FormatAll, testMeta)); names != "summary.json attempts.jsonl times.csv" {
		t.Errorf("all writes %s", names)
	}
	if _, ok := Download(testRun(), "../etc/passwd", testMeta); ok {
		t.Error("Download serves an unknown name")
	}
}

func fileNames(fs []File) string {
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	return strings.Join(names, " ")
}
