package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/ctf"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/store/storetest"
	"github.com/flagshipctf/flagship/internal/testtime"
)

// TestServeWebhooksAllowPrivate runs the real `serve` over a database
// holding a webhook to a local target with one delivery due: by default
// the target is refused; with FLAGSHIP_WEBHOOKS_ALLOW_PRIVATE (or
// --webhooks-allow-private) it is called.
func TestServeWebhooksAllowPrivate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		env    string
		called bool
	}{
		{"default", nil, "", false},
		{"flag", []string{"--webhooks-allow-private"}, "", true},
		{"environment", nil, "on", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int64
			tg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				hits.Add(1)
				w.WriteHeader(http.StatusNoContent)
			}))
			t.Cleanup(tg.Close)
			dsn := "sqlite:" + filepath.Join(t.TempDir(), "hooks.db")
			hookID := queueLocalDelivery(t, dsn, tg.URL+"/hook")

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			env := func(k string) string {
				if k == "FLAGSHIP_WEBHOOKS_ALLOW_PRIVATE" {
					return tc.env
				}
				return ""
			}
			var out, errb syncBuffer
			done := make(chan int, 1)
			go func() {
				done <- Run(ctx, append([]string{"--db", dsn, "serve", "--addr", "127.0.0.1:0"}, tc.args...), env,
					IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
			}()
			// Wait (bounded) for the delivery's first try, read from the
			// database the server writes.
			db := storetest.OpenDSN(t, dsn)
			var try store.DeliveryTry
			for deadline := time.Now().Add(testtime.Scale(30 * time.Second)); ; time.Sleep(20 * time.Millisecond) {
				ds, err := db.Hooks().Deliveries(ctx, hookID, 1)
				if err != nil {
					t.Fatal(err)
				}
				if len(ds) == 1 && len(ds[0].Log) > 0 {
					try = ds[0].Log[0]
					break
				}
				select {
				case code := <-done:
					t.Fatalf("serve exited early with %d: %s", code, errb.String())
				default:
				}
				if time.Now().After(deadline) {
					t.Fatalf("the delivery was not tried within %v:\n%s", testtime.Scale(30*time.Second), errb.String())
				}
			}
			cancel()
			waitServeExit(t, done, &errb)

			if called := hits.Load() > 0; called != tc.called || (try.StatusCode == http.StatusNoContent) != tc.called {
				t.Errorf("target called %d times, logged HTTP %d %q; want called: %v", hits.Load(), try.StatusCode, try.Error, tc.called)
			}
			if !tc.called && try.Error != platform.TryRefused {
				t.Errorf("logged %q, want %q", try.Error, platform.TryRefused)
			}
			if warned := regexp.MustCompile(`webhooks may reach private addresses`).MatchString(errb.String()); warned != tc.called {
				t.Errorf("the start-up warning shown: %v, want %v:\n%s", warned, tc.called, errb.String())
			}
		})
	}
}

// queueLocalDelivery migrates the database at dsn and stores a json
// webhook to url with one delivery due, and returns the webhook's id.
func queueLocalDelivery(t *testing.T, dsn, url string) string {
	t.Helper()
	ctx := context.Background()
	db := storetest.OpenDSN(t, dsn)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	hook, err := db.Hooks().CreateWebhook(ctx, store.Webhook{ID: ctf.NewID(), Name: "local", Kind: platform.WebhookJSON, URL: url,
		Secret: strings.Repeat("s", 32), Events: platform.WebhookEvents, Enabled: true, CreatedAt: time.Now()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Hooks().ProduceDeliveries(ctx, 1, func(int64, []store.Webhook) ([]store.NewDelivery, int64, error) {
		return []store.NewDelivery{{WebhookID: hook.ID, StreamSeq: 1, Event: platform.HookFrozen, Body: `{"event":"frozen","seq":1}`}}, 1, nil
	}); err != nil {
		t.Fatal(err)
	}
	return hook.ID
}
