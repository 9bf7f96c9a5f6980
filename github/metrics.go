package github

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	descRequests    = prometheus.NewDesc("autosel_github_requests_total", "Requests sent to the GitHub API (retries included).", nil, nil)
	descNotModified = prometheus.NewDesc("autosel_github_not_modified_total", "Conditional requests answered 304 (no rate-limit cost).", nil, nil)
	descRetries     = prometheus.NewDesc("autosel_github_retries_total", "Retries after a 5xx answer or a network error.", nil, nil)
	descRateWaits   = prometheus.NewDesc("autosel_github_rate_limit_waits_total", "Waits for a primary or secondary rate limit.", nil, nil)
	descHeads       = prometheus.NewDesc("autosel_github_pull_request_heads", "Pull-request heads in the state store, by state.", []string{"state"}, nil)
)

// collector exports a watcher's client counters and the PR heads per
// state (read from the store at each scrape).
type collector struct{ w *Watcher }

// Collector returns the watcher's Prometheus collector.
func (w *Watcher) Collector() prometheus.Collector { return collector{w} }

// Describe implements prometheus.Collector.
func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRequests, descNotModified, descRetries, descRateWaits, descHeads} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	st := c.w.c.Stats
	for _, m := range []struct {
		d *prometheus.Desc
		v int64
	}{
		{descRequests, st.Requests.Load()}, {descNotModified, st.NotModified.Load()},
		{descRetries, st.Retries5xx.Load()}, {descRateWaits, st.RateLimitWaits.Load()},
	} {
		ch <- prometheus.MustNewConstMetric(m.d, prometheus.CounterValue, float64(m.v))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n, err := c.w.st.CountPullRequests(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(descHeads, err)
		return
	}
	for state, v := range n {
		ch <- prometheus.MustNewConstMetric(descHeads, prometheus.GaugeValue, float64(v), state)
	}
}
