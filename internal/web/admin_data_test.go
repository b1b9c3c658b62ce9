package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
)

// TestAdminImportExport: an admin downloads the event as `flagship dump`
// writes it and imports a dataset file as `flagship load` reads it, both
// audited; a file naming a server path, or a bad one, changes nothing; a
// player gets neither.
func TestAdminImportExport(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root, pam := newBrowser(t, s), newBrowser(t, s)
	root.post("/login", url.Values{"username": {"root"}, "password": {"root-password"}})
	pam.post("/login", url.Values{"username": {"pam"}, "password": {"pam-password"}})

	want(t, "page", root.get("/admin/data"), 200, "Import and export", `action="/admin/data/import"`, `enctype="multipart/form-data"`)
	exp := root.get("/admin/data/export")
	if exp.status != 200 || !strings.HasPrefix(exp.header.Get("Content-Type"), "application/yaml") ||
		!strings.HasPrefix(exp.header.Get("Content-Disposition"), "attachment; filename=flagship-") || exp.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("export: %d %v", exp.status, exp.header)
	}
	ds, err := dataset.Decode([]byte(exp.body), "export.yaml")
	if err != nil || len(ds.Challenges) != 3 || len(ds.Users) != 3 {
		t.Fatalf("the export does not read back as the event: %v", err)
	}
	if j := root.get("/admin/data/export?format=json"); j.status != 200 || !strings.HasPrefix(j.body, "{") {
		t.Errorf("json export: %d %.100s", j.status, j.body)
	}

	// A new challenge with its handout inline: created; the page says so.
	add := `challenges:
  - {slug: uploaded, title: Uploaded, categories: [misc], points: 10, flags: ['flag{up}'],
     file: {name: a.txt, contentBase64: aGVsbG8=}}
`
	r := root.multipartPost("/admin/data/import", nil, "dataset", "add.yaml", []byte(add))
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/admin/data" {
		t.Fatalf("import: %d %v %.500s", r.status, r.header, r.body)
	}
	want(t, "after import", root.get(r.header.Get("Location")), 200, "Imported: 1 created, 0 updated, 0 unchanged.")
	want(t, "imported challenge", pam.get("/challenges/uploaded"), 200, "Uploaded", "a.txt")

	// What loads but will not work is named on the page: a webhook to a
	// private host (this server refuses to deliver there).
	hook := "webhooks:\n  - {name: Local, kind: json, url: 'http://127.0.0.1:9/hook'}\n"
	r = root.multipartPost("/admin/data/import", nil, "dataset", "hook.yaml", []byte(hook))
	want(t, "after a warned import", root.get(r.header.Get("Location")), 200, "Imported: 1 created",
		"Check: hook.yaml: webhooks[0]", "names a private host")

	// A path names a file of the server's: refused, nothing changes.
	for name, doc := range map[string]string{
		"path.yaml": "challenges:\n  - {slug: sneaky, title: Sneaky, categories: [misc], points: 1, flags: ['f'], file: {name: db, path: flagship.db}}\n",
		"bad.yaml":  "challenges:\n  - {slug: sneaky, title: Sneaky, categories: [misc], points: -1, flags: ['f']}\n",
		"bad.txt":   "challenges: []\n",
	} {
		if r := root.multipartPost("/admin/data/import", nil, "dataset", name, []byte(doc)); r.status != http.StatusSeeOther {
			t.Fatalf("import %s: %d, want 303", name, r.status)
		}
		r := root.get("/admin/data")
		want(t, "import "+name, r, 200, "Nothing was imported", `class="alert error"`)
		if name == "path.yaml" && !strings.Contains(r.body, "not path") {
			t.Errorf("the refusal of a path does not say why:\n%.2000s", r.body)
		}
	}
	if pam.get("/challenges/sneaky").status != 404 {
		t.Error("a refused import changed the event")
	}

	// Players: neither the page, the export nor the import.
	for _, p := range []string{"/admin/data", "/admin/data/export"} {
		if got := pam.get(p); got.status != 403 && got.status != 404 {
			t.Errorf("player GET %s: %d", p, got.status)
		}
	}
	if got := pam.multipartPost("/admin/data/import", nil, "dataset", "add.yaml", []byte(add)); got.status != 403 && got.status != 404 {
		t.Errorf("player import: %d", got.status)
	}

	log, _ := s.Svc.Admin.AuditLog(context.Background(), ctf.Operator, 0, 20)
	var actions []string
	for _, e := range log {
		actions = append(actions, e.Action)
	}
	if got := strings.Join(actions, " "); strings.Count(got, "event.dump") != 2 || strings.Count(got, "event.load") != 2 {
		t.Errorf("audit log: %s; want two dumps and two loads", got)
	}
}
