package webhook_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/testtime"
	"github.com/flagshipctf/flagship/internal/webhook"
)

// The tests run on the backend storetest chooses: SQLite by default,
// PostgreSQL with FLAGSHIP_TEST_BACKEND=postgres.
func TestMain(m *testing.M) { storetest.Main(m) }

const hookEvent = `
users:
  - {username: alice, email: alice@example.com, password: alice-password}
  - {username: root, email: root@example.com, password: root-password, role: admin}
challenges:
  - {slug: baby-rsa, title: Baby RSA, categories: [crypto], difficulty: Easy, points: 100, flags: ['flag{rsa}'], createdAt: 2026-01-01T00:00:00Z}
`

// receiver is a webhook target that fails the first two tries of every
// delivery (500) and accepts the third.
type receiver struct {
	mu       sync.Mutex
	tries    map[string]int // by X-Flagship-Delivery
	accepted []received     // the tries answered 2xx
	all      []received
}

type received struct {
	delivery, event, timestamp, signature string
	body                                  []byte
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	x := received{delivery: r.Header.Get(webhook.HeaderDelivery), event: r.Header.Get(webhook.HeaderEvent),
		timestamp: r.Header.Get(webhook.HeaderTimestamp), signature: r.Header.Get(webhook.HeaderSignature), body: body}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.all = append(rc.all, x)
	rc.tries[x.delivery]++
	if rc.tries[x.delivery] <= 2 {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	rc.accepted = append(rc.accepted, x)
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) acceptedCount() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.accepted)
}

// TestWebhooksExactlyOncePerCluster is the test: three replicas
// over one database, each running its watcher (and so the producer) and a
// delivery worker, and a target that fails every delivery's first two
// tries. A first blood, an announcement and a freeze end up accepted
// exactly once each, the signatures verify, and the delivery log shows
// three tries per delivery with the backoff's growing gaps.
func TestWebhooksExactlyOncePerCluster(t *testing.T) {
	t.Parallel()
	// The target is local: both the form and the workers allow it, as
	// serve --webhooks-allow-private does.
	s := apitest.Start(t, hookEvent, apitest.Options{WebhooksAllowPrivate: true})
	replicas := []*platform.Service{s.Svc, s.Replica(store.RateLimit{}).Svc, s.Replica(store.RateLimit{}).Svc}
	rc := &receiver{tries: map[string]int{}}
	target := httptest.NewServer(rc)
	t.Cleanup(target.Close)

	ctx := context.Background()
	hook, err := s.Svc.Webhooks.Create(ctx, ctf.Operator, platform.WebhookInput{Name: "receiver", Kind: platform.WebhookJSON,
		URL: target.URL + "/hook", Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(hook.Secret) != 64 {
		t.Fatalf("a json webhook without a secret gets a generated one, 32 bytes in hex: got %q", hook.Secret)
	}

	const base = 200 * time.Millisecond
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, svc := range replicas {
		// Each worker on its own connections, as on its own replica.
		w := webhook.New(storetest.OpenDSN(t, s.DSN).Hooks(), webhook.Options{Tick: 10 * time.Millisecond, BackoffBase: base,
			BackoffCap: time.Minute, Timeout: 5 * time.Second, Observer: svc.Observer(), AllowPrivate: true})
		wg.Add(2)
		go func() { defer wg.Done(); svc.Watch(runCtx, 10*time.Millisecond) }()
		go func() { defer wg.Done(); w.Run(runCtx) }()
	}
	stopped := false
	halt := func() {
		if !stopped {
			stopped = true
			stop()
			wg.Wait()
		}
	}
	t.Cleanup(halt)

	// The three events, each on another replica.
	alice, err := s.DB.Accounts().UserByUsername(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := replicas[1].Play.Submit(ctx, ctf.Viewer{User: &alice}, "baby-rsa", "flag{rsa}"); err != nil || !res.Success {
		t.Fatalf("first blood: %+v, %v", res, err)
	}
	if _, err := replicas[2].Event.PostAnnouncement(ctx, ctf.Operator, "Hint for Baby RSA", "Look at *e*.", "baby-rsa"); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	if _, err := replicas[0].Event.Set(ctx, ctf.Operator, ctf.Event{Freeze: &now}); err != nil {
		t.Fatal(err)
	}

	// Wait (bounded, so a bug fails instead of hanging) until the target
	// accepted three deliveries and the log says so, then stop everything
	// so nothing more can arrive before counting.
	deadline := time.Now().Add(testtime.Scale(2 * time.Minute))
	for {
		_, log, err := s.Svc.Webhooks.Deliveries(ctx, ctf.Operator, hook.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		done := rc.acceptedCount() >= 3 && len(log) >= 3
		for _, d := range log {
			done = done && d.Status == store.DeliveryDelivered
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not delivered in time: %d accepted, log %+v", rc.acceptedCount(), log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	halt()

	// Exactly one accepted delivery per event, and no event twice.
	ids := map[string]bool{}
	events := map[ctf.WebhookEvent]int{}
	seqs := map[int64]bool{}
	for _, a := range rc.accepted {
		ids[a.delivery] = true
		var p platform.WebhookPayload
		if err := json.Unmarshal(a.body, &p); err != nil {
			t.Fatalf("accepted body %s: %v", a.body, err)
		}
		if string(p.Event) != a.event {
			t.Errorf("body event %q, header %q", p.Event, a.event)
		}
		if seqs[p.Seq] {
			t.Errorf("stream event %d delivered twice", p.Seq)
		}
		seqs[p.Seq] = true
		events[p.Event]++
	}
	if len(rc.accepted) != 3 || len(ids) != 3 {
		t.Errorf("accepted %d tries with %d delivery ids, want 3 and 3", len(rc.accepted), len(ids))
	}
	for _, e := range []ctf.WebhookEvent{platform.HookFirstBlood, platform.HookAnnouncement, platform.HookFrozen} {
		if events[e] != 1 {
			t.Errorf("%s accepted %d times, want once", e, events[e])
		}
	}
	for _, a := range rc.accepted {
		var p platform.WebhookPayload
		json.Unmarshal(a.body, &p)
		switch p.Event {
		case platform.HookFirstBlood:
			if p.User == nil || p.User.Username != "alice" || p.Challenge == nil || p.Challenge.Slug != "baby-rsa" ||
				p.Points == nil || *p.Points != 100 || p.Rank == nil || *p.Rank != 1 {
				t.Errorf("first blood payload: %s", a.body)
			}
		case platform.HookAnnouncement:
			if p.Title != "Hint for Baby RSA" || p.Body != "Look at *e*." || p.Challenge == nil || p.Challenge.Title != "Baby RSA" {
				t.Errorf("announcement payload: %s", a.body)
			}
		}
	}

	// Every try is signed with the webhook's secret, and a wrong secret
	// or a changed body does not verify.
	for _, x := range rc.all {
		if !webhook.VerifySignature(hook.Secret, x.timestamp, x.body, x.signature) {
			t.Errorf("delivery %s: signature %q does not verify", x.delivery, x.signature)
		}
		if _, err := strconv.ParseInt(x.timestamp, 10, 64); err != nil {
			t.Errorf("timestamp %q is not Unix seconds", x.timestamp)
		}
	}
	x := rc.all[0]
	if webhook.VerifySignature("another secret", x.timestamp, x.body, x.signature) ||
		webhook.VerifySignature(hook.Secret, x.timestamp, append(x.body, ' '), x.signature) {
		t.Error("a signature verifies with another secret or body")
	}

	// The log: three deliveries, each tried three times (500, 500, 204),
	// with the backoff's growing waits between the tries.
	_, log, err := s.Svc.Webhooks.Deliveries(ctx, ctf.Operator, hook.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 3 {
		t.Fatalf("%d deliveries in the outbox, want 3: %+v", len(log), log)
	}
	for _, d := range log {
		if d.Attempts != 3 || len(d.Log) != 3 || d.DeliveredAt == nil {
			t.Fatalf("delivery %d (%s): %d tries logged, %d counted, delivered at %v; want 3, 3 and a time", d.Seq, d.Event, len(d.Log), d.Attempts, d.DeliveredAt)
		}
		for i, code := range []int{500, 500, 204} {
			if d.Log[i].StatusCode != code {
				t.Errorf("delivery %d try %d: status %d, want %d", d.Seq, i+1, d.Log[i].StatusCode, code)
			}
		}
		if d.Log[0].Error == "" || d.Log[2].Error != "" {
			t.Errorf("delivery %d: errors %q, %q, %q: want one for a 500 and none for a 204", d.Seq, d.Log[0].Error, d.Log[1].Error, d.Log[2].Error)
		}
		// The waits the failed tries scheduled double (base, then 2·base,
		// each with up to a tenth of jitter), and no try came before its
		// time. Times are whole milliseconds: a wait reads within 2 ms.
		for i, wait := range []time.Duration{base, 2 * base} {
			a := d.Log[i]
			if a.NextAt == nil {
				t.Fatalf("delivery %d try %d: no retry scheduled", d.Seq, i+1)
			}
			got := a.NextAt.Sub(a.At.Add(a.Duration))
			if got < wait-2*time.Millisecond || got > wait+wait/10+2*time.Millisecond {
				t.Errorf("delivery %d try %d: retry scheduled after %v, want %v plus at most a tenth", d.Seq, i+1, got, wait)
			}
			if d.Log[i+1].At.Before(*a.NextAt) {
				t.Errorf("delivery %d: try %d at %v, before its time %v", d.Seq, i+2, d.Log[i+1].At, *a.NextAt)
			}
		}
		if d.Log[2].NextAt != nil {
			t.Errorf("delivery %d: a retry scheduled after it was delivered", d.Seq)
		}
	}
}
