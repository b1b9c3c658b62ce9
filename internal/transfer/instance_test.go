package transfer_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/google/go-cmp/cmp"
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
