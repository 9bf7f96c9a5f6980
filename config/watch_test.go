package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/deliver"
)

// TestWatchDefaults: the watch section decodes into the daemon's and the
// delivery's options, with config.yaml's defaults.
func TestWatchDefaults(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(v, "")
	if err != nil {
		t.Fatal(err)
	}
	w := c.Watch
	if w.Deliver.Send {
		t.Error("sending is on by default")
	}
	if err := w.Validate(); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}
	if w.Daemon.SeriesWait != 30*time.Minute || w.Daemon.Workers != 2 || w.Daemon.MaxMessageSize != 10<<20 ||
		w.Daemon.HealthGrace != 5*time.Minute || len(w.Daemon.Bots) == 0 {
		t.Errorf("daemon defaults: %+v", w.Daemon)
	}
	d := w.Deliver
	if d.Policy.RateLimit != (deliver.RateLimit{PerList: 30, PerAuthor: 5, Total: 100, Window: time.Hour}) {
		t.Errorf("rate limits: %+v", d.Policy.RateLimit)
	}
	if d.Retry.MaxAttempts != 8 || d.Retry.Backoff != 30*time.Second || d.Retry.MaxBackoff != time.Hour ||
		d.ConfirmWait != 10*time.Minute || d.SMTP.TLS != "starttls" {
		t.Errorf("delivery defaults: %+v", d)
	}
	if w.Metrics != "127.0.0.1:9464" || w.From != "" || w.Store != "" || d.Outbox != "" {
		t.Errorf("watch ends: %+v", w)
	}
}

// TestWatchOverrides: a file and AUTOSEL_BOT_* variables reach the keys of
// both halves of the section.
func TestWatchOverrides(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	yaml := "watch:\n  workers: 5\n  from: Bot <bot@example.org>\n  smtp:\n    addr: 127.0.0.1:587\n    redirect_to: me@example.org\n" +
		"  allow:\n    lists: [linux-kernel.vger.kernel.org]\n  retry:\n    max_attempts: 3\n  confirm_mailboxes: [Sent]\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AUTOSEL_BOT_WATCH_RATE_LIMIT_PER_AUTHOR", "7")
	t.Setenv("AUTOSEL_BOT_WATCH_SERIES_WAIT", "1m")
	t.Setenv("AUTOSEL_BOT_WATCH_SEND", "true")
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(v, file)
	if err != nil {
		t.Fatal(err)
	}
	w := c.Watch
	if w.Daemon.Workers != 5 || w.Daemon.SeriesWait != time.Minute || w.From != "Bot <bot@example.org>" {
		t.Errorf("daemon half: %+v, from %q", w.Daemon, w.From)
	}
	d := w.Deliver
	if !d.Send || d.SMTP.Addr != "127.0.0.1:587" || d.SMTP.RedirectTo != "me@example.org" || d.SMTP.TLS != "starttls" ||
		len(d.Policy.Allow.Lists) != 1 || d.Policy.RateLimit.PerAuthor != 7 || d.Policy.RateLimit.PerList != 30 ||
		d.Retry.MaxAttempts != 3 || d.Retry.Backoff != 30*time.Second || len(d.ConfirmMailboxes) != 1 {
		t.Errorf("delivery half: %+v", d)
	}
	if err := w.Validate(); err != nil {
		t.Errorf("a sending setup with an allow-list: %v", err)
	}
}
