package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"

	"github.com/flagshipctf/flagship/internal/metrics"
	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/server"
	"github.com/flagshipctf/flagship/internal/store"
)

// startMetrics serves /metrics on addr until stop is called (serve defers
// it, so the metrics server stops with the main one). With addr empty,
// metrics are off: nil observers (untyped nils, which the platform and
// the server read as "observe nothing") and a stop that does nothing.
func startMetrics(ctx context.Context, addr string, db *store.DB, log *slog.Logger) (obs platform.Observer, reqs server.RequestObserver, stop func(), err error) {
	if addr == "" {
		return nil, nil, func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("listen for metrics: %w", err)
	}
	m := metrics.New(db)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := m.Serve(ctx, ln); err != nil {
			log.Error("metrics server failed", "err", err)
		}
	}()
	log.Info("serving metrics", "addr", "http://"+displayAddr(ln.Addr())+"/metrics")
	return m, m, func() { cancel(); <-done }, nil
}

// envSwitch reads an on/off environment variable: on, true, yes, 1 or
// off, false, no, 0 (any case); def when unset or unreadable.
func envSwitch(env Env, key string, def bool) bool {
	switch strings.ToLower(strings.TrimSpace(env(key))) {
	case "on", "true", "yes", "1":
		return true
	case "off", "false", "no", "0":
		return false
	}
	return def
}
