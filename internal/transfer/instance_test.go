package transfer_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestInstanceRoundTrip: a challenge's instance spec loads (hasInstance and
// dockerPort follow it), is stored whole on both engines, and a dump loads
// into an empty database as the same spec; loading the challenge without it
// removes it.
func TestInstanceRoundTrip(t *testing.T) {
	const event = `
challenges:
  - slug: pwnme
    title: Pwn me
    categories: [pwn]
    difficulty: Easy
    points: 100
    flags: ['flag{unused}']
    instance:
      image: flagship-test/echo:1
      port: 1337
      env: {MODE: hard}
      lifetime: 5m
      memory: 64MiB
`
	db := openDB(t)
	mustLoad(t, db, writeFile(t, t.TempDir(), "event.yaml", event))
	snap, err := db.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := snap.Challenges[0]
	want := ctf.InstanceSpec{Image: "flagship-test/echo:1", Port: 1337, Env: map[string]string{"MODE": "hard"},
		Lifetime: 5 * time.Minute, Memory: 64 << 20}.WithDefaults()
	if c.Instance == nil || !cmp.Equal(*c.Instance, want) {
		t.Fatalf("stored instance: %s", cmp.Diff(&want, c.Instance))
	}
	if !c.HasInstance || c.DockerPort == nil || *c.DockerPort != 1337 {
		t.Errorf("hasInstance %v, dockerPort %v: want true and the instance's port", c.HasInstance, c.DockerPort)
	}

	first := dump(t, db)
	if got := first.Challenges[0].Instance; got == nil || got.Memory != "64MiB" || got.Lifetime != "5m" || got.MaxLifetime != "2h" {
		t.Errorf("dumped instance %+v", got)
	}
	var out bytes.Buffer
	if err := dataset.Encode(&out, first, "yaml"); err != nil {
		t.Fatal(err)
	}
	copyDB := openDB(t)
	mustLoad(t, copyDB, writeFile(t, t.TempDir(), "dump.yaml", out.String()))
	sameDump(t, first, dump(t, copyDB))

	// The same challenge without its instance: it has none any more.
	without := `
challenges:
  - {slug: pwnme, title: Pwn me, categories: [pwn], difficulty: Easy, points: 100, flags: ['flag{unused}']}
`
	mustLoad(t, db, writeFile(t, t.TempDir(), "event.yaml", without))
	if got := dump(t, db).Challenges[0]; got.Instance != nil || got.HasInstance || got.DockerPort != nil {
		t.Errorf("after a load without it: instance %+v, hasInstance %v, dockerPort %v", got.Instance, got.HasInstance, got.DockerPort)
	}
}

// TestSharingRoundTrip: the suspected sharings a dump lists load into an
// empty database as they were, once each however often the file loads;
// one naming an unknown owner, or the submitter as the owner, is refused.
func TestSharingRoundTrip(t *testing.T) {
	const event = `
users:
  - {username: pam, email: pam@example.com}
  - {username: pat, email: pat@example.com}
challenges:
  - {slug: pwnme, title: Pwn me, categories: [pwn], points: 100, instance: {image: 'flagship-test/echo:1', port: 1337}}
sharing:
  - {id: s1, user: pat, owner: pam, challenge: pwnme, at: 2026-03-01T10:00:00Z, door: mcp, key: k1}
`
	db := openDB(t)
	path := writeFile(t, t.TempDir(), "event.yaml", event)
	rep := mustLoad(t, db, path)
	if rep.Created["sharing"] != 1 {
		t.Errorf("created %v", rep.Created)
	}
	if rep := mustLoad(t, db, path); rep.Unchanged["sharing"] != 1 || rep.Created["sharing"] != 0 {
		t.Errorf("a second load: %+v", rep)
	}
	first := dump(t, db)
	want := []dataset.Sharing{{ID: "s1", User: "pat", Owner: "pam", Challenge: "pwnme", At: first.Sharing[0].At, Door: ctf.DoorMCP, Key: "k1"}}
	if !cmp.Equal(first.Sharing, want, cmpopts.IgnoreFields(dataset.Sharing{}, "Source")) || !first.Sharing[0].At.Equal(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("dumped sharing: %s", cmp.Diff(want, first.Sharing, cmpopts.IgnoreFields(dataset.Sharing{}, "Source")))
	}
	var out bytes.Buffer
	if err := dataset.Encode(&out, first, "yaml"); err != nil {
		t.Fatal(err)
	}
	copyDB := openDB(t)
	mustLoad(t, copyDB, writeFile(t, t.TempDir(), "dump.yaml", out.String()))
	sameDump(t, first, dump(t, copyDB))

	for _, c := range []struct{ entry, want string }{
		{"{user: pat, owner: nobody, challenge: pwnme}", "nobody"},
		{"{user: pat, owner: pat, challenge: pwnme}", "another player"},
		{"{user: pat, challenge: pwnme}", "owner"},
	} {
		bad := strings.Replace(event, "  - {id: s1, user: pat, owner: pam, challenge: pwnme, at: 2026-03-01T10:00:00Z, door: mcp, key: k1}", "  - "+c.entry, 1)
		_, err := loadPaths(t, openDB(t), writeFile(t, t.TempDir(), "bad.yaml", bad))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %s", c.entry, err, c.want)
		}
	}
}

// TestSecretsTravelWithADump: the secret that keys per-player flags is in
// a dump, and a load into an empty database takes it, so players keep their
// flags; a database that has one keeps it; a bad one is refused.
func TestSecretsTravelWithADump(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	key, err := db.Secret(ctx, "instances")
	if err != nil {
		t.Fatal(err)
	}
	first := dump(t, db)
	if first.Secrets["instances"] != hex.EncodeToString(key) {
		t.Fatalf("dumped secrets %v", first.Secrets)
	}
	var out bytes.Buffer
	if err := dataset.Encode(&out, first, "yaml"); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, t.TempDir(), "dump.yaml", out.String())
	copyDB := openDB(t)
	if rep := mustLoad(t, copyDB, path); rep.Created["secrets"] != 1 {
		t.Errorf("load into an empty database: %+v", rep)
	}
	if got, err := copyDB.Secret(ctx, "instances"); err != nil || !bytes.Equal(got, key) {
		t.Errorf("the copy's secret %x (%v), want %x", got, err, key)
	}

	other := openDB(t)
	own, err := other.Secret(ctx, "instances")
	if err != nil {
		t.Fatal(err)
	}
	if rep := mustLoad(t, other, path); rep.Unchanged["secrets"] != 1 {
		t.Errorf("load into a database with its own secret: %+v", rep)
	}
	if got, _ := other.Secret(ctx, "instances"); !bytes.Equal(got, own) {
		t.Error("a load replaced a secret in use")
	}

	for _, bad := range []string{"secrets: {instances: nothex}\n", "secrets: {instances: '00'}\n", "secrets: {Bad_Name: " + strings.Repeat("ab", 32) + "}\n"} {
		if _, err := loadPaths(t, openDB(t), writeFile(t, t.TempDir(), "bad.yaml", bad)); err == nil || !strings.Contains(err.Error(), "secrets") {
			t.Errorf("%q: %v, want an error about secrets", bad, err)
		}
	}
}
