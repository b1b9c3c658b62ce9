package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/platform"
	"github.com/flagshipctf/flagship/internal/store"
)

// BenchmarkStartup rebuilds the hot state from the database, as `serve`
// does at start-up and after an operator's change.
func BenchmarkStartup(b *testing.B) {
	e := fullEnv(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		svc := platform.New(e.DB, platform.Options{PublicURL: PublicURL})
		if err := svc.Load(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStartupRSS starts a fresh process (this test binary, which
// TestMain turns into startupRSSChild) that opens the database and builds
// the hot state as `serve` does, and reports its start-up time and its
// resident memory after a GC. (This process holds the generator's
// leftovers and would overstate it.)
func BenchmarkStartupRSS(b *testing.B) {
	e := fullEnv(b)
	var rss, hwm, took float64
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "FLAGSHIP_BENCH_RSS_DB="+e.Database.DSN)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		found := false
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 4 && f[0] == "startup-rss" {
				r, _ := strconv.ParseFloat(f[1], 64)
				h, _ := strconv.ParseFloat(f[2], 64)
				t, _ := strconv.ParseFloat(f[3], 64)
				rss, hwm, took, found = r, h, t, true
			}
		}
		if !found {
			b.Fatalf("child printed no measurement:\n%s", out)
		}
	}
	b.ReportMetric(rss/1024, "MB-rss")
	b.ReportMetric(hwm/1024, "MB-peak")
	b.ReportMetric(took, "ms-startup")
}

// startupRSSChild opens the database dsn and builds the hot state as
// `serve` does, then prints "startup-rss RSS_kB PEAK_kB MILLISECONDS". On
// PostgreSQL the figure is this process's alone: the server's memory
// (shared buffers, backends) is not in it.
func startupRSSChild(dsn string) error {
	ctx := context.Background()
	start := time.Now()
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	svc := platform.New(db, platform.Options{PublicURL: PublicURL})
	if err := svc.Load(ctx); err != nil {
		return err
	}
	took := time.Since(start)
	// What a server has built before long: the shared bodies.
	h := Stack(svc, nil)
	for _, path := range []string{"/api/public/leaderboard", "/api/public/challenges"} {
		r := httptest.NewRequest("GET", path, nil)
		r.Header.Set("Accept-Encoding", "gzip")
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	runtime.GC()
	rss, hwm, err := memStatus()
	if err != nil {
		return err
	}
	fmt.Printf("startup-rss %d %d %d\n", rss, hwm, took.Milliseconds())
	runtime.KeepAlive(svc)
	return nil
}

// memStatus reads VmRSS and VmHWM (kB) from /proc/self/status.
func memStatus() (rss, hwm int64, err error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			switch f[0] {
			case "VmRSS:":
				rss, _ = strconv.ParseInt(f[1], 10, 64)
			case "VmHWM:":
				hwm, _ = strconv.ParseInt(f[1], 10, 64)
			}
		}
	}
	return rss, hwm, nil
}
