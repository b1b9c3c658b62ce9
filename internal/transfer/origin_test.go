package transfer_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// TestOriginAndFlagFormatRoundTrip: a challenge's origin and flag format
// are stored on both engines and a dump loads them back the same.
func TestOriginAndFlagFormatRoundTrip(t *testing.T) {
	const event = `
challenges:
  - slug: 2023q-rev-rox
    title: Rox
    categories: [rev]
    points: 100
    flags: ['csawctf{x}']
    flagFormat: 'csawctf{...}'
    origin: {benchmark: nyu, path: 2023/CSAW-Quals/rev/rox, name: 2023q-rev-rox}
  - {slug: mine, title: Mine, categories: [misc], points: 50, flags: ['flag{m}']}
`
	db := openDB(t)
	mustLoad(t, db, writeFile(t, t.TempDir(), "event.yaml", event))
	snap, err := db.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ctf.Challenge{}
	for _, c := range snap.Challenges {
		got[c.Slug] = c
	}
	if c := got["2023q-rev-rox"]; c.FlagFormat != "csawctf{...}" || c.Origin != (ctf.Origin{Benchmark: "nyu", Path: "2023/CSAW-Quals/rev/rox", Name: "2023q-rev-rox"}) {
		t.Errorf("stored flag format %q, origin %+v", c.FlagFormat, c.Origin)
	}
	if c := got["mine"]; c.FlagFormat != "" || c.Origin != (ctf.Origin{}) {
		t.Errorf("organiser's own challenge: flag format %q, origin %+v; want none", c.FlagFormat, c.Origin)
	}

	first := dump(t, db)
	var out bytes.Buffer
	if err := dataset.Encode(&out, first, "yaml"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "benchmark: nyu") || !strings.Contains(out.String(), "flagFormat: csawctf{...}") {
		t.Errorf("dump lacks the origin or the flag format:\n%s", out.String())
	}
	copyDB := openDB(t)
	mustLoad(t, copyDB, writeFile(t, t.TempDir(), "dump.yaml", out.String()))
	sameDump(t, first, dump(t, copyDB))
	// The dump loads over the same database too: same origins.
	mustLoad(t, db, writeFile(t, t.TempDir(), "dump.yaml", out.String()))
}

// TestLoadRefusesAnotherOrigin: a load never replaces a challenge that came
// from elsewhere (another benchmark, another task, or the organiser's own):
// it is refused naming both, and nothing changes.
func TestLoadRefusesAnotherOrigin(t *testing.T) {
	const first = `
challenges:
  - {slug: ezmaze, title: ezMaze, categories: [misc], points: 100, flags: ['flag{nyu}'],
     origin: {benchmark: nyu, path: 2022/CSAW-Finals/misc/ezMaze}}
  - {slug: mine, title: Mine, categories: [misc], points: 50, flags: ['flag{m}']}
`
	cases := []struct {
		name, entry, want string
	}{
		{"another benchmark", `{slug: ezmaze, title: Ezmaze, categories: [misc], points: 200, flags: ['SEKAI{c}'],
     origin: {benchmark: cybench, path: benchmark/project-sekai-ctf/sekaictf-2022/misc/ezmaze}}`,
			`"ezmaze" is already NYU CTF Bench task 2022/CSAW-Finals/misc/ezMaze; this is Cybench task benchmark/project-sekai-ctf/sekaictf-2022/misc/ezmaze`},
		{"another task of the same benchmark", `{slug: ezmaze, title: ezMaze, categories: [misc], points: 100, flags: ['flag{nyu}'],
     origin: {benchmark: nyu, path: 2023/CSAW-Quals/misc/ezMaze}}`,
			`this is NYU CTF Bench task 2023/CSAW-Quals/misc/ezMaze`},
		{"the organiser's own over a task", `{slug: ezmaze, title: ezMaze, categories: [misc], points: 100, flags: ['flag{nyu}']}`,
			`this is the organiser's own challenge`},
		{"a task over the organiser's own", `{slug: mine, title: Mine, categories: [misc], points: 50, flags: ['flag{m}'],
     origin: {benchmark: cybench, path: benchmark/x/mine}}`,
			`"mine" is already the organiser's own challenge; this is Cybench task benchmark/x/mine`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			mustLoad(t, db, writeFile(t, t.TempDir(), "first.yaml", first))
			before := dump(t, db)
			_, err := loadPaths(t, db, writeFile(t, t.TempDir(), "second.yaml", "challenges:\n  - "+tc.entry+"\n"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("load: %v; want an error containing %q", err, tc.want)
			}
			sameDump(t, before, dump(t, db))
		})
	}
	// The same task again is an update, not a collision.
	db := openDB(t)
	mustLoad(t, db, writeFile(t, t.TempDir(), "first.yaml", first))
	rep := mustLoad(t, db, writeFile(t, t.TempDir(), "again.yaml", strings.Replace(first, "points: 100", "points: 150", 1)))
	if rep.Updated["challenges"] != 1 {
		t.Errorf("report %+v: want one challenge updated", rep)
	}
}

// TestLoadSkipsInvalidChallenges: with SkipInvalid (flagship load
// --skip-invalid) a challenge the database refuses (another origin's slug,
// a handout that cannot be read) is left out and reported, the others load
// in the same transaction; without it the load names every such challenge
// and changes nothing.
func TestLoadSkipsInvalidChallenges(t *testing.T) {
	db := openDB(t)
	mustLoad(t, db, writeFile(t, t.TempDir(), "own.yaml", `
challenges:
  - {slug: taken, title: Taken, categories: [web], points: 10, flags: ['flag{own}']}
  - {slug: nyu-task, title: A, categories: [web], points: 10, flags: ['flag{a}'], origin: {benchmark: nyu, path: 2024/Q/web/a}}
`))
	dir := t.TempDir()
	second := writeFile(t, dir, "second.yaml", `
challenges:
  - {slug: taken, title: Taken, categories: [web], points: 10, flags: ['flag{t}'], origin: {benchmark: cybench, path: benchmark/x/taken}}
  - {slug: fine, title: Fine, categories: [web], points: 10, flags: ['flag{f}']}
  - {slug: nyu-task, title: Other, categories: [web], points: 10, flags: ['flag{n}'], origin: {benchmark: nyu, path: 2024/Q/web/b}}
`)
	before := dump(t, db)
	_, err := loadPaths(t, db, second)
	if err == nil || !strings.Contains(err.Error(), "benchmark/x/taken") || !strings.Contains(err.Error(), "2024/Q/web/b") {
		t.Fatalf("load: %v; want both bad challenges named", err)
	}
	sameDump(t, before, dump(t, db))

	ds, refused, err := dataset.ReadPathsSkipping([]string{second})
	if err != nil || len(refused) != 0 {
		t.Fatalf("read: %v %v", refused, err)
	}
	rep, err := transfer.Load(context.Background(), db, ds)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Created["challenges"] != 1 || len(rep.Refused) != 2 {
		t.Fatalf("report %+v; want fine created, taken and nyu-task refused", rep)
	}
	for i, want := range []string{"slug: \"taken\" is already the organiser's own challenge", "already NYU CTF Bench task 2024/Q/web/a"} {
		if !strings.Contains(rep.Refused[i].Reason, want) {
			t.Errorf("refusal %+v; want %q", rep.Refused[i], want)
		}
	}
	got := map[string]string{}
	for _, c := range dump(t, db).Challenges {
		got[c.Slug] = c.Flags[0].Content
	}
	if len(got) != 3 || got["taken"] != "flag{own}" || got["fine"] != "flag{f}" || got["nyu-task"] != "flag{a}" {
		t.Errorf("challenges after the load: %v", got)
	}
}

// TestEmailUnverifiedRoundTrip: an account that has not confirmed its
// address yet is dumped so (emailUnverified: true), and a load of that dump
// keeps it unable to submit until it confirms; the others stay confirmed.
func TestEmailUnverifiedRoundTrip(t *testing.T) {
	const event = `
users:
  - {username: fresh, email: fresh@example.com, emailUnverified: true}
  - {username: known, email: known@example.com}
`
	db := openDB(t)
	mustLoad(t, db, writeFile(t, t.TempDir(), "event.yaml", event))
	first := dump(t, db)
	var out bytes.Buffer
	if err := dataset.Encode(&out, first, "yaml"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "emailUnverified: true"); n != 1 {
		t.Errorf("the dump says emailUnverified %d times, want once:\n%s", n, out.String())
	}
	copyDB := openDB(t)
	mustLoad(t, copyDB, writeFile(t, t.TempDir(), "dump.yaml", out.String()))
	snap, err := copyDB.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range snap.Users {
		if want := u.Username == "fresh"; u.EmailUnverified != want {
			t.Errorf("%s: emailUnverified %v after dump and load, want %v", u.Username, u.EmailUnverified, want)
		}
	}
	sameDump(t, first, dump(t, copyDB))
}
