package replicatest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/secret"
)

// challenge is one challenge of the test event, with its flag.
type challenge struct {
	Slug       string
	Points     int
	Category   string
	Difficulty string
	Requires   []string
	Flag       string
	Race       bool // kept fresh for a first-blood race; the regular workload never touches it
}

// player is one player of the test event; the key never leaves the test.
type player struct {
	Idx      int
	Username string
	ID       string
	Key      string
}

// testEvent is the event loaded into the database before the replicas start.
type testEvent struct {
	Players    []*player
	Challenges []*challenge
	bySlug     map[string]*challenge
	byUserID   map[string]*player
}

// newTestEvent makes nPlayers players (each with one API key) and the
// challenges of specs, no solves. Flags are random per run.
func newTestEvent(nPlayers int, specs []challenge) *testEvent {
	ev := &testEvent{bySlug: map[string]*challenge{}, byUserID: map[string]*player{}}
	for i := range specs {
		c := specs[i]
		c.Flag = "flag{" + c.Slug + "-" + randHex(6) + "}"
		ev.Challenges = append(ev.Challenges, &c)
		ev.bySlug[c.Slug] = &c
	}
	for i := 0; i < nPlayers; i++ {
		p := &player{Idx: i, Username: fmt.Sprintf("p%03d", i), ID: ctf.NewID()}
		ev.Players = append(ev.Players, p)
		ev.byUserID[p.ID] = p
	}
	return ev
}

// mixedChallenges is the event of the mixed-load test: a dozen regular
// challenges (two behind prerequisites) and two kept fresh for races.
var mixedChallenges = []challenge{
	{Slug: "warmup", Points: 50, Category: "misc", Difficulty: "Easy"},
	{Slug: "baby-rsa", Points: 100, Category: "crypto", Difficulty: "Easy"},
	{Slug: "xor-me", Points: 150, Category: "crypto", Difficulty: "Easy"},
	{Slug: "sqli-101", Points: 200, Category: "web", Difficulty: "Medium"},
	{Slug: "jwt-none", Points: 250, Category: "web", Difficulty: "Medium"},
	{Slug: "stack-smash", Points: 300, Category: "pwn", Difficulty: "Hard"},
	{Slug: "heap-hop", Points: 500, Category: "pwn", Difficulty: "Insane"},
	{Slug: "pcap-hunt", Points: 200, Category: "forensics", Difficulty: "Medium"},
	{Slug: "stego-cat", Points: 100, Category: "forensics", Difficulty: "Easy"},
	{Slug: "crackme", Points: 350, Category: "reversing", Difficulty: "Hard"},
	{Slug: "warmup-2", Points: 150, Category: "misc", Difficulty: "Medium", Requires: []string{"warmup"}},
	{Slug: "rsa-returns", Points: 400, Category: "crypto", Difficulty: "Hard", Requires: []string{"baby-rsa", "xor-me"}},
	{Slug: "race-a", Points: 300, Category: "race", Difficulty: "Medium", Race: true},
	{Slug: "race-b", Points: 450, Category: "race", Difficulty: "Hard", Race: true},
}

// load writes the event as a dataset (users with apiKeys entries whose
// secrets only the test knows) and imports it with the real CLI.
func (ev *testEvent) load(t *testing.T, dsn string) {
	t.Helper()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var users, chals []map[string]any
	for _, p := range ev.Players {
		key, prefix, hash := secret.NewAPIKey()
		p.Key = key
		users = append(users, map[string]any{
			"id": p.ID, "username": p.Username, "name": "Player " + p.Username[1:],
			"email": p.Username + "@example.com", "createdAt": created,
			"apiKeys": []map[string]any{{"id": ctf.NewID(), "name": "k", "keyPrefix": prefix, "keyHash": hash,
				"createdAt": created}},
		})
	}
	for i, c := range ev.Challenges {
		e := map[string]any{
			"slug": c.Slug, "title": "Challenge " + c.Slug, "description": "Solve " + c.Slug + ".",
			"categories": []string{c.Category}, "difficulty": c.Difficulty, "points": c.Points,
			"flags": []string{c.Flag}, "createdAt": created.Add(time.Duration(i) * time.Minute),
		}
		if len(c.Requires) > 0 {
			e["requires"] = c.Requires
		}
		chals = append(chals, e)
	}
	data, err := json.MarshalIndent(map[string]any{"users": users, "challenges": chals}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out := runCLI(t, dsn, "load", path)
	t.Logf("flagship load: %d players, %d challenges:\n%s", len(ev.Players), len(ev.Challenges), bytes.TrimSpace(out))
}

// runCLI runs a one-shot flagship command and returns its stdout.
func runCLI(t *testing.T, dsn string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, flagshipBin, append([]string{"--db", dsn}, args...)...)
	cmd.Env = childEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("flagship %v: %v\nstderr: %s", args, err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// childEnv is the environment of child processes: ours without any
// FLAGSHIP_ setting that could point them elsewhere, quieter logs.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !bytes.HasPrefix([]byte(kv), []byte("FLAGSHIP_")) {
			env = append(env, kv)
		}
	}
	return append(env, "FLAGSHIP_LOG_LEVEL=warn")
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
