package dataset

import (
	"archive/zip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeTree writes files under dir; "link:TARGET" makes a symlink.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		if !strings.HasPrefix(content, "link:") {
			writeFile(t, dir, rel, content)
		}
	}
	for rel, content := range files {
		if target, ok := strings.CutPrefix(content, "link:"); ok {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// service is what a task says of its service.
type service struct {
	Description, ConnectionInfo string
	HasInstance                 bool
	DockerPort                  *int
	Instance                    *Instance
	Notes                       []string
}

func serviceOf(c Challenge) service {
	return service{c.Description, c.ConnectionInfo, c.HasInstance, c.DockerPort, c.Instance, c.Notes}
}

func TestNYUService(t *testing.T) {
	task := func(category, extra string) string {
		return `{"name": "S", "category": "` + category + `", "flag": "flag{s}", "description": "at {box}:{port}"` + extra + `}`
	}
	const imageCompose = "services:\n  game-server:\n    image: example/2024q-web-s:latest\n" +
		"    networks:\n      ctfnet:\n        aliases: [web.example.org]\nnetworks:\n  ctfnet:\n    external: true\n"
	tests := []struct {
		name  string
		files map[string]string
		want  service
	}{
		{"pwn: nc", map[string]string{"challenge.json": task("pwn", `, "box": "pwn.example.org", "internal_port": 9001`)},
			service{"at pwn.example.org:9001", "nc pwn.example.org 9001", true, intp(9001), nil, nil}},
		{"web: a URL per port", map[string]string{"challenge.json": task("web", `, "box": "w.example.org", "internal_port": [80, 8080]`)},
			service{"at w.example.org:80", "http://w.example.org:80, http://w.example.org:8080", true, intp(80), nil, nil}},
		{"misc without proto: a URL, as NYU's runner has it", map[string]string{"challenge.json": task("misc", `, "box": "m", "internal_port": 5000`)},
			service{"at m:5000", "http://m:5000", true, intp(5000), nil, nil}},
		{"misc with proto nc", map[string]string{"challenge.json": task("Miscellaneous", `, "box": "m", "internal_port": 5000, "proto": "nc"`)},
			service{"at m:5000", "nc m 5000", true, intp(5000), nil, nil}},
		{"web with proto nc", map[string]string{"challenge.json": task("web", `, "box": "w", "internal_port": 31337, "proto": "NC"`)},
			service{"at w:31337", "nc w 31337", true, intp(31337), nil, nil}},
		{"pwn with proto https", map[string]string{"challenge.json": task("pwn", `, "box": "p", "internal_port": 443, "proto": "https"`)},
			service{"at p:443", "https://p:443", true, intp(443), nil, nil}},
		{"a port and no box: nobody is told of a server", map[string]string{"challenge.json": task("pwn", `, "internal_port": 9001`)},
			service{"at {box}:9001", "", false, nil, nil, nil}},
		{"urls after the server", map[string]string{"challenge.json": task("crypto", `, "box": "c", "internal_port": 7, "urls": ["https://a.example.org/x", " "]`)},
			service{"at c:7", "nc c 7, https://a.example.org/x", true, intp(7), nil, nil}},
		{"urls alone: no service", map[string]string{"challenge.json": task("web", `, "urls": "https://a.example.org/"`)},
			service{"at {box}:{port}", "https://a.example.org/", false, nil, nil, nil}},
		{"server_description follows the description", map[string]string{"challenge.json": task("pwn",
			`, "box": "p", "internal_port": 1, "server_description": " Reach it with ssh. "`)},
			service{"at p:1\n\nReach it with ssh.", "nc p 1", true, intp(1), nil, nil}},
		{"compose image: an instance spec, web over http", map[string]string{
			"challenge.json":     task("web", `, "box": "web.example.org", "internal_port": 80, "compose": true`),
			"docker-compose.yml": imageCompose},
			service{"at web.example.org:80", "http://web.example.org:80", true, intp(80),
				&Instance{Image: "example/2024q-web-s:latest", Port: 80, Protocol: "http", Flag: "static"}, nil}},
		{"compose image without a box: the instance alone", map[string]string{
			"challenge.json": task("pwn", `, "internal_port": 1337, "compose": true`), "compose.yaml": "services:\n  s:\n    image: example/p\n"},
			service{"at {box}:1337", "", true, intp(1337), &Instance{Image: "example/p", Port: 1337, Protocol: "tcp", Flag: "static"}, nil}},
		{"compose not started by NYU's runner (no compose: true): no instance", map[string]string{
			"challenge.json": task("pwn", `, "box": "p", "internal_port": 1`), "docker-compose.yml": "services:\n  s:\n    image: example/p\n"},
			service{"at p:1", "nc p 1", true, intp(1), nil, []string{"docker-compose.yml is there but challenge.json does not set compose, " +
				"so NYU's runner does not start it: no instance spec"}}},
		{"compose that builds and names its image: the spec, and a note", map[string]string{
			"challenge.json":     task("pwn", `, "box": "p", "internal_port": 1, "compose": 1`),
			"docker-compose.yml": "services:\n  s:\n    build: .\n    image: asibench_p:latest\n"},
			service{"at p:1", "nc p 1", true, intp(1), &Instance{Image: "asibench_p:latest", Port: 1, Protocol: "tcp", Flag: "static"},
				[]string{"compose builds image asibench_p:latest: run docker compose build in the task's directory before instances start"}}},
		{"compose that builds", map[string]string{
			"challenge.json": task("pwn", `, "box": "p", "internal_port": 1`), "docker-compose.yml": "services:\n  s:\n    build: .\n"},
			service{"at p:1", "nc p 1", true, intp(1), nil, []string{"compose builds its image: build and name it, then set instance"}}},
		{"compose of several services", map[string]string{
			"challenge.json":     task("web", `, "box": "w", "internal_port": 80`),
			"docker-compose.yml": "services:\n  web:\n    image: example/w\n  db:\n    image: example/db\n"},
			service{"at w:80", "http://w:80", true, intp(80), nil,
				[]string{"docker-compose.yml runs 2 services (db, web); an instance is one container: no instance spec"}}},
		{"compose image and no port", map[string]string{
			"challenge.json": task("rev", ``), "docker-compose.yml": "services:\n  s:\n    image: example/r\n"},
			service{"at {box}:{port}", "", false, nil, nil,
				[]string{"docker-compose.yml names image example/r but challenge.json gives no internal_port: no instance spec"}}},
		{"compose image Flagship cannot run", map[string]string{
			"challenge.json": task("pwn", `, "internal_port": 2`), "docker-compose.yml": "services:\n  s:\n    image: Example/Upper\n"},
			service{"at {box}:2", "", false, nil, nil, []string{"docker-compose.yml: instance.image must be an image reference " +
				"such as flagship/echo:1 (lowercase, no spaces): no instance spec"}}},
		{"compose not YAML", map[string]string{
			"challenge.json": task("pwn", `, "internal_port": 2`), "docker-compose.yml": "services: [\n"},
			service{"at {box}:2", "", false, nil, nil, nil}}, // Notes checked by prefix below
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "task")
			writeTree(t, dir, tt.files)
			got := serviceOf(readTask(t, dir))
			if tt.name == "compose not YAML" {
				if len(got.Notes) != 1 || !strings.HasPrefix(got.Notes[0], "docker-compose.yml: not a compose file") {
					t.Errorf("notes = %q", got.Notes)
				}
				got.Notes = nil
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestCybenchService(t *testing.T) {
	tests := []struct {
		name, meta string
		yml        bool // a challenge.yml beside metadata/, as GlacierCTF's tasks have
		cats       []string
		want       service
	}{
		{"several hosts, each listed", `"categories": ["pwn"], "target_host": "alice:1337 bob:1338"`, false,
			[]string{"pwn"}, service{"", "nc alice 1337, nc bob 1338", true, intp(1337), nil, nil}},
		{"web hosts as URLs, read beside a challenge.yml", `"categories": ["Web", "Misc"], "target_host": "app:8080"`, true,
			[]string{"web", "misc"}, service{"", "http://app:8080", true, intp(8080), nil, nil}},
		{"categories through the alias table", `"categories": ["Reverse", "reversing", "Cryptography", "Blockchain"]`, false,
			[]string{"rev", "crypto", "blockchain"}, service{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "task")
			files := map[string]string{"metadata/metadata.json": "{" + tt.meta + "}", "metadata/solution/flag.txt": "f"}
			if tt.yml {
				files["challenge.yml"] = "name: Other\ncategory: web\nvalue: 1\nflags: [no]\n"
			}
			writeTree(t, dir, files)
			c := readTask(t, dir)
			if c.Source.File != filepath.Join(dir, "metadata", "metadata.json") || c.Title != "Task" {
				t.Errorf("read as %s, %q", c.Source.File, c.Title)
			}
			if !reflect.DeepEqual(c.Categories, tt.cats) {
				t.Errorf("categories = %q, want %q", c.Categories, tt.cats)
			}
			if got := serviceOf(c); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestCategories(t *testing.T) {
	for in, want := range map[string]string{
		"rev": "rev", "Reverse": "rev", "reversing": "rev", "RE": "rev", "reverse_engineering": "rev",
		"Crypto": "crypto", "cryptography": "crypto", "forensic": "forensics", "Forensics": "forensics",
		"pwn": "pwn", "Binary Exploitation": "pwn", "binary-exploitation": "pwn", "web": "web",
		"web exploitation": "web", "miscellaneous": "misc", "MISC": "misc", " OSINT ": "osint", "": "",
	} {
		if got := normalCategory(in); got != want {
			t.Errorf("normalCategory(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tt := range []struct{ bench, cat, want string }{
		{"cybench", "rev", "reverse"}, {"Cybench", "rev", "reverse"}, {"cybench", "crypto", "crypto"},
		{"cybench", "stego", "steganography"}, {"nyu", "rev", "rev"}, {"nyu", "crypto", "crypto"},
		{"other", "rev", "rev"}, {"", "web", "web"},
	} {
		if got := BenchmarkCategory(tt.bench, tt.cat); got != tt.want {
			t.Errorf("BenchmarkCategory(%q, %q) = %q, want %q", tt.bench, tt.cat, got, tt.want)
		}
	}
}

// zipBytes makes a zip of files (sorted by name) with the flag bits given.
func zipBytes(t *testing.T, flags uint16, names ...string) string {
	t.Helper()
	var b strings.Builder
	zw := zip.NewWriter(&b)
	for i := 0; i+1 < len(names); i += 2 {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: names[i], Method: zip.Store, Flags: flags})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(names[i+1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestArchiveAndItsCopy(t *testing.T) {
	plain := func(names ...string) string { return zipBytes(t, 0, names...) }
	tests := []struct {
		name   string
		files  map[string]string // the task's release/
		served []string          // the handout: one file's name, or the archive's names
	}{
		{"a zip and its folder: the zip alone", map[string]string{
			"x.zip": plain("x/a.txt", "A", "x/b.bin", "B"), "x/a.txt": "A", "x/b.bin": "B"}, []string{"x.zip"}},
		{"a zip and its files beside it", map[string]string{
			"x.zip": plain("a.txt", "A"), "a.txt": "A", "other": "o"}, []string{"other", "x.zip"}},
		{"a zip's folder named after the zip", map[string]string{
			"y.zip": plain("a.txt", "A"), "y/a.txt": "A"}, []string{"y.zip"}},
		{"a changed copy is another file", map[string]string{
			"x.zip": plain("x/a.txt", "A"), "x/a.txt": "changed"}, []string{"x.zip", "x/a.txt"}},
		{"an encrypted zip unpacked in full: the copy", map[string]string{
			"x.zip": zipBytes(t, 0x1, "x/a.txt", "A", "x/b", "B"), "x/a.txt": "A", "x/b": "B"}, []string{"x/a.txt", "x/b"}},
		{"an encrypted zip unpacked in part: the zip", map[string]string{
			"x.zip": zipBytes(t, 0x1, "x/a.txt", "A", "x/b", "B"), "x/a.txt": "A"}, []string{"x.zip"}},
		{"not a zip", map[string]string{"x.zip": "not a zip", "x/a": "a"}, []string{"x.zip", "x/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "task")
			files := map[string]string{"metadata/metadata.json": `{"categories": ["rev"]}`, "metadata/solution/flag.txt": "f"}
			for k, v := range tt.files {
				files["release/"+k] = v
			}
			writeTree(t, dir, files)
			c := readTask(t, dir)
			var served []string
			if c.File != nil && len(c.File.Pack) == 0 {
				served = []string{c.File.Name}
			} else if c.File != nil {
				data, err := ReadFile(c.File)
				if err != nil {
					t.Fatal(err)
				}
				served, _, _ = unzip(t, data)
			}
			if !reflect.DeepEqual(served, tt.served) {
				t.Errorf("served %q, want %q", served, tt.served)
			}
		})
	}
}
