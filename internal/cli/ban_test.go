package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApikeyCreateRefusesTheBanned: `apikey create` mints no key for a
// banned user, nor for an agent whose owner is banned (docs/product.md#banning:
// a ban covers the person), and says why; the agent of someone else still gets
// one.
func TestApikeyCreateRefusesTheBanned(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "f.db")
	file := filepath.Join(dir, "users.yaml")
	if err := os.WriteFile(file, []byte(`
users:
  - {username: pam, email: pam@example.com, banned: true}
  - {username: pam-bot, kind: agent, owner: pam, model: m}
  - {username: pat, email: pat@example.com}
  - {username: pat-bot, kind: agent, owner: pat, model: m}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, e := run(t, "", "--db", db, "load", file); code != 0 {
		t.Fatalf("load: %s", e)
	}
	for _, user := range []string{"pam", "pam-bot"} {
		code, out, errOut := run(t, "", "--db", db, "apikey", "create", "--user", user, "--name", "k")
		if code != 1 || !strings.Contains(errOut, "banned") || strings.Contains(out, "fsk_") {
			t.Errorf("apikey create --user %s: exit %d, %q %q; want 1 and a message saying banned", user, code, out, errOut)
		}
	}
	if code, out, errOut := run(t, "", "--db", db, "apikey", "create", "--user", "pat-bot", "--name", "k"); code != 0 || !strings.Contains(out, "fsk_") {
		t.Errorf("apikey create --user pat-bot: exit %d, %q %q", code, out, errOut)
	}
}
