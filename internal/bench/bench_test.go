package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/store"
	"github.com/flagshipctf/flagship/internal/synth"
)

// The full-size event is built once per test process, on first use by a
// benchmark; plain `go test` never builds it.
var (
	envOnce sync.Once
	envFull *Env
	envErr  error
	envDir  string
)

// The databases this process created, dropped at the end (or on SIGINT or
// SIGTERM).
var (
	dbsMu   sync.Mutex
	dbsMade []*Database
)

func newDatabase(dir string) (*Database, error) {
	d, err := NewDatabase(context.Background(), os.Getenv(DBEnv), dir)
	if err != nil {
		return nil, err
	}
	dbsMu.Lock()
	dbsMade = append(dbsMade, d)
	dbsMu.Unlock()
	return d, nil
}

func dropDatabases() error {
	dbsMu.Lock()
	defer dbsMu.Unlock()
	var errs []error
	for _, d := range dbsMade {
		errs = append(errs, d.Drop())
	}
	dbsMade = nil
	return errors.Join(errs...)
}

func TestMain(m *testing.M) {
	if dsn := os.Getenv("FLAGSHIP_BENCH_RSS_DB"); dsn != "" {
		// The child process of BenchmarkStartupRSS.
		if err := startupRSSChild(dsn); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		if err := dropDatabases(); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
		if envDir != "" {
			os.RemoveAll(envDir)
		}
		os.Exit(130)
	}()
	code := m.Run()
	if envFull != nil {
		envFull.Close()
	}
	if err := dropDatabases(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		if code == 0 {
			code = 1
		}
	}
	if envDir != "" {
		os.RemoveAll(envDir)
	}
	os.Exit(code)
}

func fullEnv(b *testing.B) *Env {
	b.Helper()
	envOnce.Do(func() {
		scale, err := Scale()
		if err != nil {
			envErr = err
			return
		}
		cfg := synth.Default().Scale(scale)
		cfg.Keys = min(1000, cfg.Players)
		cfg.Dynamic = os.Getenv("FLAGSHIP_BENCH_DYNAMIC") != "" // issue 21: every challenge dynamic
		if envDir, err = os.MkdirTemp("", "flagship-bench-"); err != nil {
			envErr = err
			return
		}
		d, err := newDatabase(envDir)
		if err != nil {
			envErr = err
			return
		}
		envFull, envErr = Build(context.Background(), d, cfg, store.RateLimit{})
		if envErr == nil {
			size, _ := d.Size(context.Background())
			fmt.Fprintf(os.Stderr, "bench: %s %s (%d MB): %d players, %d challenges (dynamic %v), %d solves, %d wrong attempts, %d keys: "+
				"generated in %v, written in %v, hot state loaded in %v\n",
				d.Backend, d.Name, size>>20, cfg.Players, cfg.Challenges, cfg.Dynamic, cfg.Solves, cfg.Attempts, cfg.Keys,
				envFull.GenerateTime.Round(time.Millisecond), envFull.WriteTime.Round(time.Millisecond),
				envFull.LoadTime.Round(time.Millisecond))
		}
	})
	if envErr != nil {
		b.Fatal(envErr)
	}
	return envFull
}
