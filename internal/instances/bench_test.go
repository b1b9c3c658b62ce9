package instances

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flagshipctf/flagship/internal/testtime"
)

// BenchmarkStartToReachable times what a player waits for: from Start to
// the first line read from the instance over TCP (p50, p99, max; ns/op is
// their mean). Beside it: how long the Start call itself took (the rest is
// the service's own start and the port's first answer), and Stop, timed
// outside ns/op.
//
//	go test -run '^$' -bench StartToReachable -benchtime 20x ./internal/instances/
func BenchmarkStartToReachable(b *testing.B) {
	for _, e := range testEngines(b) {
		b.Run(e.name, func(b *testing.B) {
			var calls, starts, stops []time.Duration
			for b.Loop() {
				spec := testSpec(b)
				ctx, cancel := context.WithTimeout(b.Context(), testtime.Scale(60*time.Second))
				t0 := time.Now()
				inst := start(b, e, spec)
				calls = append(calls, time.Since(t0))
				s, err := dial(ctx, inst.HostPort)
				if err != nil {
					cancel()
					b.Fatal(err)
				}
				starts = append(starts, time.Since(t0))
				b.StopTimer()
				s.Close()
				t1 := time.Now()
				if err := e.Stop(ctx, spec.ID); err != nil {
					b.Fatal(err)
				}
				stops = append(stops, time.Since(t1))
				cancel()
				b.StartTimer()
			}
			b.ReportMetric(percentileMillis(starts, 50), "p50-ms")
			b.ReportMetric(percentileMillis(starts, 99), "p99-ms")
			b.ReportMetric(percentileMillis(starts, 100), "max-ms")
			b.ReportMetric(percentileMillis(calls, 50), "start-call-p50-ms")
			b.ReportMetric(percentileMillis(stops, 50), "stop-p50-ms")
		})
	}
}

// percentileMillis is the p-th percentile of ds (nearest rank), in ms.
func percentileMillis(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p+99)/100 - 1
	i = max(0, min(i, len(s)-1))
	return float64(s[i].Microseconds()) / 1000
}

// BenchmarkIdleInstances measures how many idle instances one host holds:
// it starts b.N instances of the test image (64 MiB limit each, as a small
// challenge would have) and keeps them all running, then reports what
// they cost the host — MemAvailable before minus after, per instance — and
// how many would fit in the memory that was available, at that cost.
// Every instance is stopped at the end.
//
//	go test -run '^$' -bench IdleInstances -benchtime 100x ./internal/instances/
func BenchmarkIdleInstances(b *testing.B) {
	for _, e := range testEngines(b) {
		b.Run(e.name, func(b *testing.B) {
			before := memAvailable(b)
			var ids []string
			for b.Loop() {
				spec := testSpec(b)
				ctx, cancel := context.WithTimeout(b.Context(), testtime.Scale(60*time.Second))
				if _, err := e.Start(ctx, spec); err != nil {
					cancel()
					b.Fatal(err)
				}
				cancel()
				ids = append(ids, spec.ID)
			}
			b.StopTimer()
			defer func() {
				for _, id := range ids {
					stop(b, e, id)
				}
			}()
			// Let the containers settle (their first pages touched) before
			// the host's memory is read.
			time.Sleep(2 * time.Second)
			after := memAvailable(b)
			per := float64(before-after) / float64(len(ids))
			b.ReportMetric(per/(1<<20), "host-MiB/instance")
			if per > 0 {
				b.ReportMetric(float64(before)/per, "instances-in-available-memory")
			}
			b.ReportMetric(float64(before)/(1<<30), "available-GiB-before")
		})
	}
}

// memAvailable reads the host's available memory, in bytes.
func memAvailable(b *testing.B) int64 {
	b.Helper()
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		b.Skipf("no /proc/meminfo: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no MemAvailable in /proc/meminfo")
	return 0
}
