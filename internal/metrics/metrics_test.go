package metrics_test

import (
	"context"
	"database/sql"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/flagshipctf/flagship/internal/apitest"
	"github.com/flagshipctf/flagship/internal/metrics"
	"github.com/flagshipctf/flagship/internal/store/storetest"
)

// event: two players; kernel-panic is solved by no player yet, so a solve
// of it is a first blood.
const event = `
users:
  - {username: alice, name: Alice, email: alice@example.com, createdAt: 2026-01-01T00:00:00Z}
  - {username: erin, name: Erin, email: erin@example.com, createdAt: 2026-01-01T04:00:00Z}
challenges:
  - {slug: warmup, title: Warmup, description: Read the rules., categories: [misc], difficulty: Easy, points: 50,
     flags: ['flag{warmup}'], createdAt: 2026-01-05T10:00:00Z}
  - {slug: kernel-panic, title: Kernel Panic, description: Ring zero., categories: [pwn], difficulty: Insane,
     points: 500, flags: ['flag{kernel}'], createdAt: 2026-01-08T10:00:00Z}
solves:
  - {user: alice, challenge: warmup, at: 2026-01-10T10:00:00Z, flag: 'flag{warmup}'}
`

// serveMetrics serves m's /metrics on a real listener on port 0, as
// `serve --metrics-addr` does, and returns its base URL and its stop (also
// called when the test ends), which returns what Serve returned.
func serveMetrics(t *testing.T, m *metrics.Metrics) (base string, stop func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Serve(ctx, ln) }()
	var once sync.Once
	var serveErr error
	stop = func() error {
		once.Do(func() { cancel(); serveErr = <-done })
		return serveErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("metrics server: %v", err)
		}
	})
	return "http://" + ln.Addr().String(), stop
}

// scrape reads the metrics in the text format and parses them with
// Prometheus's own parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// value is the sample of family name whose labels include want ("k=v"
// pairs): a counter's or gauge's value, a histogram's count; ok false
// when there is none.
func value(fams map[string]*dto.MetricFamily, name string, want ...string) (v float64, ok bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for _, kv := range want {
			k, v, _ := strings.Cut(kv, "=")
			if labels[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// TestScrapeAfterRequests drives the real HTTP stack (requests, a wrong
// and a correct submission) and reads the counters back from a real
// /metrics scrape.
func TestScrapeAfterRequests(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, event, apitest.Options{Metrics: true})
	base, _ := serveMetrics(t, s.Metrics)
	url := base + "/metrics"
	before := scrape(t, url)
	erin := apitest.Bearer(s.Key("erin"))

	s.Do("GET", "/api/public/leaderboard", nil)
	s.Do("GET", "/api/public/leaderboard", nil)
	s.Do("GET", "/api/public/challenges/warmup", nil)
	wrong := s.Do("POST", "/api/public/challenges/kernel-panic/submit", []byte(`{"flag":"flag{nope}"}`), erin, "Content-Type: application/json")
	right := s.Do("POST", "/api/public/challenges/kernel-panic/submit", []byte(`{"flag":"flag{kernel}"}`), erin, "Content-Type: application/json")
	if wrong.Status != 400 || right.Status != 200 {
		t.Fatalf("submissions answered %d and %d, want 400 and 200", wrong.Status, right.Status)
	}
	s.DoRaw("GET", "/no-such-page-7f3a", nil)
	s.DoRaw("GET", "/api/public/no-such-endpoint-7f3a", nil)
	s.DoRaw("BREW", "/api/public/leaderboard", nil)
	after := scrape(t, url)

	const submit = "route=/api/public/challenges/{slug}/submit"
	for _, c := range []struct {
		name   string
		labels []string
		delta  float64
	}{
		{"flagship_http_requests_total", []string{"route=/api/public/leaderboard", "method=GET", "code=200"}, 2},
		// The latency is by route only: the two GETs and the BREW below.
		{"flagship_http_request_duration_seconds", []string{"route=/api/public/leaderboard"}, 3},
		{"flagship_http_requests_total", []string{"route=/api/public/challenges/{slug}", "method=GET", "code=200"}, 1},
		{"flagship_http_requests_total", []string{submit, "method=POST", "code=400"}, 1},
		{"flagship_http_requests_total", []string{submit, "method=POST", "code=200"}, 1},
		// An unknown method is one label value, whatever the client sent;
		// the API answers it 405 from its method-less pattern.
		{"flagship_http_requests_total", []string{"route=/api/public/leaderboard", "method=other", "code=405"}, 1},
		{"flagship_http_requests_total", []string{"route=/api/public/", "method=GET", "code=404"}, 1},
		{"flagship_submissions_total", []string{"outcome=wrong"}, 1},
		{"flagship_submissions_total", []string{"outcome=correct"}, 1},
		{"flagship_submissions_total", []string{"outcome=refused"}, 0},
		{"flagship_solves_total", []string{"own=true"}, 1},
		{"flagship_first_bloods_total", []string{"own=true"}, 1},
		{"flagship_solve_propagation_seconds", []string{"own=true"}, 1},
	} {
		was, _ := value(before, c.name, c.labels...)
		now, ok := value(after, c.name, c.labels...)
		if !ok || now-was != c.delta {
			t.Errorf("%s%v moved by %v (present %v), want %v", c.name, c.labels, now-was, ok, c.delta)
		}
	}

	// Routes are patterns, never paths: the unknown page and endpoint
	// above appear under no label of their own.
	for _, m := range after["flagship_http_requests_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if strings.Contains(l.GetValue(), "7f3a") {
				t.Errorf("a label holds a raw path: %s=%q", l.GetName(), l.GetValue())
			}
		}
	}

	// The pools are read at each scrape: SQLite's writer and readers, or
	// PostgreSQL's one pool.
	pools := []string{"writer", "reader"}
	if storetest.Postgres() {
		pools = []string{"shared"}
	}
	for _, pool := range pools {
		for _, name := range []string{"flagship_db_open_connections", "flagship_db_in_use_connections", "flagship_db_idle_connections",
			"flagship_db_max_open_connections", "flagship_db_wait_count_total", "flagship_db_wait_duration_seconds_total"} {
			if _, ok := value(after, name, "pool="+pool); !ok {
				t.Errorf("no %s{pool=%q}", name, pool)
			}
		}
		if n, _ := value(after, "flagship_db_max_open_connections", "pool="+pool); n < 1 {
			t.Errorf("flagship_db_max_open_connections{pool=%q} = %v, want ≥ 1", pool, n)
		}
	}
	// The runtime and the process, from the registry's own collectors.
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if _, ok := value(after, name); !ok {
			t.Errorf("no %s", name)
		}
	}
}

// TestObserver feeds each platform.Observer call and reads the series it
// moves from the registry.
func TestObserver(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		call   func(m *metrics.Metrics)
		metric string
		labels []string
		want   float64
	}{
		{"wrong submission", func(m *metrics.Metrics) { m.Submitted("wrong") }, "flagship_submissions_total", []string{"outcome=wrong"}, 1},
		{"practice submission", func(m *metrics.Metrics) { m.Submitted("practice") }, "flagship_submissions_total", []string{"outcome=practice"}, 1},
		{"no submission yet", func(*metrics.Metrics) {}, "flagship_submissions_total", []string{"outcome=refused"}, 0},
		{"own solve", func(m *metrics.Metrics) { m.SolveApplied(false, true, 0) }, "flagship_solves_total", []string{"own=true"}, 1},
		{"relayed first blood", func(m *metrics.Metrics) { m.SolveApplied(true, false, 40*time.Millisecond) },
			"flagship_first_bloods_total", []string{"own=false"}, 1},
		{"plain solve is no first blood", func(m *metrics.Metrics) { m.SolveApplied(false, false, 0) },
			"flagship_first_bloods_total", []string{"own=false"}, 0},
		{"relayed solve's delay", func(m *metrics.Metrics) { m.SolveApplied(false, false, 40*time.Millisecond) },
			"flagship_solve_propagation_seconds", []string{"own=false"}, 1},
		{"a solve from a clock ahead still counts", func(m *metrics.Metrics) { m.SolveApplied(false, false, -time.Second) },
			"flagship_solve_propagation_seconds", []string{"own=false"}, 1},
		{"group commits", func(m *metrics.Metrics) { m.SubmitBatch(1, 0); m.SubmitBatch(30, 2*time.Millisecond) },
			"flagship_submit_batch_size", nil, 2},
		{"group commit waits", func(m *metrics.Metrics) { m.SubmitBatch(12, time.Millisecond) }, "flagship_submit_batch_wait_seconds", nil, 1},
		{"stream clients", func(m *metrics.Metrics) { m.StreamClients(3); m.StreamClients(-1) }, "flagship_stream_clients", nil, 2},
		{"webhook ok", func(m *metrics.Metrics) { m.WebhookDelivery("discord", true) },
			"flagship_webhook_deliveries_total", []string{"kind=discord", "result=ok"}, 1},
		{"webhook failed", func(m *metrics.Metrics) { m.WebhookDelivery("generic", false); m.WebhookDelivery("generic", false) },
			"flagship_webhook_deliveries_total", []string{"kind=generic", "result=failed"}, 2},
		{"request", func(m *metrics.Metrics) { m.ObserveRequest("/x", "PROPFIND", 418, time.Millisecond) },
			"flagship_http_requests_total", []string{"route=/x", "method=other", "code=418"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := metrics.New(nil)
			c.call(m)
			fams, err := m.Registry().Gather()
			if err != nil {
				t.Fatal(err)
			}
			byName := map[string]*dto.MetricFamily{}
			for _, f := range fams {
				byName[f.GetName()] = f
			}
			if got, ok := value(byName, c.metric, c.labels...); !ok || got != c.want {
				t.Errorf("%s%v = %v (present %v), want %v", c.metric, c.labels, got, ok, c.want)
			}
		})
	}
}

// TestServeStops: the metrics server answers only GET /metrics and stops
// when its context ends.
func TestServeStops(t *testing.T) {
	t.Parallel()
	base, stop := serveMetrics(t, metrics.New(nil))
	for path, want := range map[string]int{"/metrics": 200, "/": 404, "/api/public/health": 404} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s = %d, want %d", path, resp.StatusCode, want)
		}
	}
	if err := stop(); err != nil {
		t.Fatalf("Serve after its context ended: %v", err)
	}
	if resp, err := http.Get(base + "/metrics"); err == nil {
		resp.Body.Close()
		t.Errorf("the metrics server still answers after its context ended: %d", resp.StatusCode)
	}
}

// fakePools reports fixed pool statistics.
type fakePools struct{}

func (fakePools) PoolStats() (writer, reader sql.DBStats, shared bool) {
	return sql.DBStats{OpenConnections: 1}, sql.DBStats{OpenConnections: 2}, false
}

// TestDashboardNamesRegisteredMetrics: every flagship_ series the Grafana
// dashboard queries is one this package registers, so a renamed metric
// cannot leave a panel silently empty.
func TestDashboardNamesRegisteredMetrics(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "grafana-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := metrics.New(fakePools{})
	// A labelled series exists once observed: feed every kind once.
	m.SubmitBatch(1, 0)
	m.ObserveRequest("/x", "GET", 200, time.Millisecond)
	m.WebhookDelivery("generic", false)
	m.SolveApplied(true, false, time.Millisecond)
	m.StreamClients(1)
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range fams {
		have[f.GetName()] = true
	}
	names := regexp.MustCompile(`flagship_[a-z_]+`).FindAllString(string(raw), -1)
	if len(names) == 0 {
		t.Fatal("the dashboard queries no flagship_ metric")
	}
	for _, n := range names {
		base := n
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if strings.HasSuffix(n, suffix) && !have[n] {
				base = strings.TrimSuffix(n, suffix)
			}
		}
		if !have[base] {
			t.Errorf("the dashboard queries %s, which is not registered", n)
		}
	}
}
