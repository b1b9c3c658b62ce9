package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/instances"
	"github.com/flagshipctf/flagship/internal/instances/instancestest"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/testtime"
)

// TestServeStopsAnInstanceAtItsLifetime: `flagship serve --instances
// docker` as an operator runs it, on the real clock: a player starts an
// instance of a challenge whose lifetime is ten seconds over the API, and
// the server stops it by itself once the lifetime is over — the API says
// so, and the engine has no container left.
func TestServeStopsAnInstanceAtItsLifetime(t *testing.T) {
	cli := instancestest.Client(t)
	instancestest.BuildImage(t, cli)
	t.Cleanup(func() { instancestest.RemoveNetworks(t, cli, "flagship-instances") })
	ctx := t.Context()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "event.db")
	db, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	svc := platform.New(db, platform.Options{})
	if err := svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Content.SaveChallenge(ctx, ctf.Operator, platform.ChallengeInput{Title: "Brief", Categories: []string{"pwn"},
		Difficulty: ctf.Easy, Points: 100, Instance: &ctf.InstanceSpec{Image: instancestest.Image, Port: 1337,
			Lifetime: 10 * time.Second, Memory: 32 << 20, Pids: 32}}); err != nil {
		t.Fatal(err)
	}
	u, err := svc.Accounts.CreateUser(ctx, ctf.Operator, platform.NewUser{Username: "pam", Email: "pam@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := svc.Keys.Create(ctx, ctf.Viewer{User: &u}, platform.NewAPIKey{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	port := freePort(t)
	s := startServeOn(t, dsn, []string{"--instances", "docker", "--instance-host", "127.0.0.1",
		"--instance-ports", fmt.Sprintf("%d-%d", port, port)}, nil)
	defer s.stop(t)
	engine, err := instances.NewDocker(instances.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()

	call := func(method string) (int, *struct{ Port int }) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, s.base+"/api/public/challenges/brief/instance", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		var a struct{ Instance *struct{ Port int } }
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatalf("%s: %d %s", method, res.StatusCode, body)
		}
		return res.StatusCode, a.Instance
	}
	before, err := engine.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	code, inst := call(http.MethodPost)
	if code != http.StatusCreated || inst == nil || inst.Port != port {
		t.Fatalf("start: %d %+v", code, inst)
	}
	after, err := engine.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var id string
	for _, a := range after {
		known := false
		for _, b := range before {
			known = known || a.ID == b.ID
		}
		if !known {
			id = a.ID
		}
	}
	if id == "" {
		t.Fatal("no new container on the engine")
	}
	t.Cleanup(func() { engine.Stop(t.Context(), id) })
	if flag := instancestest.Greeting(t, port); flag == "" {
		t.Fatal("no flag from the instance")
	}

	// Ten seconds, then at most a round of the reaper (two seconds) and the
	// stop itself.
	for deadline := started.Add(testtime.Scale(30 * time.Second)); ; time.Sleep(250 * time.Millisecond) {
		if _, inst := call(http.MethodGet); inst == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the instance still runs %v after its start", time.Since(started))
		}
	}
	if waited := time.Since(started); waited < 10*time.Second {
		t.Errorf("stopped after %v, before its lifetime", waited)
	}
	if _, err := engine.Inspect(ctx, id); !errors.Is(err, instances.ErrNotFound) {
		t.Errorf("the container after the lifetime: %v, want not found", err)
	}
}
