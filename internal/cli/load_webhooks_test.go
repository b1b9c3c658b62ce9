package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadWarnsOfPrivateWebhooks: a dataset's webhook whose URL names a
// loopback, private or link-local address or localhost loads (a file
// restores what an operator had, perhaps for a server run with
// --webhooks-allow-private), and `flagship load` says, naming the file,
// the entry and the field, that its deliveries will be refused unless
// serve allows private targets; a webhook on a public host loads without a
// word.
func TestLoadWarnsOfPrivateWebhooks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hooks.yaml")
	if err := os.WriteFile(file, []byte(`webhooks:
  - {name: Public, kind: slack, url: 'https://hooks.example.com/x'}
  - {name: Metrics, kind: json, url: 'http://127.0.0.1:9090/metrics'}
  - {name: Metadata, kind: slack, url: 'http://169.254.169.254/latest/meta-data/'}
  - {name: Local, kind: discord, url: 'http://localhost:8080/hook'}
  - {name: Inside, kind: slack, url: 'https://[fd00::1]/x', enabled: false}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	db := "sqlite:" + filepath.Join(dir, "f.db")
	code, out, errb := run(t, "", "--db", db, "load", file)
	if code != 0 || !strings.Contains(out, "webhooks:   5 created") {
		t.Fatalf("load: %d\n%s\n%s", code, out, errb)
	}
	for i, name := range []string{"Metrics", "Metadata", "Local", "Inside"} {
		want := "warning: " + file + `: webhooks[` + string(rune('1'+i)) + `] (name "` + name + `"): url: `
		if !strings.Contains(errb, want) {
			t.Errorf("no warning %q in:\n%s", want, errb)
		}
	}
	if strings.Contains(errb, "Public") || strings.Count(errb, "--webhooks-allow-private") != 4 {
		t.Errorf("want four warnings, each naming --webhooks-allow-private, none for Public:\n%s", errb)
	}

	// Loaded as given, and said again on the next load, in the report.
	code, out, _ = run(t, "", "--db", db, "--json", "load", file)
	var rep struct {
		Unchanged map[string]int
		Warnings  []string
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Unchanged["webhooks"] != 5 || len(rep.Warnings) != 4 {
		t.Fatalf("second load: %d %s", code, out)
	}
	_, dumped, _ := run(t, "", "--db", db, "dump")
	for _, u := range []string{"http://127.0.0.1:9090/metrics", "http://169.254.169.254/latest/meta-data/", "http://localhost:8080/hook", "https://[fd00::1]/x"} {
		if !strings.Contains(dumped, u) {
			t.Errorf("the dump lacks %s:\n%s", u, dumped)
		}
	}
}
