package transfer_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/secret"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// hostileHash is a well-formed argon2id hash whose parameters are not: a
// check against it as it stands would panic (t=0).
const hostileHash = "$argon2id$v=19$m=19456,t=0,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"

// TestLoadRefusesHostilePasswordHashInCode: a dataset built in code, which
// no validation has seen, cannot store a password hash outside secret's
// bounds either (into an empty table or onto stored users): Load fails
// naming the entry and the field, and changes nothing.
func TestLoadRefusesHostilePasswordHashInCode(t *testing.T) {
	for _, tc := range []struct {
		name string
		db   func(t *testing.T) *store.DB
	}{{"empty database", openDB}, {"onto stored users", baseDB}} {
		t.Run(tc.name, func(t *testing.T) {
			db := tc.db(t)
			before := dump(t, db)
			ds := &dataset.Dataset{Users: []dataset.User{
				{Username: "dave", Email: "dave@example.com"},
				{Username: "mallory", PasswordHash: strings.Replace(hostileHash, "m=19456", "m=1099511627776", 1)},
			}}
			_, err := transfer.Load(context.Background(), db, ds)
			var de *dataset.Error
			if !errors.As(err, &de) || de.Entry != `users[1] (username "mallory")` || de.Field != "passwordHash" ||
				!strings.Contains(de.Msg, "memory") {
				t.Fatalf("Load = %v; want an error on users[1]'s passwordHash about its memory", err)
			}
			sameDump(t, before, dump(t, db))
		})
	}
}

// TestLoadPasswordOverHostileStoredHash: a user whose stored hash is
// outside the bounds (a row written before they held) gets a working one
// from a file that gives their password: the load compares the password
// with the stored hash first, which must not panic, and finds it does not
// match.
func TestLoadPasswordOverHostileStoredHash(t *testing.T) {
	ctx := context.Background()
	db := baseDB(t)
	h := hostileHash
	if _, _, err := db.Accounts().UpdateUser(ctx, aliceID, store.UserUpdate{PasswordHash: &h}, "", nil); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, db, writeFile(t, t.TempDir(), "reset.yaml", baseUsers))
	u, err := db.Accounts().UserByUsername(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if u.PasswordHash == hostileHash || !secret.CheckPassword(u.PasswordHash, "s3cret") {
		t.Fatalf("alice's hash after the load: %q; want a new one for s3cret", u.PasswordHash)
	}
}

// TestLoadPlaintextPasswords: plaintext passwords (hashed on every core)
// check against their users' stored hashes, and a reload of the same
// password keeps the hash.
func TestLoadPlaintextPasswords(t *testing.T) {
	var b strings.Builder
	b.WriteString("users:\n")
	for i := range 5 {
		fmt.Fprintf(&b, "  - {username: user%d, password: 'pass-word-%d', createdAt: 2026-01-01T00:00:00Z}\n", i, i)
	}
	path := writeFile(t, t.TempDir(), "users.yaml", b.String())
	for _, fresh := range []bool{true, false} {
		db := openDB(t)
		if !fresh {
			mustLoad(t, db, writeFile(t, t.TempDir(), "seed.yaml", seedYAML))
		}
		mustLoad(t, db, path)
		first := dump(t, db).Users
		for _, u := range first {
			var i int
			if _, err := fmt.Sscanf(u.Username, "user%d", &i); err != nil {
				continue // zed
			}
			if !secret.CheckPassword(u.PasswordHash, fmt.Sprintf("pass-word-%d", i)) {
				t.Errorf("fresh %v: %s's password does not check against %q", fresh, u.Username, u.PasswordHash)
			}
		}
		rep := mustLoad(t, db, path)
		if total(rep.Updated) != 0 || !reflect.DeepEqual(first, dump(t, db).Users) {
			t.Errorf("fresh %v: reloading the same passwords changed the users: %+v", fresh, rep)
		}
	}
}
