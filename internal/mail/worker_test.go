package mail_test

import (
	"context"
	"crypto/tls"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/mail"
	"github.com/flagshipctf/flagship/internal/mail/mailtest"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// clock is a test's settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// TestWorkerSendsRetriesAndGivesUp: two replicas' workers over one
// database send each message once; a refused try (451) is retried after
// the backoff, a 550 fails the message for good, and a message still
// failing at its give-up time is failed.
func TestWorkerSendsRetriesAndGivesUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := storetest.DSN(t)
	db := storetest.OpenDSN(t, dsn)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	db2 := storetest.OpenDSN(t, dsn)
	srv := mailtest.Start(t, mailtest.Options{User: "ctf", Password: "pw"})
	c, _ := mail.ParseURL(srv.URL())
	c.TLS = &tls.Config{RootCAs: srv.Roots}
	from, _ := mail.ParseFrom("Flagship <ctf@example.org>")
	sender := mail.NewSender(c, from)
	clk := &clock{t: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	o := mail.Options{Now: clk.Now, BackoffBase: 10 * time.Second, BackoffCap: time.Minute}
	w1, w2 := mail.NewWorker(db.Mail(), sender, o), mail.NewWorker(db2.Mail(), sender, o)
	round := func() {
		w1.Round(ctx)
		w2.Round(ctx)
		w1.Wait()
		w2.Wait()
	}
	enqueue := func(to string, life time.Duration) {
		t.Helper()
		if err := db.Mail().Enqueue(ctx, store.OutMail{Kind: "test", To: to, Subject: "s " + to, Text: "t", HTML: "<p>h</p>",
			CreatedAt: clk.Now(), GiveUpAt: clk.Now().Add(life)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, to := range []string{"a@example.net", "b@example.net", "c@example.net"} {
		enqueue(to, time.Hour)
	}
	round()
	if got := srv.Messages(); len(got) != 3 {
		t.Fatalf("%d messages sent, want 3 (each once)", len(got))
	}
	round()
	if got := srv.Messages(); len(got) != 3 {
		t.Fatalf("%d messages after a second round, want 3", len(got))
	}

	srv.Refuse("451 4.3.0 try later")
	enqueue("d@example.net", time.Hour)
	round()
	clk.Add(5 * time.Second)
	round()
	if got := srv.Messages(); len(got) != 3 {
		t.Fatalf("retried before the backoff: %d messages", len(got))
	}
	clk.Add(7 * time.Second)
	round()
	if got := srv.Messages(); len(got) != 4 || got[3].To[0] != "d@example.net" {
		t.Fatalf("the retry: %+v", got)
	}

	srv.Refuse("550 5.1.1 no such user")
	enqueue("e@example.net", time.Hour)
	round() // alone: the refusals go to messages in the order they reach DATA
	srv.Refuse("451 4.3.0 try later", "451 4.3.0 try later")
	enqueue("f@example.net", 15*time.Second)
	round()
	clk.Add(12 * time.Second)
	round()
	box, err := db.Mail().Outbox(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, m := range box {
		status[m.To] = m.Status
	}
	if status["e@example.net"] != store.MailFailed || status["f@example.net"] != store.MailFailed || status["d@example.net"] != store.MailSent {
		t.Errorf("statuses: %v", status)
	}
	if got := srv.Messages(); len(got) != 4 {
		t.Errorf("%d messages, want 4", len(got))
	}
}
