package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// TestMigrationReportsUsernamesDifferingInCase: a database made by an
// older release may hold usernames that differ only in case. The migration that makes usernames
// unique ignoring case refuses it with a message naming each clash and
// how to fix it, changes nothing, and succeeds once the names are fixed;
// afterwards the database itself refuses such a name.
func TestMigrationReportsUsernamesDifferingInCase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.OpenDSN(t, storetest.DSN(t))
	if err := db.MigrateTo(ctx, "0007_attempts_index.sql"); err != nil {
		t.Fatal(err)
	}
	add := func(id, username string) {
		t.Helper()
		if err := db.ExecSQL(ctx, "INSERT INTO users (id, username, created_at) VALUES (?, ?, ?)", id, username, 1); err != nil {
			t.Fatalf("insert %s: %v", username, err)
		}
	}
	add("u1", "boss")
	add("u2", "BOSS")
	add("u3", "organiser")
	add("u4", "Organiser")
	add("u5", "alice")
	err := db.Migrate(ctx)
	if err == nil {
		t.Fatal("the migration accepted boss beside BOSS and organiser beside Organiser")
	}
	msg := err.Error()
	for _, w := range []string{`"boss"`, `"BOSS"`, `"organiser"`, `"Organiser"`, "differ only in case", "UPDATE users SET username"} {
		if !strings.Contains(msg, w) {
			t.Errorf("the error does not say %s:\n%s", w, msg)
		}
	}
	if strings.Contains(msg, "alice") {
		t.Errorf("the error names alice, who clashes with nobody:\n%s", msg)
	}

	for _, fix := range []string{"UPDATE users SET username = 'boss-2' WHERE username = 'BOSS'", "UPDATE users SET username = 'organiser-2' WHERE username = 'Organiser'"} {
		if err := db.ExecSQL(ctx, fix); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate after the fix: %v", err)
	}
	_, err = db.Accounts().CreateUser(ctx, ctf.User{ID: "u6", Username: "Alice", Role: ctf.RolePlayer, CreatedAt: ctf.Millis(time.Now())}, nil)
	if ctf.ErrorCode(err) != ctf.Conflict {
		t.Fatalf("create Alice beside alice: %v, want a Conflict", err)
	}
}
