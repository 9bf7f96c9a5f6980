package lava

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the backend's counters, exported by Collector.
type metrics struct {
	queued       atomic.Int64 // kernels waiting for a job slot
	inFlight     atomic.Int64 // jobs submitted and not finished
	submitted    atomic.Int64 // jobs LAVA accepted
	baselineHits atomic.Int64
	latency      *prometheus.HistogramVec
}

var (
	descQueue    = prometheus.NewDesc("autosel_lava_queue_depth", "Kernels built and waiting for a LAVA job slot (lava.max_in_flight).", nil, nil)
	descInFlight = prometheus.NewDesc("autosel_lava_jobs_in_flight", "LAVA jobs submitted and not finished.", nil, nil)
	descHits     = prometheus.NewDesc("autosel_lava_baseline_cache_hits_total", "Baseline boots answered from the cache (tree, commit, config, tests).", nil, nil)
	descSubmits  = prometheus.NewDesc("autosel_lava_jobs_submitted_total", "LAVA jobs submitted (accepted by the server).", nil, nil)
)

func newMetrics() *metrics {
	return &metrics{latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "autosel_lava_job_seconds",
		Help:    "LAVA job latency, submit to result, by outcome (result, infra, submit-error).",
		Buckets: []float64{5, 10, 20, 30, 60, 120, 300, 600, 1200, 3600},
	}, []string{"outcome"})}
}

func (m *metrics) observe(outcome string, d time.Duration) {
	m.latency.WithLabelValues(outcome).Observe(d.Seconds())
}

// collector exports a backend's metrics.
type collector struct{ m *metrics }

// Collector returns the backend's Prometheus collector: queue depth, jobs
// in flight, jobs submitted, baseline cache hits and the job latency histogram.
func (b *Backend) Collector() prometheus.Collector { return collector{b.m} }

// Describe implements prometheus.Collector.
func (c collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descQueue
	ch <- descInFlight
	ch <- descHits
	ch <- descSubmits
	c.m.latency.Describe(ch)
}

// Collect implements prometheus.Collector.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(descQueue, prometheus.GaugeValue, float64(c.m.queued.Load()))
	ch <- prometheus.MustNewConstMetric(descInFlight, prometheus.GaugeValue, float64(c.m.inFlight.Load()))
	ch <- prometheus.MustNewConstMetric(descHits, prometheus.CounterValue, float64(c.m.baselineHits.Load()))
	ch <- prometheus.MustNewConstMetric(descSubmits, prometheus.CounterValue, float64(c.m.submitted.Load()))
	c.m.latency.Collect(ch)
}
