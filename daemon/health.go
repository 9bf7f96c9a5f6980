package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/autosel-bot/autosel-bot/imapsrc"
)

// health remembers since when each part the daemon depends on has been
// failing: IMAP servers and mailboxes, and the store. SMTP is asked of
// the Deliverer. A part is failing from its first error until its next
// success; /healthz turns 503 once a part has failed for HealthGrace.
type health struct {
	mu    sync.Mutex
	now   func() time.Time
	parts map[string]*partHealth
}

// partHealth is one part's state.
type partHealth struct {
	up        bool
	failSince time.Time
	lastErr   string
}

func (h *health) clock() time.Time {
	if h.now != nil {
		return h.now()
	}
	return time.Now()
}

// set records a success (err nil) or a failure of part.
func (h *health) set(part string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.parts == nil {
		h.parts = map[string]*partHealth{}
	}
	p := h.parts[part]
	if p == nil {
		p = &partHealth{}
		h.parts[part] = p
	}
	if err == nil {
		*p = partHealth{up: true}
		return
	}
	if p.up || p.failSince.IsZero() {
		p.failSince = h.clock()
	}
	p.up = false
	p.lastErr = err.Error()
}

// Hooks returns the imapsrc hooks that feed metrics and /healthz.
func (d *Daemon) Hooks() imapsrc.Hooks {
	return imapsrc.Hooks{
		Connected: func(src, mbox string) {
			d.m.connected.WithLabelValues(src, mbox).Set(1)
			d.health.set("imap "+src+"/"+mbox, nil)
			d.health.set("imap "+src, nil)
		},
		Disconnected: func(src, mbox string, err error) {
			d.m.connected.WithLabelValues(src, mbox).Set(0)
			d.m.disconnects.WithLabelValues(src, mbox).Inc()
			if err == nil {
				err = fmt.Errorf("session ended")
			}
			d.health.set("imap "+src+"/"+mbox, err)
		},
		Unreachable: func(src string, err error) {
			d.health.set("imap "+src, err)
		},
	}
}

// HealthStatus is the body of /healthz.
type HealthStatus struct {
	// OK is false when some part has been failing for longer than the
	// grace period; Reasons then say which and why.
	OK      bool     `json:"ok"`
	Reasons []string `json:"reasons,omitempty"`
	// Parts maps each part ("store", "smtp", "imap <server>/<mailbox>") to
	// "ok" or its failure, grace or not.
	Parts map[string]string `json:"parts"`
	// HeldMessages is the number of patch mails waiting for their series.
	HeldMessages int `json:"held_messages"`
}

// Health checks the store, reads the state of IMAP and SMTP (when sending)
// and returns the health: failing for less than HealthGrace is reported
// but still OK.
func (d *Daemon) Health(ctx context.Context) *HealthStatus {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	d.health.set("store", d.st.Ping(ctx))
	now := d.health.clock()
	hs := &HealthStatus{OK: true, Parts: map[string]string{}}
	judge := func(part string, since time.Time, lastErr string) {
		if since.IsZero() {
			hs.Parts[part] = "ok"
			return
		}
		dur := now.Sub(since).Round(time.Second)
		hs.Parts[part] = fmt.Sprintf("failing for %v: %s", dur, lastErr)
		if now.Sub(since) >= d.opts.HealthGrace {
			hs.OK = false
			hs.Reasons = append(hs.Reasons, fmt.Sprintf("%s failing for %v (grace %v): %s", part, dur, d.opts.HealthGrace, lastErr))
		}
	}
	d.health.mu.Lock()
	names := make([]string, 0, len(d.health.parts))
	for k := range d.health.parts {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p := d.health.parts[k]
		judge(k, p.failSince, p.lastErr)
	}
	d.health.mu.Unlock()
	if d.dl != nil && d.dl.Sending() {
		since, lastErr := d.dl.Health()
		judge("smtp", since, lastErr)
	}
	d.mu.Lock()
	hs.HeldMessages = len(d.pool)
	d.mu.Unlock()
	return hs
}

// HTTPHandler serves /metrics (Prometheus) and /healthz (JSON
// HealthStatus: 200 when healthy, 503 when IMAP, SMTP (when sending) or
// the store has been failing for longer than the grace period, with the
// reasons), and every other path with Options.Web when set.
func (d *Daemon) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(d.m.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		hs := d.Health(r.Context())
		w.Header().Set("Content-Type", "application/json")
		if !hs.OK {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		json.NewEncoder(w).Encode(hs)
	})
	if d.opts.Web != nil {
		mux.Handle("/", d.opts.Web)
	}
	return mux
}
