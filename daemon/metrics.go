package daemon

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/autosel-bot/autosel-bot/store"
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
	buildInfo   *prometheus.GaugeVec
}

// NewMetrics creates and registers the metrics. Every series whose labels
// are known before anything happens (each outcome, state and result) is
// exported at 0 from the start, so that a rate or an alert on it has a
// series to read; InitMailbox does the same for a configured mailbox.
// autosel_build_info is 1, labelled with the bot's and Go's versions.
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
		buildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "autosel_build_info", Help: "Always 1; labelled with the version of the bot and of Go it was built with.",
		}, []string{"version", "goversion"}),
	}
	m.Registry.MustRegister(m.messages, m.series, m.replies, m.commands, m.pool, m.analysis, m.connected, m.disconnects, m.buildInfo,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for vec, labels := range map[*prometheus.CounterVec][]string{
		m.messages: {store.StatusPending, store.StatusCommand, store.StatusSkipped, store.StatusMalformed,
			store.StatusLate, store.StatusExpired, "duplicate"},
		m.series:   {store.SeriesDone, store.SeriesFailed},
		m.replies:  {store.ReplySent, store.ReplyDryRun, store.ReplyHeld, store.ReplyFailed, store.ReplyUnconfirmed},
		m.commands: {store.CommandDone, store.CommandRefused, store.CommandFailed},
	} {
		for _, l := range labels {
			vec.WithLabelValues(l)
		}
	}
	m.buildInfo.WithLabelValues(buildVersion(), runtime.Version()).Set(1)
	return m
}

// InitMailbox exports the series of an IMAP mailbox before its first
// session: not connected (0) and no disconnects yet, so that a mailbox
// unreachable from the start reads 0 instead of being absent.
func (m *Metrics) InitMailbox(source, mailbox string) {
	m.connected.WithLabelValues(source, mailbox).Add(0)
	m.disconnects.WithLabelValues(source, mailbox)
}

// buildVersion is the main module's version from the build info
// ("(devel)" for a build from a work tree, "unknown" without build info).
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return "unknown"
	}
	return bi.Main.Version
}
