package cli

import (
	"context"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/testtime"
)

// TestServeOperations runs the real `serve` with metrics on (port 0) and
// the CTFtime feed off (by its environment variable), reads /metrics and
// the feed, then stops it and expects the metrics listener gone too.
func TestServeOperations(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "ops.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := func(k string) string {
		if k == "FLAGSHIP_CTFTIME" {
			return "off"
		}
		return ""
	}
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"--db", db, "serve", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}, env,
			IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	}()
	urlRE := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
	metricsRE := regexp.MustCompile(`serving metrics.*addr=(http://127\.0\.0\.1:\d+/metrics)`)
	var base, metricsURL string
	for deadline := time.Now().Add(testtime.Scale(10 * time.Second)); time.Now().Before(deadline) && base == ""; time.Sleep(20 * time.Millisecond) {
		if m := urlRE.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited early with %d: %s", code, errb.String())
		default:
		}
	}
	if m := metricsRE.FindStringSubmatch(errb.String()); m != nil {
		metricsURL = m[1]
	}
	if base == "" || metricsURL == "" {
		t.Fatalf("no address or metrics address within 10 s:\n%s\n%s", out.String(), errb.String())
	}

	status := func(url string) int {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for url, want := range map[string]int{base + "/livez": 200, base + "/readyz": 200, base + "/api/ctftime": 404,
		base + "/metrics": 404, metricsURL: 200} {
		if got := status(url); got != want {
			t.Errorf("GET %s = %d, want %d", url, got, want)
		}
	}

	cancel()
	waitServeExit(t, done, &errb)
	http.DefaultClient.CloseIdleConnections()
	if resp, err := http.Get(metricsURL); err == nil {
		resp.Body.Close()
		t.Errorf("the metrics server still answers after serve returned: %d", resp.StatusCode)
	}
}

func TestEnvSwitch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		value     string
		def, want bool
	}{
		{"", true, true}, {"off", true, false}, {"OFF", true, false}, {"false", true, false}, {"0", true, false},
		{"no", true, false}, {"on", false, true}, {" yes ", false, true}, {"1", false, true}, {"maybe", true, true},
	} {
		if got := envSwitch(func(string) string { return c.value }, "K", c.def); got != c.want {
			t.Errorf("envSwitch(%q, default %v) = %v, want %v", c.value, c.def, got, c.want)
		}
	}
}

// waitServeExit waits for a stopped `serve` (its exit code on done) to
// exit cleanly.
func waitServeExit(t *testing.T, done <-chan int, errb *syncBuffer) {
	t.Helper()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited with %d after shutdown: %s", code, errb.String())
		}
	case <-time.After(testtime.Scale(20 * time.Second)):
		t.Fatal("serve did not shut down")
	}
}
