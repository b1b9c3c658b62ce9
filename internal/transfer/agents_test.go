package transfer_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
)

// TestAgentsRoundTrip: agent accounts (kind, owner, model, harness) load,
// dump and load again into an empty database without loss, even when a
// dataset lists an agent before its owner at the same creation time; and
// what describes an agent is checked.
func TestAgentsRoundTrip(t *testing.T) {
	const event = `
users:
  - {username: zed, email: zed@example.com, createdAt: 2026-01-01T00:00:00Z}
  - {username: a-bot, kind: agent, owner: zed, model: claude-sonnet-4-5, harness: react, createdAt: 2026-01-01T00:00:00Z}
`
	db := openDB(t)
	mustLoad(t, db, writeFile(t, t.TempDir(), "event.yaml", event))
	first := dump(t, db)
	var bot *dataset.User
	for i := range first.Users {
		if first.Users[i].Username == "a-bot" {
			bot = &first.Users[i]
		}
	}
	if bot == nil || bot.Kind != ctf.KindAgent || bot.Owner != "zed" || bot.Model != "claude-sonnet-4-5" || bot.Harness != "react" {
		t.Fatalf("dumped agent %+v", bot)
	}
	if first.Users[0].Username != "zed" {
		t.Errorf("the dump lists %s before the agent's owner", first.Users[0].Username)
	}
	var yaml bytes.Buffer
	if err := dataset.Encode(&yaml, first, "yaml"); err != nil {
		t.Fatal(err)
	}
	copyDB := openDB(t)
	mustLoad(t, copyDB, writeFile(t, t.TempDir(), "dump.yaml", yaml.String()))
	sameDump(t, first, dump(t, copyDB))

	for _, c := range []struct{ yaml, want string }{
		{`users: [{username: bot, kind: agent, model: m}]`, "owner"},
		{`users: [{username: bot, kind: agent, owner: bot, model: m}]`, "owner"},
		{`users: [{username: zed, email: z@example.com}, {username: bot, kind: agent, owner: zed}]`, "model"},
		{`users: [{username: zed, email: z@example.com}, {username: bot, kind: agent, owner: zed, model: m, role: admin}]`, "admin"},
		{`users: [{username: bot, model: m}]`, "kind: agent"},
		{`users: [{username: bot, kind: robot}]`, "kind"},
		{`users: [{username: bot, kind: agent, owner: nobody, model: m}]`, "nobody"},
	} {
		_, err := loadPaths(t, openDB(t), writeFile(t, t.TempDir(), "bad.yaml", c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %s", c.yaml, err, c.want)
		}
	}
}
