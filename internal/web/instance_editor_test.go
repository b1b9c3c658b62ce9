package web_test

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
)

// TestAdminEditsAnInstanceSpec: the challenge editor takes an instance
// spec as a dataset writes it, shows it back whole (defaults filled in),
// keeps it across an edit of other fields, names the field of a bad one,
// and an empty field removes it.
func TestAdminEditsAnInstanceSpec(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, adminEvent)
	root := newBrowser(t, s)
	root.post("/login", map[string][]string{"username": {"root"}, "password": {"root-password"}})
	fields := map[string]string{"title": "Pwn Me", "categories": "pwn", "difficulty": "Easy", "points": "100",
		"flagKind0": "static", "flagContent0": "flag{unused}", "instance": "image: flagship-test/echo:1\nport: 1337\nmemory: 64MiB\n"}

	bad := map[string]string{}
	for k, v := range fields {
		bad[k] = v
	}
	bad["instance"] = "image: flagship-test/echo:1\nport: 1337\nmemroy: 64MiB\n"
	want(t, "a misspelt key", root.multipartPost("/admin/challenges", bad, "", "", nil), 400, "The per-player instance&#39;s memroy: unknown key", "memroy: 64MiB")
	bad["instance"] = "image: flagship-test/echo:1\nport: 1337\n"
	bad["dockerPort"] = "80"
	want(t, "another port", root.multipartPost("/admin/challenges", bad, "", "", nil), 400, "The port must be the instance&#39;s port (1337) or left out.")

	if r := root.multipartPost("/admin/challenges", fields, "", "", nil); r.status != http.StatusSeeOther {
		t.Fatalf("create: %d %.1500s", r.status, r.body)
	}
	spec := func() *ctf.InstanceSpec {
		t.Helper()
		c, ok := s.Svc.Content.ChallengeForEdit(t.Context(), ctf.Operator, "pwn-me")
		if ok != nil {
			t.Fatal(ok)
		}
		return c.Instance
	}
	if got := spec(); got == nil || got.Memory != 64<<20 || got.Port != 1337 || got.Lifetime != ctf.DefaultInstanceLifetime {
		t.Fatalf("saved instance %+v", got)
	}
	edit := root.get("/admin/challenges/pwn-me")
	want(t, "the form shows it whole", edit, 200, "image: flagship-test/echo:1", "memory: 64MiB", "lifetime: 30m")
	d, err := s.Svc.Play.Challenge("pwn-me", ctf.Operator)
	if err != nil || !d.HasInstance || d.DockerPort == nil || *d.DockerPort != 1337 {
		t.Errorf("detail: hasInstance %v, dockerPort %v (%v)", d.HasInstance, d.DockerPort, err)
	}

	// An edit of the points, with the form as shown: the spec stays.
	id := regexp.MustCompile(`name="id" value="([0-9a-f-]{36})"`).FindStringSubmatch(edit.body)
	text := regexp.MustCompile(`(?s)<textarea name="instance"[^>]*>(.*?)</textarea>`).FindStringSubmatch(edit.body)
	if id == nil || text == nil {
		t.Fatal("no id or instance field in the edit form")
	}
	fields["id"], fields["points"], fields["instance"] = id[1], "150", html.UnescapeString(text[1])
	if r := root.multipartPost("/admin/challenges", fields, "", "", nil); r.status != http.StatusSeeOther {
		t.Fatalf("edit: %d %.1500s", r.status, r.body)
	}
	if got := spec(); got == nil || got.Memory != 64<<20 {
		t.Errorf("after an edit of the points: %+v", got)
	}
	fields["instance"] = "  "
	if r := root.multipartPost("/admin/challenges", fields, "", "", nil); r.status != http.StatusSeeOther {
		t.Fatalf("removing: %d", r.status)
	}
	if got := spec(); got != nil {
		t.Errorf("an empty field keeps %+v", got)
	}
	if strings.Contains(root.get("/admin/challenges/pwn-me").body, "flagship-test/echo") {
		t.Error("the form still shows the removed spec")
	}
}
