package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// TestMailOutboxClaims: a message is claimed by one replica at a time
// (two databases on one DSN stand for two replicas), comes back after its
// lease lapses, and leaves the queue once its try is recorded.
func TestMailOutboxClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := storetest.DSN(t)
	a := storetest.OpenDSN(t, dsn)
	if err := a.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	b := storetest.OpenDSN(t, dsn)
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for _, to := range []string{"one@example.org", "two@example.org"} {
		if err := a.Mail().Enqueue(ctx, store.OutMail{Kind: "test", To: to, Subject: "s", Text: "t", CreatedAt: t0, GiveUpAt: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := a.Mail().ClaimMail(ctx, t0, time.Minute, 1)
	if err != nil || len(got) != 1 || got[0].To != "one@example.org" || got[0].Attempts != 0 {
		t.Fatalf("first claim: %+v, %v", got, err)
	}
	other, err := b.Mail().ClaimMail(ctx, t0, time.Minute, 10)
	if err != nil || len(other) != 1 || other[0].To != "two@example.org" {
		t.Fatalf("the other replica's claim: %+v, %v (want only the unclaimed message)", other, err)
	}
	if again, err := b.Mail().ClaimMail(ctx, t0.Add(30*time.Second), time.Minute, 10); err != nil || len(again) != 0 {
		t.Fatalf("claimed within the lease: %+v, %v", again, err)
	}
	// The first replica dies: past the lease, another claims its message.
	back, err := b.Mail().ClaimMail(ctx, t0.Add(2*time.Minute), time.Minute, 10)
	if err != nil || len(back) != 2 {
		t.Fatalf("after the lease: %+v, %v", back, err)
	}
	if err := b.Mail().RecordMailTry(ctx, back[0].Seq, t0.Add(2*time.Minute), store.MailOutcome{Status: store.MailSent}); err != nil {
		t.Fatal(err)
	}
	retryAt := t0.Add(5 * time.Minute)
	if err := b.Mail().RecordMailTry(ctx, back[1].Seq, t0.Add(2*time.Minute), store.MailOutcome{Status: store.MailPending, NextAt: retryAt, Error: "451"}); err != nil {
		t.Fatal(err)
	}
	if none, err := a.Mail().ClaimMail(ctx, retryAt.Add(-time.Second), time.Minute, 10); err != nil || len(none) != 0 {
		t.Fatalf("claimed before its retry: %+v, %v", none, err)
	}
	retry, err := a.Mail().ClaimMail(ctx, retryAt, time.Minute, 10)
	if err != nil || len(retry) != 1 || retry[0].Seq != back[1].Seq || retry[0].Attempts != 1 {
		t.Fatalf("the retry: %+v, %v", retry, err)
	}
	box, err := a.Mail().Outbox(ctx, 10)
	if err != nil || len(box) != 2 || box[1].Status != store.MailSent || box[1].SentAt == nil || box[0].LastError != "451" {
		t.Fatalf("outbox: %+v, %v", box, err)
	}
}

// TestPasswordResetTokens: a reset and its message are written together;
// a token works once, not after it expires, and using one spends the
// user's others and ends every session.
func TestPasswordResetTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t)
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	if _, err := db.Accounts().CreateUser(ctx, ctf.User{ID: "u1", Username: "alice", Email: "a@example.com", Role: ctf.RolePlayer, CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Accounts().CreateSession(ctx, ctf.Session{IDHash: "s1", UserID: "u1", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour), LastSeenAt: t0}); err != nil {
		t.Fatal(err)
	}
	mk := func(hash string, exp time.Duration) {
		t.Helper()
		err := db.Accounts().CreatePasswordReset(ctx, store.PasswordReset{TokenHash: hash, UserID: "u1", Origin: "email", CreatedAt: t0, ExpiresAt: t0.Add(exp)},
			&store.OutMail{Kind: "password-reset", To: "a@example.com", Subject: "reset", Text: hash, CreatedAt: t0, GiveUpAt: t0.Add(exp)}, nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	mk("h1", 30*time.Minute)
	mk("h2", 30*time.Minute)
	if err := db.Accounts().CreatePasswordReset(ctx, store.PasswordReset{TokenHash: "h3", UserID: "nobody", Origin: "admin", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}, nil, nil); ctf.ErrorCode(err) != ctf.NotFound {
		t.Errorf("a reset for no user: %v", err)
	}
	if box, _ := db.Mail().Outbox(ctx, 10); len(box) != 2 {
		t.Errorf("%d messages, want one per reset", len(box))
	}
	if _, err := db.Accounts().PasswordResetUser(ctx, "h1", t0.Add(31*time.Minute)); ctf.ErrorCode(err) != ctf.Invalid {
		t.Errorf("an expired token: %v", err)
	}
	if id, err := db.Accounts().PasswordResetUser(ctx, "h1", t0.Add(time.Minute)); err != nil || id != "u1" {
		t.Fatalf("a valid token: %q, %v", id, err)
	}
	if _, _, err := db.Accounts().ResetPassword(ctx, "h1", "newhash", t0.Add(31*time.Minute), nil); ctf.ErrorCode(err) != ctf.Invalid {
		t.Errorf("an expired token used: %v", err)
	}
	audit := &ctf.AuditEntry{Actor: "alice", Action: "user.password-reset", At: t0}
	u, _, err := db.Accounts().ResetPassword(ctx, "h1", "newhash", t0.Add(time.Minute), audit)
	if err != nil || u.PasswordHash != "newhash" || u.ID != "u1" {
		t.Fatalf("reset: %+v, %v", u, err)
	}
	for _, h := range []string{"h1", "h2"} {
		if _, _, err := db.Accounts().ResetPassword(ctx, h, "again", t0.Add(2*time.Minute), nil); ctf.ErrorCode(err) != ctf.Invalid {
			t.Errorf("token %s used after a reset: %v", h, err)
		}
	}
	e, err := db.Entities(ctx, []store.ChangeRef{{Kind: store.ChangeSessions, Entity: "u1"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(e.Sessions["u1"]); n != 0 {
		t.Errorf("%d sessions still active after a reset", n)
	}
	log, err := db.Content().AuditLog(ctx, 0, 5)
	if err != nil || len(log) == 0 || log[0].Action != "user.password-reset" || log[0].Target != "alice" {
		t.Errorf("audit: %+v, %v", log, err)
	}
}
