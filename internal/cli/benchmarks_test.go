package cli

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/google/go-cmp/cmp"
)

// TestLoadBenchmarks loads an NYU CTF Bench task and a Cybench task into a
// real SQLite database, reads them back through `dump --json`, and loads the
// same directories again: nothing changes, the packed handout included.
func TestLoadBenchmarks(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) { writeTestFile(t, dir, rel, content) }
	write("nyu/2024/Quals/crypto/twin_keys/challenge.json", `{"name": "Twin Keys", "category": "crypto",
		"description": "Connect: nc {box} {port}", "flag": "flag{tw1n}", "points": 150,
		"files": ["pub.pem", "enc.py"], "box": "crypto.example.org", "internal_port": 4242}`)
	write("nyu/2024/Quals/crypto/twin_keys/pub.pem", "PEM")
	write("nyu/2024/Quals/crypto/twin_keys/enc.py", "print('enc')")
	write("cybench/benchmark/ctf/[Medium] Lost Page/metadata/metadata.json", `{"categories": ["Web"],
		"difficulty": "2", "easy_prompt": "Look at robots.txt.", "hard_prompt": "Find the lost page.",
		"target_host": "lostpage:8080", "subtasks": []}`)
	write("cybench/benchmark/ctf/[Medium] Lost Page/metadata/solution/flag.txt", "SEKAI{l0st}\n")
	write("cybench/benchmark/ctf/[Medium] Lost Page/release/app.js", "app")
	// The runner hands out what init_script.sh copies; a download is not
	// run, and the load report says so.
	write("cybench/benchmark/ctf/[Medium] Lost Page/init_script.sh", "#!/bin/bash\nTMP_DIR=\"$1\"\n"+
		"cp release/app.js \"$TMP_DIR\"\nwget -q https://example.org/extra.bin -O \"$TMP_DIR/extra.bin\"\n")

	db := "sqlite:" + filepath.Join(dir, "bench.db")
	nyu, cybench := filepath.Join(dir, "nyu"), filepath.Join(dir, "cybench")
	var rep struct {
		Created, Updated, Unchanged map[string]int
		Notes                       map[string][]string
	}
	code, out, errOut := run(t, "", "--db", db, "--json", "load", nyu, cybench)
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Created["challenges"] != 2 {
		t.Fatalf("load: %d %s %s", code, out, errOut)
	}
	wantNote := "files given by a script: not loaded (init_script.sh:4: runs wget: " +
		`wget -q https://example.org/extra.bin -O "$TMP_DIR/extra.bin")`
	if diff := cmp.Diff(map[string][]string{"lost-page": {wantNote}}, rep.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}

	code, out, errOut = run(t, "", "--db", db, "--json", "dump")
	if code != 0 {
		t.Fatalf("dump: %s", errOut)
	}
	ds, err := dataset.Decode([]byte(out), "dump.json")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]dataset.Challenge{}
	for _, c := range ds.Challenges {
		got[c.Slug] = c
	}

	// What a benchmark's challenge.yml says, read into a challenge; its
	// file is checked apart.
	type said struct {
		Title, Description string
		Difficulty         ctf.Difficulty
		Categories         []string
		Points             int
		Flags              []dataset.Flag
		HasInstance        bool
		DockerPort         *int
		ConnectionInfo     string
	}
	saidBy := func(c dataset.Challenge) said {
		return said{c.Title, c.Description, c.Difficulty, c.Categories, c.Points, c.Flags, c.HasInstance, c.DockerPort, c.ConnectionInfo}
	}
	port := func(p int) *int { return &p }

	// The slug is NYU's canonical name (2024q-cry-twin_keys) as a slug.
	tk := got["2024q-cry-twin-keys"]
	if diff := cmp.Diff(said{
		Title: "Twin Keys", Description: "Connect: nc crypto.example.org 4242", Difficulty: ctf.Medium,
		Categories: []string{"crypto"}, Points: 150, Flags: []dataset.Flag{{Type: "static", Content: "flag{tw1n}"}},
		HasInstance: true, DockerPort: port(4242), ConnectionInfo: "nc crypto.example.org 4242",
	}, saidBy(tk)); diff != "" {
		t.Errorf("twin-keys (-want +got):\n%s", diff)
	}
	if tk.File == nil || tk.File.Name != "2024q-cry-twin-keys.zip" {
		t.Fatalf("twin-keys file = %+v", tk.File)
	}
	data, _ := base64.StdEncoding.DecodeString(tk.File.ContentBase64)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(zr.File) != 2 || zr.File[0].Name != "enc.py" || zr.File[1].Name != "pub.pem" {
		t.Errorf("twin-keys.zip: %v", err)
	}

	lp := got["lost-page"]
	if diff := cmp.Diff(said{
		Title: "Lost Page", Description: "Find the lost page.", Difficulty: ctf.Medium,
		Categories: []string{"web"}, Points: 200, Flags: []dataset.Flag{{Type: "static", Content: "SEKAI{l0st}"}},
		HasInstance: true, DockerPort: port(8080), ConnectionInfo: "http://lostpage:8080",
	}, saidBy(lp)); diff != "" {
		t.Errorf("lost-page (-want +got):\n%s", diff)
	}
	if lp.File == nil || lp.File.Name != "app.js" || lp.File.ContentBase64 != base64.StdEncoding.EncodeToString([]byte("app")) {
		t.Errorf("lost-page file = %+v", lp.File)
	}

	rep.Created, rep.Updated, rep.Unchanged = nil, nil, nil
	code, out, errOut = run(t, "", "--db", db, "--json", "load", cybench, nyu)
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("second load: %d %s %s", code, out, errOut)
	}
	if len(rep.Created) != 0 || len(rep.Updated) != 0 || rep.Unchanged["challenges"] != 2 {
		t.Errorf("loading the same tasks twice must change nothing: %+v", rep)
	}

	// The text report lists the notes by slug after the counts.
	code, out, errOut = run(t, "", "--db", db, "load", cybench)
	if want := "challenges: 0 created, 0 updated, 1 unchanged\nnotes:\n  lost-page: " + wantNote + "\n"; code != 0 || out != want {
		t.Errorf("text load: %d %q %s\nwant %q", code, out, errOut, want)
	}
}
