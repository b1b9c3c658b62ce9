package cli

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/instances"
	"github.com/flagshipctf/flagship/internal/instances/instancestest"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
)

// TestServeInstanceFlags: a bad value of an instance option, from the
// option or its variable, is a usage error (exit 2) naming the option.
func TestServeInstanceFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--instances", "kubernetes"}, nil, "--instances must be off, docker or swarm"},
		{nil, map[string]string{"FLAGSHIP_INSTANCES": "podman"}, "--instances must be off, docker or swarm"},
		{[]string{"--instance-ports", "31000-30000"}, nil, "--instance-ports"},
		{[]string{"--instance-ports", "30000"}, nil, "--instance-ports"},
		{[]string{"--instance-ports", "0-10"}, nil, "--instance-ports"},
		{[]string{"--instance-ports", "65000-70000"}, nil, "--instance-ports"},
		{nil, map[string]string{"FLAGSHIP_INSTANCE_PORTS": "a-b"}, "--instance-ports"},
		{[]string{"--instances-per-player", "-1"}, nil, "--instances-per-player"},
		{[]string{"--instances-max", "-5"}, nil, "--instances-max"},
		{[]string{"--instances-max", "many"}, nil, "--instances-max"},
		{[]string{"--instance-host", "ctf.example.org/x"}, nil, "--instance-host"},
	} {
		var out, errb syncBuffer
		db := "sqlite:" + filepath.Join(t.TempDir(), "flags.db")
		code := Run(t.Context(), append([]string{"--db", db, "serve", "--addr", "127.0.0.1:0"}, c.args...),
			func(k string) string { return c.env[k] }, IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
		if code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("serve %v (env %v): exit %d, stderr %q; want 2 and %q", c.args, c.env, code, errb.String(), c.want)
		}
	}
}

// TestServeEngineDown: serve with instances on an engine that does not
// answer still serves (a warning in the log), and stops cleanly.
func TestServeEngineDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := ln.Addr().String()
	ln.Close()
	srv := startServe(t, []string{"--instances", "docker", "--instance-ports", "40000-40010"},
		map[string]string{"DOCKER_HOST": "tcp://" + deadAddr})
	resp, err := http.Get(srv.base + "/api/public/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("health: %d", resp.StatusCode)
	}
	log := srv.stop(t)
	if !strings.Contains(log, "reconcile the instances with the engine") {
		t.Errorf("no warning about the engine in the log:\n%s", log)
	}
}

// TestInstancesCommands: `instances list` shows a player's running
// instance (as a table and as JSON), `instances stop --id` stops it on the
// engine it runs on (the container is gone, asked of the engine) and
// audits it; an unknown id is an error.
func TestInstancesCommands(t *testing.T) {
	cli := instancestest.Client(t)
	instancestest.BuildImage(t, cli)
	b := make([]byte, 4)
	rand.Read(b)
	network := "flagship-test-cli-" + hex.EncodeToString(b)
	engine, err := instances.NewDocker(instances.Options{Network: network, HostIP: netip.MustParseAddr("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })
	t.Cleanup(func() { instancestest.RemoveNetworks(t, cli, network) })

	dbPath := "sqlite:" + filepath.Join(t.TempDir(), "inst.db")
	ctx := t.Context()
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	svc := platform.New(db, platform.Options{Instances: platform.InstanceOptions{Engine: engine, EngineName: "docker",
		Host: "127.0.0.1", PortFrom: port, PortTo: port}})
	if err := svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := svc.Content.SaveChallenge(ctx, ctf.Operator, platform.ChallengeInput{Title: "Pwn me", Categories: []string{"pwn"},
		Difficulty: ctf.Easy, Points: 100, Instance: &ctf.InstanceSpec{Image: instancestest.Image, Port: 1337, Memory: 32 << 20, Pids: 32}})
	if err != nil {
		t.Fatal(err)
	}
	u, err := svc.Accounts.CreateUser(ctx, ctf.Operator, platform.NewUser{Username: "pam", Email: "pam@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := svc.Instances.Start(ctx, ctf.Viewer{User: &u}, c.Slug)
	if err != nil {
		t.Fatal(err)
	}
	apitest.StopInstancesAtEnd(t, svc)
	rows, err := svc.Instances.Running(ctx, ctf.Operator)
	if err != nil || len(rows) != 1 {
		t.Fatalf("running: %+v, %v", rows, err)
	}
	id := rows[0].ID

	code, out, errb := run(t, "", "--db", dbPath, "instances", "list")
	if code != 0 {
		t.Fatalf("instances list: exit %d: %s", code, errb)
	}
	for _, want := range []string{"ID", "EXPIRES", id, c.Slug, "pam", "running", "127.0.0.1:" + strconv.Itoa(v.Port)} {
		if !strings.Contains(out, want) {
			t.Errorf("instances list lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "", "--db", dbPath, "--json", "instances", "list")
	var listed struct {
		Instances []struct{ ID, Challenge, User, Engine string }
	}
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || len(listed.Instances) != 1 ||
		listed.Instances[0].ID != id || listed.Instances[0].User != "pam" || listed.Instances[0].Engine != "docker" {
		t.Errorf("instances list --json: exit %d, %s (%v)", code, out, err)
	}

	if code, _, errb := run(t, "", "--db", dbPath, "instances", "stop"); code != 2 || !strings.Contains(errb, "--id") {
		t.Errorf("stop without --id: exit %d, %q", code, errb)
	}
	if code, _, errb := run(t, "", "--db", dbPath, "instances", "stop", "--id", "nope"); code != 1 || !strings.Contains(errb, "no instance") {
		t.Errorf("stop of an unknown id: exit %d, %q", code, errb)
	}
	if code, out, errb := run(t, "", "--db", dbPath, "instances", "stop", "--id", id); code != 0 || !strings.Contains(out, id) {
		t.Fatalf("instances stop: exit %d, %q %q", code, out, errb)
	}
	if _, err := engine.Inspect(ctx, id); err == nil {
		t.Error("the container still runs after instances stop")
	}
	if code, out, _ := run(t, "", "--db", dbPath, "instances", "list"); code != 0 || !strings.Contains(out, "no instance runs") {
		t.Errorf("instances list after the stop: exit %d, %q", code, out)
	}
	audit, err := svc.Admin.AuditLog(ctx, ctf.Operator, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range audit {
		found = found || (a.Action == "instance.stop" && a.Target == id)
	}
	if !found {
		t.Errorf("no audit entry for the stop: %+v", audit)
	}
}

// freePort is a port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
