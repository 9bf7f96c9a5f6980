package daemon

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Metrics are the daemon's Prometheus metrics, in a registry of their own
// (no global state).
type Metrics struct {
	// Registry holds every metric below plus the Go and process collectors.
	Registry *prometheus.Registry

	messages    *prometheus.CounterVec
	series      *prometheus.CounterVec
	replies     *prometheus.CounterVec
	commands    *prometheus.CounterVec
	pool        prometheus.Gauge
	analysis    prometheus.Histogram
	connected   *prometheus.GaugeVec
	disconnects *prometheus.CounterVec
}

// NewMetrics creates and registers the metrics.
func NewMetrics() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autosel_messages_total", Help: "Messages ingested, by outcome (pending, skipped, malformed, late, expired, duplicate).",
		}, []string{"status"}),
		series: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autosel_series_total", Help: "Series processed, by result (done, failed).",
		}, []string{"state"}),
		replies: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autosel_replies_total", Help: "Reply delivery state changes (sent, dry-run, held, failed, unconfirmed).",
		}, []string{"state"}),
		commands: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autosel_command_mails_total", Help: "Mails of #autosel commands handled, by outcome (done, refused, failed).",
		}, []string{"state"}),
		pool: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "autosel_held_messages", Help: "Patch messages held until their series is complete.",
		}),
		analysis: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "autosel_analysis_seconds", Help: "Time to analyse one series.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 12),
		}),
		connected: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "autosel_imap_connected", Help: "1 while the mailbox session is up.",
		}, []string{"source", "mailbox"}),
		disconnects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autosel_imap_disconnects_total", Help: "IMAP sessions that ended (followed by a reconnect).",
		}, []string{"source", "mailbox"}),
	}
	m.Registry.MustRegister(m.messages, m.series, m.replies, m.commands, m.pool, m.analysis, m.connected, m.disconnects,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
