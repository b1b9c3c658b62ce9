package transfer_test

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
)

// TestLoadTwoFactorAndWebhooks: a file's two-factor state and webhooks are
// upserted; reloading an older file never makes a used code good again
// (the last step only moves forward, a used recovery code stays used), and
// a json webhook written without a secret keeps the one it was given.
func TestLoadTwoFactorAndWebhooks(t *testing.T) {
	ctx := context.Background()
	db := baseDB(t)
	aliceID := func() string {
		u, err := db.Accounts().UserByUsername(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		return u.ID
	}()
	h1, h2, h3 := strings.Repeat("1", 64), strings.Repeat("2", 64), strings.Repeat("3", 64)
	const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	file := func(step int, codes ...string) string {
		return `users:
  - username: alice
    email: alice@example.com
    twoFactor: {secret: '` + strings.ToLower(secret[:8]) + " " + secret[8:] + `', lastStep: ` + strconv.Itoa(step) + `, recoveryCodes: [` + strings.Join(codes, ", ") + `]}
webhooks:
  - {name: Bot, kind: json, url: 'https://bot.example.com/in', events: [ended, firstBlood]}
  - {name: Chat, kind: discord, url: 'https://discord.com/api/webhooks/1/t', enabled: false, createdAt: 2026-01-03T00:00:00Z}
`
	}
	dir := t.TempDir()
	path := writeFile(t, dir, "secrets.yaml", file(100, h1, h2))
	rep := mustLoad(t, db, path)
	if rep.Created["twoFactor"] != 1 || rep.Created["webhooks"] != 2 {
		t.Errorf("first load: created %v", rep.Created)
	}
	tf, err := db.Accounts().TwoFactorOf(ctx, aliceID)
	if err != nil || tf.Secret != secret || tf.Step != 100 {
		t.Fatalf("two-factor after the load: %+v, %v", tf, err)
	}
	if u, _ := db.Accounts().UserByUsername(ctx, "alice"); !u.TwoFactor {
		t.Fatal("two-factor not on after the load")
	}
	hooks, err := db.Hooks().Webhooks(ctx)
	if err != nil || len(hooks) != 2 {
		t.Fatalf("webhooks: %+v, %v", hooks, err)
	}
	bot, chat := hooks[1], hooks[0] // oldest first: Chat's createdAt is given
	if bot.Name != "Bot" || len(bot.Secret) != 64 || !reflect.DeepEqual(bot.Events, []ctf.WebhookEvent{"firstBlood", "ended"}) || !bot.Enabled ||
		chat.Name != "Chat" || chat.Secret != "" || chat.Enabled || len(chat.Events) != 5 {
		t.Errorf("webhooks as loaded: %+v", hooks)
	}

	// Alice uses a recovery code and a later step; the same file again
	// changes nothing.
	if ok, err := db.Accounts().UseRecoveryCode(ctx, aliceID, h1, time.Now()); !ok || err != nil {
		t.Fatalf("use a recovery code: %v %v", ok, err)
	}
	if ok, err := db.Accounts().UseTOTPStep(ctx, aliceID, 200); !ok || err != nil {
		t.Fatalf("use a step: %v %v", ok, err)
	}
	before := dump(t, db)
	rep = mustLoad(t, db, path)
	if total(rep.Created) != 0 || total(rep.Updated) != 0 || rep.Unchanged["twoFactor"] != 1 || rep.Unchanged["webhooks"] != 2 {
		t.Errorf("second load: created %v updated %v unchanged %v", rep.Created, rep.Updated, rep.Unchanged)
	}
	sameDump(t, before, dump(t, db))
	if ok, _ := db.Accounts().UseRecoveryCode(ctx, aliceID, h1, time.Now()); ok {
		t.Error("a recovery code used before the reload is good again")
	}
	if ok, _ := db.Accounts().UseTOTPStep(ctx, aliceID, 150); ok {
		t.Error("a step before the last one used is good again after the reload")
	}
	if n, _ := db.Accounts().RecoveryCodesLeft(ctx, aliceID); n != 1 {
		t.Errorf("%d recovery codes left, want 1", n)
	}
	d := dump(t, db).Users[0]
	if d.Username != "alice" || !reflect.DeepEqual(d.TwoFactor, &dataset.TwoFactor{Secret: secret, RecoveryCodes: []string{h2}, LastStep: 200}) {
		t.Errorf("dumped: %s %+v", d.Username, d.TwoFactor)
	}

	// A file with new codes and a later step: the old codes are gone.
	rep = mustLoad(t, db, writeFile(t, dir, "newer.yaml", file(300, h3)))
	if rep.Updated["twoFactor"] != 1 {
		t.Errorf("newer file: updated %v", rep.Updated)
	}
	if tf, _ := db.Accounts().TwoFactorOf(ctx, aliceID); tf.Step != 300 {
		t.Errorf("step %d, want 300", tf.Step)
	}
	for code, want := range map[string]bool{h2: false, h3: true} {
		if ok, _ := db.Accounts().UseRecoveryCode(ctx, aliceID, code, time.Now()); ok != want {
			t.Errorf("recovery code %.4s…: accepted %v, want %v", code, ok, want)
		}
	}
}
