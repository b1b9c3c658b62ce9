package apitest

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/dataset"
	"github.com/flagshipctf/flagship/internal/openapi/contract"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/server"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/transfer"
)

// itServeEmpty serves an empty, migrated database like Start does, but with
// the given public URL, so that file links of two servers can be compared.
func itServeEmpty(t *testing.T, publicURL string, now func() time.Time) *Server {
	t.Helper()
	ctx := context.Background()
	dsn := storetest.DSN(t)
	db := storetest.OpenDSN(t, dsn)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	v, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	s := &Server{T: t, DB: db, DSN: dsn, DBPath: SQLitePath(dsn), Validator: v}
	s.Svc = platform.New(db, platform.Options{PublicURL: publicURL, RateLimit: store.RateLimit{Max: 10, Window: time.Minute}, Logger: log, Now: now})
	if err := s.Svc.Load(ctx); err != nil {
		t.Fatal(err)
	}
	s.HTTP, s.front = Serve(t, s.Svc, server.Options{Log: log})
	s.URL = s.HTTP.URL
	return s
}

func itDumpYAML(t *testing.T, s *Server) []byte {
	t.Helper()
	ds, err := transfer.Dump(context.Background(), s.DB)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := dataset.Encode(&buf, ds, "yaml"); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestIntegrationDumpLoadRoundTrip: after live play, `dump | load` into an
// empty database serves byte-identical public responses, and the API keys
// (stored as hashes) still authenticate.
func TestIntegrationDumpLoadRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Both servers share a clock that moves only when told, so that no key's
	// lastUsedAt is touched again after the dump, however slow the run.
	t0 := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	var ticks atomic.Int64
	now := func() time.Time { return t0.Add(time.Duration(ticks.Load()) * time.Second) }
	a := itStart(t, Options{Now: now})
	keys := map[string]string{}
	for _, u := range []string{"alice", "bob", "carol", "dave", "erin", "root", "mallory"} {
		keys[u], _ = itKey(t, a, u, "laptop", t0.Add(-time.Hour))
	}
	revoked := itRevokedKey(t, a, "alice")
	// What the use cases add: a read-only key, a rejected writeup's reason.
	_, readOnly, err := a.Svc.Keys.Create(ctx, ctf.Operator, platform.NewAPIKey{Owner: itUID(t, a, "bob"), Name: "agent", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := a.Svc.Accounts.AuthenticateKey(ctx, keys["bob"])
	if err != nil {
		t.Fatal(err)
	}
	w, err := a.Svc.Play.SaveWriteup(ctx, bob, "warmup", platform.WriteupInput{Title: "Mine", Content: "Spoilers"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Svc.Content.ModerateWriteup(ctx, ctf.Operator, w.ID, false, "Too short"); err != nil {
		t.Fatal(err)
	}
	// Live play: wrong attempts and solves, a regex flag, an Insane first blood.
	for _, p := range []struct{ user, slug, flag string }{
		{"erin", "lost-packets", "nope"}, {"erin", "warmup", " flag{warmup} "}, {"erin", "web-login", "flag{00c0ffee}"},
		{"dave", "kernel-panic", "flag{kernel}"}, {"carol", "warmup", "FLAG{warmup}"}, {"root", "rop-chain", "x"},
	} {
		ticks.Add(1)
		r := itSubmit(a, p.slug, p.flag, Bearer(keys[p.user]))
		if r.Status != 200 && r.Status != 400 && r.Status != 403 {
			t.Fatalf("%s on %s: %d %s", p.user, p.slug, r.Status, r.Body)
		}
	}
	// Every key is used once before the dump, so lastUsedAt is in the dump
	// and within the minute in which it is not touched again.
	for _, k := range keys {
		itGet(t, a, "/api/public/me", Bearer(k))
	}
	// Uses are written off the request path; a running server's watcher
	// writes them within a quarter second.
	a.Svc.FlushTouches(ctx)
	// Two-factor authentication and webhooks survive dump | load, the
	// documented move to PostgreSQL.
	tf := itTwoFactorUser(t, a, now)
	hooks := itWebhooks(t, a)

	dump, b := itDumpLoad(t, a, now)

	paths := itPublicPaths(t, a, keys, "draft", "nope")
	same := func(path string, h ...string) {
		t.Helper()
		itSame(t, a, b, path, h...)
	}
	for _, p := range paths {
		same(p)
	}
	for _, k := range keys {
		h := Bearer(k)
		for _, p := range append(paths, "/api/public/me", "/api/public/challenges/warmup/writeups", "/api/public/challenges/baby-rsa/writeups") {
			same(p, h)
		}
	}
	// The read-only key is read-only still, the reason still shown.
	if v, err := b.Svc.Accounts.AuthenticateKey(ctx, readOnly); err != nil || !v.ReadOnly {
		t.Errorf("the read-only key after dump | load: %+v, %v; want it read-only", v, err)
	}
	if !bytes.Contains(dump, []byte("readOnly: true")) || !bytes.Contains(dump, []byte("reason: Too short")) {
		t.Errorf("the dump lacks the key's read-only mark or the writeup's reason:\n%s", dump)
	}
	// And the database says the same thing: dump(load(dump)) = dump.
	if again := itDumpYAML(t, b); !bytes.Equal(itDumpYAML(t, a), again) {
		t.Errorf("the dump of the loaded dump differs:\n%s\n----\n%s", itDumpYAML(t, a), again)
	}
	itError(t, "revoked key after load", b.Do("GET", "/api/public/me", nil, Bearer(revoked)), 401)
	// Live play goes on identically on both.
	for _, s := range []*Server{a, b} {
		itMatch(t, "submit after load", itDecode(t, "submit", itSubmit(s, "lost-packets", "flag{pcap}", Bearer(keys["erin"])).Body),
			`{"result":{"success":true,"points":150,"newBadges":[{"id":"category-forensics"}]}}`)
	}
	same("/api/public/challenges/lost-packets")

	// The webhooks are there to keep sending, secrets included.
	if got := itWebhooksOf(t, b); !reflect.DeepEqual(got, hooks) {
		t.Errorf("webhooks after dump | load:\n%+v\nwant\n%+v", got, hooks)
	}
	// Two-factor authentication is still on: the password alone is not
	// enough, the code used before the dump and the recovery code used
	// then are refused, an unused recovery code and the next code of the
	// same generator are accepted.
	login := func(label, code string, wantOK, wantNeedCode bool) {
		t.Helper()
		r, err := b.Svc.Accounts.Login(ctx, platform.Login{Username: tf.username, Password: tf.password, Code: code, Address: "192.0.2.1"})
		if ok := err == nil && r.Token != ""; ok != wantOK || r.NeedCode != wantNeedCode {
			t.Errorf("%s after dump | load: %+v, %v; want a session %v, asked for a code %v", label, r, err, wantOK, wantNeedCode)
		}
	}
	login("the password alone", "", false, true)
	login("the TOTP code used before the dump", tf.code(now()), false, false)
	login("the recovery code used before the dump", tf.usedRecovery, false, false)
	login("an unused recovery code", tf.recovery, true, false)
	ticks.Add(30)
	login("the next TOTP code", tf.code(now()), true, false)
}

// itTwoFactor is a user with two-factor authentication on, a TOTP step and
// a recovery code used.
type itTwoFactor struct {
	username, password     string
	secret                 string
	recovery, usedRecovery string
}

func (tf itTwoFactor) code(at time.Time) string {
	c, err := totp.GenerateCodeCustom(tf.secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		panic(err)
	}
	return c
}

// itTwoFactorUser makes a user with a password, turns two-factor
// authentication on (using the code of the current step) and logs in once
// with a recovery code.
func itTwoFactorUser(t *testing.T, s *Server, now func() time.Time) itTwoFactor {
	t.Helper()
	ctx := context.Background()
	tf := itTwoFactor{username: "tess", password: "correct horse battery"}
	u, err := s.Svc.Accounts.CreateUser(ctx, ctf.Operator, platform.NewUser{Username: tf.username, Email: "tess@example.com", Password: tf.password})
	if err != nil {
		t.Fatal(err)
	}
	s.Sync()
	r, err := s.Svc.Accounts.Login(ctx, platform.Login{Username: tf.username, Password: tf.password, Address: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.Svc.Accounts.AuthenticateSession(ctx, r.Token)
	if err != nil || v.ID() != u.ID {
		t.Fatalf("session of %s: %+v, %v", tf.username, v, err)
	}
	enrol, err := s.Svc.Accounts.BeginTwoFactor(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	tf.secret = enrol.Secret
	codes, err := s.Svc.Accounts.ConfirmTwoFactor(ctx, v, tf.code(now()))
	if err != nil {
		t.Fatal(err)
	}
	tf.usedRecovery, tf.recovery = codes[0], codes[1]
	if r, err := s.Svc.Accounts.Login(ctx, platform.Login{Username: tf.username, Password: tf.password, Code: tf.usedRecovery, Address: "192.0.2.1"}); err != nil || r.Token == "" {
		t.Fatalf("login with a recovery code before the dump: %+v, %v", r, err)
	}
	s.Sync()
	return tf
}

// itWebhooks makes two webhooks, one of them off, and returns them as
// itWebhooksOf reads them.
func itWebhooks(t *testing.T, s *Server) []platform.Webhook {
	t.Helper()
	ctx := context.Background()
	for _, in := range []platform.WebhookInput{
		{Name: "Signed", Kind: platform.WebhookJSON, URL: "https://hooks.example.com/ctf?team=1", Secret: "0123456789abcdef-secret", Enabled: true},
		{Name: "Discord", Kind: platform.WebhookDiscord, URL: "https://discord.com/api/webhooks/1/token",
			Events: []ctf.WebhookEvent{platform.HookFirstBlood, platform.HookAnnouncement}},
	} {
		if _, err := s.Svc.Webhooks.Create(ctx, ctf.Operator, in); err != nil {
			t.Fatal(err)
		}
	}
	return itWebhooksOf(t, s)
}

// itWebhooksOf reads the webhooks as a round trip keeps them: not the
// counts of their deliveries (the log does not move), nor where in the
// stream they start.
func itWebhooksOf(t *testing.T, s *Server) []platform.Webhook {
	t.Helper()
	hooks, err := s.Svc.Webhooks.List(context.Background(), ctf.Operator)
	if err != nil {
		t.Fatal(err)
	}
	for i := range hooks {
		hooks[i].AfterSeq, hooks[i].Pending, hooks[i].Delivered, hooks[i].Failed = 0, 0, 0, 0
	}
	return hooks
}

// itPublicPaths lists the public reads a round trip compares: the lists,
// every challenge of the event and the extra slugs, and the users' profiles.
func itPublicPaths(t *testing.T, s *Server, users map[string]string, slugs ...string) []string {
	t.Helper()
	paths := []string{"/api/public/health", "/api/public/challenges", "/api/public/leaderboard"}
	for _, slug := range append(append([]string{}, listOrder...), slugs...) {
		paths = append(paths, "/api/public/challenges/"+slug)
	}
	for u := range users {
		paths = append(paths, "/api/public/profiles/"+itUID(t, s, u))
	}
	return paths
}

// itSame fails unless a and b answer GET path alike: status, body, ETag.
func itSame(t *testing.T, a, b *Server, path string, h ...string) {
	t.Helper()
	ra, rb := a.Do("GET", path, nil, h...), b.Do("GET", path, nil, h...)
	if ra.Status != rb.Status || !bytes.Equal(ra.Body, rb.Body) {
		t.Errorf("GET %s %v:\n  before dump: %d %s\n  after load:  %d %s", path, h, ra.Status, ra.Body, rb.Status, rb.Body)
	} else if ra.Header.Get("ETag") != rb.Header.Get("ETag") {
		t.Errorf("GET %s %v: ETag %s vs %s", path, h, ra.Header.Get("ETag"), rb.Header.Get("ETag"))
	}
}

// itDumpLoad dumps a and loads the dump into a new server on an empty
// database, twice (the second load changes nothing). The new server
// rebuilds its state as a replica does when it notices the load's revision.
func itDumpLoad(t *testing.T, a *Server, now func() time.Time) ([]byte, *Server) {
	t.Helper()
	dump := itDumpYAML(t, a)
	ds, err := dataset.Decode(dump, filepath.Join(t.TempDir(), "dump.yaml"))
	if err != nil {
		t.Fatalf("decode the dump: %v\n%s", err, dump)
	}
	b := itServeEmpty(t, a.URL, now)
	for range 2 {
		if _, err := transfer.Load(context.Background(), b.DB, ds); err != nil {
			t.Fatalf("load the dump: %v", err)
		}
		b.Sync()
	}
	return dump, b
}
