package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
)

// readTask reads one task directory through ReadPaths and returns its
// challenge.
func readTask(t *testing.T, dir string) Challenge {
	t.Helper()
	ds, err := ReadPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Challenges) != 1 {
		t.Fatalf("%d challenges, want 1", len(ds.Challenges))
	}
	return ds.Challenges[0]
}

func TestReadNYUTask(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // relative to the task directory; "../x" lands beside it
		want  Challenge         // Source, File.Path and File.Root are filled in
		pack  map[string]string // the zip's files when the handout is packed
	}{
		{"one file, placeholders, box and port",
			map[string]string{"challenge.json": `{"name": "Baby Pwn", "category": "PWN", "author": "osiris",
				"description": "nc {box} {port}, or {{box}} and {other}", "flag": " flag{one} ",
				"files": ["dist/baby"], "box": "pwn.example.org", "internal_port": 9001, "compose": true,
				"reference": "ignored"}`, "dist/baby": "ELF"},
			Challenge{Slug: "task", Title: "Baby Pwn", Categories: []string{"pwn"}, Author: "osiris",
				Description: "nc pwn.example.org 9001, or {box} and {other}", Difficulty: ctf.Medium, Points: 200,
				Type: "standard", Flags: []Flag{{"static", "flag{one}", ""}}, HasInstance: true, DockerPort: intp(9001),
				ConnectionInfo: "nc pwn.example.org 9001", File: &File{Name: "baby", Path: "dist/baby"}}, nil},
		{"several files packed, no box: no service (NYU's runner tells of none), initial, flag object",
			map[string]string{"challenge.json": `{"name": "Two", "category": "crypto", "description": "at {box}:{port}",
				"flag": {"content": "flag{two}"}, "initial": 350, "difficulty": "hard", "port": 31337,
				"files": ["b.py", "out/", "a.txt", "b.py"]}`,
				"a.txt": "A", "b.py": "B", "out/c.bin": "C", "out/.hidden": "H"},
			Challenge{Slug: "task", Title: "Two", Categories: []string{"crypto"}, Description: "at {box}:31337",
				Difficulty: ctf.Hard, Points: 350, Type: "standard", Flags: []Flag{{"static", "flag{two}", ""}},
				File: &File{Name: "task.zip", Pack: []string{"a.txt", "b.py", "out/c.bin"}}},
			map[string]string{"a.txt": "A", "b.py": "B", "out/c.bin": "C"}},
		{"the port as a string, as NYU's own README writes it",
			map[string]string{"challenge.json": `{"name": "Maze", "category": "rev", "description": "nc {box} {port}",
				"flag": "flag{m}", "box": "rev.example.org", "internal_port": "5000"}`},
			Challenge{Slug: "task", Title: "Maze", Categories: []string{"rev"}, Description: "nc rev.example.org 5000",
				Difficulty: ctf.Medium, Points: 200, Type: "standard", Flags: []Flag{{"static", "flag{m}", ""}},
				HasInstance: true, DockerPort: intp(5000), ConnectionInfo: "nc rev.example.org 5000"}, nil},
		{"a list of ports: the first is the service's, every one is listed; web: URLs",
			map[string]string{"challenge.json": `{"name": "Duo", "category": "web", "description": "port {port}",
				"flag": "flag{d}", "box": "web.example.org", "internal_port": [3001, "3002"]}`},
			Challenge{Slug: "task", Title: "Duo", Categories: []string{"web"}, Description: "port 3001",
				Difficulty: ctf.Medium, Points: 200, Type: "standard", Flags: []Flag{{"static", "flag{d}", ""}},
				HasInstance: true, DockerPort: intp(3001), ConnectionInfo: "http://web.example.org:3001, http://web.example.org:3002"}, nil},
		{"no port, no files, no category: the directory above",
			map[string]string{"challenge.json": `{"name": "Static", "description": "{port} stays; {box} too",
				"flag": "flag{s}", "points": 0, "difficulty": 5}`},
			Challenge{Slug: "task", Title: "Static", Categories: []string{"forensics"}, Description: "{port} stays; {box} too",
				Difficulty: ctf.Insane, Points: 0, Type: "standard", Flags: []Flag{{"static", "flag{s}", ""}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "forensics", "task")
			for rel, content := range tt.files {
				writeFile(t, dir, rel, content)
			}
			got := readTask(t, dir)
			want := tt.want
			want.Source = Source{File: filepath.Join(dir, "challenge.json"), Index: -1}
			if want.File != nil {
				f := *want.File
				f.Root = dir
				if f.Path != "" {
					f.Path = filepath.Join(dir, filepath.FromSlash(f.Path))
				}
				want.File = &f
			}
			got.Origin = nil // TestBenchmarkOrigin
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if tt.pack != nil {
				data, err := ReadFile(got.File)
				if err != nil {
					t.Fatal(err)
				}
				names, content, _ := unzip(t, data)
				if !slices.IsSorted(names) || !reflect.DeepEqual(content, tt.pack) {
					t.Errorf("zip holds %v %v, want %v", names, content, tt.pack)
				}
			}
		})
	}
}

func TestReadCybenchTask(t *testing.T) {
	meta := func(extra string) string {
		return `{"categories": ["Crypto", "crypto", "Misc"], "easy_prompt": "easy: use the hint", ` + extra + `,
			"tools": {"terminal": []}, "internet": {"useful": false}}`
	}
	tests := []struct {
		name, dir string
		files     map[string]string
		want      Challenge
	}{
		{"hard prompt, target host, one release file", "[Very Easy] Baby_Cipher",
			map[string]string{"metadata/metadata.json": meta(`"difficulty": 1, "hard_prompt": "Decrypt **it**.",
				"target_host": "cipher:1337", "subtasks": [{"question": "q?"}]`),
				"metadata/solution/flag.txt": "HTB{b4by}\n", "release/output.txt": "ct"},
			Challenge{Slug: "baby-cipher", Title: "Baby Cipher", Categories: []string{"crypto", "misc"},
				Description: "Decrypt **it**.", Difficulty: ctf.Easy, Points: 100, Type: "standard",
				Flags: []Flag{{"static", "HTB{b4by}", ""}}, HasInstance: true, DockerPort: intp(1337),
				ConnectionInfo: "nc cipher 1337", File: &File{Name: "output.txt", Path: "release/output.txt"}}},
		{"easy prompt when no hard one, several release files, host without port", "05-motp",
			map[string]string{"metadata/metadata.json": meta(`"difficulty": "3", "hard_prompt": "", "target_host": "otp"`),
				"metadata/solution/flag.txt": "flag{otp}", "release/src/app.py": "app", "release/README": "r",
				"release/.DS_Store": "x", "challenge/challenge.json": `{"not": "read"}`},
			Challenge{Slug: "05-motp", Title: "05 motp", Categories: []string{"crypto", "misc"},
				Description: "easy: use the hint", Difficulty: ctf.Hard, Points: 300, Type: "standard",
				Flags: []Flag{{"static", "flag{otp}", ""}}, File: &File{Name: "05-motp.zip", Pack: []string{"release/README", "release/src/app.py"}, PackDir: "release"}}},
		{"first subtask's question when no prompt, no release dir", "rpgo",
			map[string]string{"metadata/metadata.json": `{"categories": "rev", "difficulty": "Expert",
				"subtasks": [{"subtask": "s", "question": "What is the flag?", "answer": "x"}, {"question": "no"}]}`,
				"metadata/solution/flag.txt": "gctf{r}"},
			Challenge{Slug: "rpgo", Title: "Rpgo", Categories: []string{"rev"}, Description: "What is the flag?",
				Difficulty: ctf.Insane, Points: 500, Type: "standard", Flags: []Flag{{"static", "gctf{r}", ""}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), tt.dir)
			for rel, content := range tt.files {
				writeFile(t, dir, rel, content)
			}
			got := readTask(t, dir)
			want := tt.want
			want.Source = Source{File: filepath.Join(dir, "metadata", "metadata.json"), Index: -1}
			if want.File != nil {
				f := *want.File
				f.Root = filepath.Join(dir, f.Root)
				if f.Path != "" {
					f.Path = filepath.Join(dir, filepath.FromSlash(f.Path))
				}
				want.File = &f
			}
			got.Origin = nil // TestBenchmarkOrigin
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
			if got.File != nil && len(got.File.Pack) > 0 {
				// Named in the archive as in release/, without it.
				data, err := ReadFile(got.File)
				if err != nil {
					t.Fatal(err)
				}
				if names, _, _ := unzip(t, data); !reflect.DeepEqual(names, []string{"README", "src/app.py"}) {
					t.Errorf("the archive holds %v", names)
				}
			}
		})
	}
}

func TestBenchmarkDifficulty(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  ctf.Difficulty
	}{
		{"0", ctf.Easy}, {"1", ctf.Easy}, {"2", ctf.Medium}, {"3", ctf.Hard}, {"4", ctf.Insane}, {"5", ctf.Insane},
		{`"2"`, ctf.Medium}, {`"Very  Easy"`, ctf.Easy}, {`"EASY"`, ctf.Easy}, {`"medium"`, ctf.Medium},
		{`"Hard"`, ctf.Hard}, {`"insane"`, ctf.Insane}, {`"Expert"`, ctf.Insane}, {`"master"`, ctf.Insane},
		{"6", ""}, {"-1", ""}, {"2.5", ""}, {`"extreme"`, ""}, {"[1]", ""},
	} {
		t.Run(tt.value, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "metadata/metadata.json", `{"categories": ["web"], "difficulty": `+tt.value+`}`)
			writeFile(t, dir, "metadata/solution/flag.txt", "f")
			ds, err := ReadPaths([]string{dir})
			var e *Error
			switch {
			case tt.want == "" && (!errors.As(err, &e) || e.Field != "difficulty"):
				t.Errorf("err = %v, want one on difficulty", err)
			case tt.want != "" && err != nil:
				t.Error(err)
			case tt.want != "" && ds.Challenges[0].Difficulty != tt.want:
				t.Errorf("difficulty = %q, want %q", ds.Challenges[0].Difficulty, tt.want)
			}
		})
	}
}

// TestReadBenchmarkCheckout: a directory of many tasks of both benchmarks
// and ctfcli loads them all; a task's subdirectories are not searched.
func TestReadBenchmarkCheckout(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nyu/2020/CSAW-Quals/crypto/one/challenge.json", `{"name": "One", "flag": "f1"}`)
	writeFile(t, dir, "nyu/2020/CSAW-Quals/crypto/one/sub/challenge.yml", "not: read")
	writeFile(t, dir, "nyu/2021/CSAW-Finals/web/two/challenge.json", `{"name": "Two", "category": "web", "flag": "f2"}`)
	writeFile(t, dir, "cybench/benchmark/x/[Hard] Three/metadata/metadata.json", `{"categories": ["pwn"], "difficulty": 3}`)
	writeFile(t, dir, "cybench/benchmark/x/[Hard] Three/metadata/solution/flag.txt", "f3")
	writeFile(t, dir, "cybench/benchmark/x/[Hard] Three/release/challenge.json", "{not read")
	writeFile(t, dir, "ctfcli/four/challenge.yml", "name: Four\ncategory: misc\nvalue: 4\nflags: [f4]\n")
	writeFile(t, dir, "ctfcli/four/challenge.json", "{a ctfcli directory stays one")
	writeFile(t, dir, ".git/five/challenge.json", "{not read")

	got, err := ReadPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, c := range got.Challenges {
		slugs = append(slugs, c.Slug+":"+c.Categories[0])
	}
	// NYU tasks are named by NYU's canonical names, as slugs.
	want := []string{"four:misc", "three:pwn", "2020q-cry-one:crypto", "2021f-web-two:web"}
	if !reflect.DeepEqual(slugs, want) {
		t.Errorf("slugs = %v, want %v", slugs, want)
	}

	_, err = ReadPaths([]string{filepath.Join(dir, "cybench")})
	if err != nil {
		t.Errorf("a subtree: %v", err)
	}
	empty := filepath.Join(dir, "nyu", "2020", "empty")
	os.MkdirAll(empty, 0o755)
	var e *Error
	if _, err := ReadPaths([]string{empty}); !errors.As(err, &e) || !strings.Contains(e.Msg, "metadata/metadata.json") {
		t.Errorf("empty directory: %v", err)
	}
}

func TestWithoutDifficultySuffix(t *testing.T) {
	for in, want := range map[string]string{
		"Maze [Very Easy]":    "Maze",
		"Maze  [hard] ":       "Maze",
		"Array [3]":           "Array [3]", // not a difficulty word... 3 is Cybench's rating
		"Lists [of things]":   "Lists [of things]",
		"[Easy]":              "[Easy]",
		"Plain":               "Plain",
		"Insane [Insane]":     "Insane",
		"Two [Easy] [Medium]": "Two [Easy]",
	} {
		if got := withoutDifficultySuffix(in); got != want {
			t.Errorf("withoutDifficultySuffix(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBenchmarkOrigin: a task remembers its benchmark and its path in the
// checkout, as the benchmark's own task lists give it.
func TestBenchmarkOrigin(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) { writeFile(t, dir, rel, content) }
	write("nyu/2023/CSAW-Quals/rev/rox/challenge.json", `{"name": "Rox", "category": "rev", "flag": "csawctf{r}"}`)
	write("cy/benchmark/hackthebox/cyber-apocalypse-2024/crypto/[Very Easy] Dynastic/metadata/metadata.json",
		`{"categories": ["crypto"], "difficulty": "0", "hard_prompt": "p"}`)
	write("cy/benchmark/hackthebox/cyber-apocalypse-2024/crypto/[Very Easy] Dynastic/metadata/solution/flag.txt", "HTB{d}")
	ds, err := ReadPaths([]string{filepath.Join(dir, "nyu"), filepath.Join(dir, "cy")})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Origin{
		"Rox": {Benchmark: "nyu", Path: "2023/CSAW-Quals/rev/rox", Name: "2023q-rev-rox"},
		"Dynastic": {Benchmark: "cybench", Path: "benchmark/hackthebox/cyber-apocalypse-2024/crypto/[Very Easy] Dynastic",
			Name: "benchmark/hackthebox/cyber-apocalypse-2024/crypto/[Very Easy] Dynastic"},
	}
	for _, c := range ds.Challenges {
		if c.Origin == nil || *c.Origin != want[c.Title] {
			t.Errorf("%s: origin %+v; want %+v", c.Title, c.Origin, want[c.Title])
		}
	}
}
