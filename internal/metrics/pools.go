package metrics

import (
	"database/sql"

	"github.com/prometheus/client_golang/prometheus"
)

// poolCollector reads the pools' statistics at each scrape: they are
// counters and gauges database/sql keeps anyway, so copying them on a timer
// would only make them stale.
type poolCollector struct{ pools Pools }

var (
	poolLabels  = []string{"pool"}
	poolOpen    = prometheus.NewDesc("flagship_db_open_connections", "Connections open in the pool (in use and idle).", poolLabels, nil)
	poolInUse   = prometheus.NewDesc("flagship_db_in_use_connections", "Connections of the pool in use.", poolLabels, nil)
	poolIdle    = prometheus.NewDesc("flagship_db_idle_connections", "Idle connections of the pool.", poolLabels, nil)
	poolMax     = prometheus.NewDesc("flagship_db_max_open_connections", "The most connections the pool opens.", poolLabels, nil)
	poolWaits   = prometheus.NewDesc("flagship_db_wait_count_total", "Times a query waited for a free connection of the pool.", poolLabels, nil)
	poolWaitDur = prometheus.NewDesc("flagship_db_wait_duration_seconds_total", "Time spent waiting for a free connection of the pool.", poolLabels, nil)
)

func (poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolOpen, poolInUse, poolIdle, poolMax, poolWaits, poolWaitDur} {
		ch <- d
	}
}

// Collect reports SQLite's writer and readers as pool="writer" and
// pool="reader", PostgreSQL's one pool as pool="shared".
func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	writer, reader, shared := c.pools.PoolStats()
	if shared {
		collectPool(ch, "shared", writer)
		return
	}
	collectPool(ch, "writer", writer)
	collectPool(ch, "reader", reader)
}

func collectPool(ch chan<- prometheus.Metric, pool string, s sql.DBStats) {
	ch <- prometheus.MustNewConstMetric(poolOpen, prometheus.GaugeValue, float64(s.OpenConnections), pool)
	ch <- prometheus.MustNewConstMetric(poolInUse, prometheus.GaugeValue, float64(s.InUse), pool)
	ch <- prometheus.MustNewConstMetric(poolIdle, prometheus.GaugeValue, float64(s.Idle), pool)
	ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(s.MaxOpenConnections), pool)
	ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(s.WaitCount), pool)
	ch <- prometheus.MustNewConstMetric(poolWaitDur, prometheus.CounterValue, s.WaitDuration.Seconds(), pool)
}
