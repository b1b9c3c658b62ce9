// Package metrics exposes Flagship's Prometheus metrics: HTTP requests, the
// use cases' outcomes (as the platform's Observer), the database pools and
// the Go runtime and process. It keeps its own registry, so nothing a
// library registers globally leaks into the scrape, and two servers in one
// process (tests) do not collide.
package metrics

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/flagshipctf/flagship/internal/platform"
)

// Pools reports the database's connection pools (store.DB does).
type Pools interface {
	PoolStats() (writer, reader sql.DBStats, shared bool)
}

// Metrics is every metric of one process. It implements platform.Observer.
type Metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	series      sync.Map // seriesKey → *requestSeries
	submissions *prometheus.CounterVec
	solves      *prometheus.CounterVec
	firstBloods *prometheus.CounterVec
	stream      prometheus.Gauge
	webhooks    *prometheus.CounterVec
	delay       *prometheus.HistogramVec
	batchSize   prometheus.Histogram
	batchWait   prometheus.Histogram

	instanceStarts    *prometheus.CounterVec
	instanceStartTime prometheus.Histogram
	instancesRunning  prometheus.Gauge
}

var _ platform.Observer = (*Metrics)(nil)

// Outcomes of a submission, as platform.Observer names them: their series
// exist from the start, so a rate over them is defined before the first
// submission of each kind.
var outcomes = []string{"correct", "wrong", "practice", "refused"}

// New registers every metric on a fresh registry; pools may be nil (no
// database metrics).
func New(pools Pools) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flagship_http_requests_total",
			Help: "HTTP requests answered, by route (the matched pattern), method and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "flagship_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route (the matched pattern).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		submissions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flagship_submissions_total",
			Help: "Flag submissions checked or refused by this replica, by outcome (correct, wrong, practice, refused).",
		}, []string{"outcome"}),
		// Every replica takes in every solve; own tells which were made
		// here, so a sum over replicas of own="true" counts each once.
		solves: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flagship_solves_total",
			Help: "Solves this replica's state took in; own=true for those submitted to this replica.",
		}, []string{"own"}),
		firstBloods: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flagship_first_bloods_total",
			Help: "First bloods this replica's state took in; own=true for those submitted to this replica.",
		}, []string{"own"}),
		stream: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "flagship_stream_clients",
			Help: "Live-stream (Server-Sent Events) clients connected to this replica.",
		}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "flagship_webhook_deliveries_total",
			Help: "Webhook delivery tries, by target kind and result (ok: the target answered 2xx; failed).",
		}, []string{"kind", "result"}),
		delay: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "flagship_solve_propagation_seconds",
			Help: "Time from a solve's recorded time to its arrival in this replica's state; own=false is another replica's solve.",
			// From a local commit (≈0) to a replica that missed the
			// notification and caught up by polling (about a quarter second)
			// or one that was cut off for a while.
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"own"}),
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "flagship_submit_batch_size",
			Help:    "Submissions recorded together in one transaction and one flush to disk (group commit).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
		}),
		batchWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "flagship_submit_batch_wait_seconds",
			Help: "Time the oldest submission of a group commit waited for it to start (the latency group commit adds).",
			// A lone submission waits microseconds; under load, about one
			// batch's flush.
			Buckets: []float64{.00001, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1},
		}),
	}
	m.instanceStarts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "flagship_instance_starts_total",
		Help: "Starts of players' instances by this replica, by result (ok: it runs; failed).",
	}, []string{"result"})
	m.instanceStartTime = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "flagship_instance_start_seconds",
		Help:    "Time from an instance's reservation to its container running (or failing).",
		Buckets: []float64{.1, .25, .5, 1, 2, 4, 8, 15, 30, 60},
	})
	m.instancesRunning = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "flagship_instances_running",
		Help: "Live players' instances of the event, as the replica that reaps them counted at its last round.",
	})
	m.reg.MustRegister(m.instanceStarts, m.instanceStartTime, m.instancesRunning)
	m.reg.MustRegister(m.requests, m.latency, m.submissions, m.solves, m.firstBloods, m.stream, m.webhooks, m.delay, m.batchSize, m.batchWait,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if pools != nil {
		m.reg.MustRegister(poolCollector{pools})
	}
	for _, o := range outcomes {
		m.submissions.WithLabelValues(o)
	}
	for _, own := range []string{"true", "false"} {
		m.solves.WithLabelValues(own)
		m.firstBloods.WithLabelValues(own)
	}
	return m
}

// Registry is where the metrics are registered.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// ObserveRequest counts one answered HTTP request. route must come from a
// bounded set (a matched pattern, never the raw path): every distinct value
// is a new series kept for the process's life.
func (m *Metrics) ObserveRequest(route, method string, code int, d time.Duration) {
	s := m.requestSeries(route, method, code)
	s.count.Inc()
	s.latency.Observe(d.Seconds())
}

// seriesKey names a request's series; method is already bounded.
type seriesKey struct {
	route, method string
	code          int
}

// requestSeries holds the two series one kind of request moves, resolved
// once: looking them up by label values hashes the labels, formats the
// code and takes the vector's lock on every request.
type requestSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

func (m *Metrics) requestSeries(route, method string, code int) *requestSeries {
	k := seriesKey{route, methodLabel(method), code}
	if s, ok := m.series.Load(k); ok {
		return s.(*requestSeries)
	}
	s := &requestSeries{
		count:   m.requests.WithLabelValues(route, k.method, strconv.Itoa(code)),
		latency: m.latency.WithLabelValues(route),
	}
	// Two first requests of a kind may both get here: they resolve the
	// same series, so either value stored is right.
	m.series.Store(k, s)
	return s
}

// methodLabel keeps the method label bounded: a client may send any token.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}

// Submitted implements platform.Observer.
func (m *Metrics) Submitted(outcome string) { m.submissions.WithLabelValues(outcome).Inc() }

// SubmitBatch implements platform.Observer.
func (m *Metrics) SubmitBatch(size int, wait time.Duration) {
	m.batchSize.Observe(float64(size))
	m.batchWait.Observe(wait.Seconds())
}

// SolveApplied implements platform.Observer.
func (m *Metrics) SolveApplied(firstBlood, own bool, delay time.Duration) {
	o := strconv.FormatBool(own)
	m.solves.WithLabelValues(o).Inc()
	if firstBlood {
		m.firstBloods.WithLabelValues(o).Inc()
	}
	// Clocks of replicas may differ a little: a solve is never from the
	// future, it arrived at once.
	m.delay.WithLabelValues(o).Observe(max(delay, 0).Seconds())
}

// StreamClients implements platform.Observer.
func (m *Metrics) StreamClients(delta int) { m.stream.Add(float64(delta)) }

// WebhookDelivery implements platform.Observer.
func (m *Metrics) WebhookDelivery(kind string, ok bool) {
	result := "failed"
	if ok {
		result = "ok"
	}
	m.webhooks.WithLabelValues(kind, result).Inc()
}

// InstanceStarted implements platform.Observer.
func (m *Metrics) InstanceStarted(ok bool, took time.Duration) {
	result := "failed"
	if ok {
		result = "ok"
	}
	m.instanceStarts.WithLabelValues(result).Inc()
	m.instanceStartTime.Observe(took.Seconds())
}

// InstancesRunning implements platform.Observer.
func (m *Metrics) InstancesRunning(n int) { m.instancesRunning.Set(float64(n)) }

// Serve serves GET /metrics on ln until ctx ends, then shuts down (waiting
// at most a few seconds for a scrape in flight).
func (m *Metrics) Serve(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve metrics: %w", err)
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("shut down metrics: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve metrics: %w", err)
	}
	return nil
}
