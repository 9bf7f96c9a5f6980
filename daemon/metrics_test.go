package daemon

import (
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// scrape returns what /metrics serves for m, one series a line.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

// TestMetricsFromStart: every labelled series with known labels is
// exported at 0 before anything happened, a configured mailbox reads 0
// (not absent) before its first session, and autosel_build_info is 1.
func TestMetricsFromStart(t *testing.T) {
	m := NewMetrics()
	m.InitMailbox("lkml", "INBOX")
	out := scrape(t, m)
	for _, want := range []string{
		`autosel_messages_total{status="pending"} 0`, `autosel_messages_total{status="duplicate"} 0`,
		`autosel_messages_total{status="malformed"} 0`,
		`autosel_series_total{state="done"} 0`, `autosel_series_total{state="failed"} 0`,
		`autosel_replies_total{state="sent"} 0`, `autosel_replies_total{state="held"} 0`, `autosel_replies_total{state="failed"} 0`,
		`autosel_command_mails_total{state="refused"} 0`,
		`autosel_imap_connected{mailbox="INBOX",source="lkml"} 0`,
		`autosel_imap_disconnects_total{mailbox="INBOX",source="lkml"} 0`,
		`autosel_build_info{goversion="` + runtime.Version() + `",version="` + buildVersion() + `"} 1`,
	} {
		if !strings.Contains(out, "\n"+want+"\n") {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", out)
	}
}
