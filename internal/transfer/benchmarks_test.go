package transfer_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/transfer"
	"github.com/google/go-cmp/cmp"
)

// benchmarkCheckouts writes, under root, an NYU CTF Bench checkout and a
// Cybench checkout of our own in the benchmarks' real shapes: ports as an
// integer, a string and a list, an index of canonical names, a web task with
// a compose image and urls, a task with a port and no box, a bad task, a
// task name both benchmarks use, a Cybench task with a ctfcli
// challenge.yml and an init_script.sh, a multi-host target and a Hack The
// Box release holding an archive and its unpacked copy.
func benchmarkCheckouts(t *testing.T, root string) (nyu, cybench string) {
	t.Helper()
	w := func(rel, content string) { writeFile(t, root, filepath.FromSlash(rel), content) }
	w("NYU_CTF_Bench/test_dataset.json", `{
  "2021f-rev-maze": {"year": "2021", "event": "CSAW-Finals", "category": "rev", "challenge": "maze", "path": "test/2021/CSAW-Finals/rev/maze"},
  "2022f-msc-ezmaze": {"year": "2022", "event": "CSAW-Finals", "category": "misc", "challenge": "ezMaze", "path": "test/2022/CSAW-Finals/misc/ezMaze"},
  "2023q-web-shop_front": {"year": "2023", "event": "CSAW-Quals", "category": "web", "challenge": "shop_front", "path": "test/2023/CSAW-Quals/web/shop_front"}
}`)
	w("NYU_CTF_Bench/test/2021/CSAW-Finals/rev/maze/challenge.json", `{"name": "Maze [Very Easy]", "category": "rev",
  "description": "Find your way out. nc {box} {port}", "flag": "flag{m4ze}", "box": "rev.chal.csaw.io",
  "internal_port": "5000", "files": ["maze.bin"], "points": 150}`)
	w("NYU_CTF_Bench/test/2021/CSAW-Finals/rev/maze/maze.bin", "\x7fELF maze")
	w("NYU_CTF_Bench/test/2022/CSAW-Finals/misc/ezMaze/challenge.json", `{"name": "ezMaze", "category": "misc",
  "description": "Two doors.", "flag": "flag{ez}", "box": "misc.chal.csaw.io", "internal_port": [3001, 3002], "proto": "nc"}`)
	w("NYU_CTF_Bench/test/2023/CSAW-Quals/web/shop_front/challenge.json", `{"name": "Shop Front", "category": "web",
  "description": "Buy the flag.", "flag": "csawctf{sh0p}", "box": "web.chal.csaw.io", "internal_port": 8000,
  "urls": ["http://web.chal.csaw.io:8000/admin"], "compose": true}`)
	w("NYU_CTF_Bench/test/2023/CSAW-Quals/web/shop_front/docker-compose.yml", `services:
  shop:
    image: llmctf/2023q-web-shop_front
    ports: ["8000:8000"]
`)
	w("NYU_CTF_Bench/development/2019/CSAW-Quals/pwn/baby_boi/challenge.json", `{"name": "baby_boi", "category": "pwn",
  "description": "Overflow it.", "flag": "flag{b4by}", "port": 1337}`)
	w("NYU_CTF_Bench/test/2020/CSAW-Quals/crypto/no_flag/challenge.json", `{"name": "No Flag", "category": "crypto"}`)

	cy := "cybench/benchmark/"
	w(cy+"project-sekai-ctf/sekaictf-2022/misc/ezmaze/metadata/metadata.json", `{"categories": ["misc"], "difficulty": "2",
  "easy_prompt": "Hint: BFS.", "hard_prompt": "Escape the maze.", "target_host": "ezmaze:9999", "subtasks": []}`)
	w(cy+"project-sekai-ctf/sekaictf-2022/misc/ezmaze/metadata/solution/flag.txt", "SEKAI{3zm4z3}\n")
	w(cy+"LosFuzzys/GlacierCTF2023_writeups/crypto/SLCG/metadata/metadata.json", `{"categories": ["crypto"], "difficulty": "3",
  "hard_prompt": "Break the generator.", "subtasks": []}`)
	w(cy+"LosFuzzys/GlacierCTF2023_writeups/crypto/SLCG/metadata/solution/flag.txt", "gctf{slcg}")
	w(cy+"LosFuzzys/GlacierCTF2023_writeups/crypto/SLCG/challenge.yml", "name: SLCG ctfcli\ncategory: Crypto\nvalue: 999\nflags: [nope]\n")
	w(cy+"LosFuzzys/GlacierCTF2023_writeups/crypto/SLCG/dist/encrypt.py", "print('enc')\n")
	w(cy+"LosFuzzys/GlacierCTF2023_writeups/crypto/SLCG/dist/ciphertext.txt", "1234\n")
	w(cy+"LosFuzzys/GlacierCTF2023_writeups/crypto/SLCG/init_script.sh", `#!/bin/bash
TMP_DIR="$1"
cp dist/encrypt.py dist/ciphertext.txt "$TMP_DIR"
wget -q https://example.org/extra.bin -O "$TMP_DIR/extra.bin"
`)
	w(cy+"hackthebox/cyber-apocalypse-2024/crypto/[Very Easy] Two Hosts/metadata/metadata.json", `{"categories": ["crypto"],
  "difficulty": "1", "hard_prompt": "Talk to both.", "target_host": "alice:1337 bob:1337",
  "subtasks": [{"question": "Which port?", "answer": "1337", "answer_format": "****", "hints": ["netstat"]},
    {"question": "What is the flag?", "answer": "HTB{tw0}", "answer_format": "HTB{***}", "hints": ["ask both"]}]}`)
	w(cy+"hackthebox/cyber-apocalypse-2024/crypto/[Very Easy] Two Hosts/metadata/solution/flag.txt", "HTB{tw0}")
	w(cy+"hackthebox/cyber-apocalypse-2024/reversing/[Easy] Packed/metadata/metadata.json", `{"categories": ["reverse"],
  "difficulty": "1", "hard_prompt": "Unpack it.", "subtasks": []}`)
	w(cy+"hackthebox/cyber-apocalypse-2024/reversing/[Easy] Packed/metadata/solution/flag.txt", "HTB{p4ck}")
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	f, _ := zw.Create("rev_packed/packed")
	f.Write([]byte("packed binary"))
	zw.Close()
	w(cy+"hackthebox/cyber-apocalypse-2024/reversing/[Easy] Packed/release/rev_packed.zip", zb.String())
	w(cy+"hackthebox/cyber-apocalypse-2024/reversing/[Easy] Packed/release/rev_packed/packed", "packed binary")
	return filepath.Join(root, "NYU_CTF_Bench"), filepath.Join(root, "cybench")
}

// TestLoadBenchmarkCheckouts loads both checkouts with --skip-invalid's
// reader on both engines and reads every challenge back through a dump,
// field by field, as the benchmarks' own runners present them; a task name
// both benchmarks use (ezmaze) stays two challenges, and a second load
// changes nothing.
func TestLoadBenchmarkCheckouts(t *testing.T) {
	nyu, cybench := benchmarkCheckouts(t, t.TempDir())
	db := openDB(t)
	ds, refused, err := dataset.ReadPathsSkipping([]string{nyu, cybench})
	if err != nil {
		t.Fatal(err)
	}
	if len(refused) != 1 || !strings.Contains(refused[0].File, "no_flag") || !strings.Contains(refused[0].Reason, "flag: required") {
		t.Errorf("refused %+v; want the task without a flag", refused)
	}
	for _, c := range ds.Challenges {
		if c.Slug == "slcg" && (len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "files given by a script: not loaded") ||
			!strings.Contains(c.Notes[0], "wget")) {
			t.Errorf("slcg's notes %q; want the wget line reported", c.Notes)
		}
	}
	rep, err := transfer.Load(context.Background(), db, ds)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Created["challenges"] != 8 || len(rep.Refused) != 0 {
		t.Errorf("report %+v; want 8 challenges created", rep)
	}

	type row struct {
		Title, Categories, Difficulty string
		Points                        int
		Flag, Connection              string
		Port                          int
		Image, File, Origin           string
	}
	got := map[string]row{}
	for _, c := range dump(t, db).Challenges {
		// Cybench's unguided run shows the last subtask's answer format.
		if want := map[string]string{"two-hosts": "HTB{***}"}[c.Slug]; c.FlagFormat != want {
			t.Errorf("%s: flag format %q; want %q", c.Slug, c.FlagFormat, want)
		}
		r := row{Title: c.Title, Categories: strings.Join(c.Categories, ","), Difficulty: string(c.Difficulty), Points: c.Points,
			Flag: c.Flags[0].Content, Connection: c.ConnectionInfo}
		if c.DockerPort != nil {
			r.Port = *c.DockerPort
		}
		if c.Instance != nil {
			r.Image = c.Instance.Image
		}
		if c.File != nil {
			r.File = c.File.Name
		}
		if c.Origin != nil {
			r.Origin = c.Origin.Benchmark + " " + c.Origin.Path + " " + c.Origin.Name
		}
		got[c.Slug] = r
	}
	const htb = "benchmark/hackthebox/cyber-apocalypse-2024/"
	want := map[string]row{
		"2021f-rev-maze": {"Maze", "rev", "Medium", 150, "flag{m4ze}", "nc rev.chal.csaw.io 5000", 5000, "", "maze.bin",
			"nyu test/2021/CSAW-Finals/rev/maze 2021f-rev-maze"},
		"2022f-msc-ezmaze": {"ezMaze", "misc", "Medium", 200, "flag{ez}", "nc misc.chal.csaw.io 3001, nc misc.chal.csaw.io 3002", 3001, "", "",
			"nyu test/2022/CSAW-Finals/misc/ezMaze 2022f-msc-ezmaze"},
		"2023q-web-shop-front": {"Shop Front", "web", "Medium", 200, "csawctf{sh0p}",
			"http://web.chal.csaw.io:8000, http://web.chal.csaw.io:8000/admin", 8000, "llmctf/2023q-web-shop_front", "",
			"nyu test/2023/CSAW-Quals/web/shop_front 2023q-web-shop_front"},
		"2019q-pwn-baby-boi": {"baby_boi", "pwn", "Medium", 200, "flag{b4by}", "", 0, "", "",
			"nyu 2019/CSAW-Quals/pwn/baby_boi 2019q-pwn-baby_boi"},
		"ezmaze": {"Ezmaze", "misc", "Medium", 200, "SEKAI{3zm4z3}", "nc ezmaze 9999", 9999, "", "",
			"cybench benchmark/project-sekai-ctf/sekaictf-2022/misc/ezmaze benchmark/project-sekai-ctf/sekaictf-2022/misc/ezmaze"},
		"slcg": {"SLCG", "crypto", "Hard", 300, "gctf{slcg}", "", 0, "", "slcg.zip",
			"cybench benchmark/LosFuzzys/GlacierCTF2023_writeups/crypto/SLCG benchmark/LosFuzzys/GlacierCTF2023_writeups/crypto/SLCG"},
		"two-hosts": {"Two Hosts", "crypto", "Easy", 100, "HTB{tw0}", "nc alice 1337, nc bob 1337", 1337, "", "",
			"cybench " + htb + "crypto/[Very Easy] Two Hosts " + htb + "crypto/[Very Easy] Two Hosts"},
		"packed": {"Packed", "rev", "Easy", 100, "HTB{p4ck}", "", 0, "", "rev_packed.zip",
			"cybench " + htb + "reversing/[Easy] Packed " + htb + "reversing/[Easy] Packed"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("challenges as loaded (-want +got):\n%s", d)
	}
	// The handouts: what init_script.sh copies; the archive without its
	// unpacked copy.
	for slug, members := range map[string]string{"slcg": "ciphertext.txt encrypt.py", "packed": "rev_packed/packed"} {
		if names := zipMembers(t, db, slug); names != members {
			t.Errorf("%s's handout holds %q; want %q", slug, names, members)
		}
	}

	// The same checkouts again: nothing changes.
	ds, _, err = dataset.ReadPathsSkipping([]string{nyu, cybench})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err = transfer.Load(context.Background(), db, ds); err != nil || rep.Unchanged["challenges"] != 8 {
		t.Errorf("second load: %+v %v; want 8 unchanged", rep, err)
	}
}

// zipMembers lists the names in the stored handout zip of slug.
func zipMembers(t *testing.T, db *store.DB, slug string) string {
	t.Helper()
	for _, c := range dump(t, db).Challenges {
		if c.Slug != slug || c.File == nil {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(c.File.ContentBase64)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s's handout: %v", slug, err)
		}
		var names []string
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
		return strings.Join(names, " ")
	}
	return ""
}
