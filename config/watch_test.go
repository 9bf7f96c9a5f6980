package config

import (
	"path/filepath"
	"testing"
	"time"
)

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
	if w.Send {
		t.Error("sending is on by default")
	}
	if err := w.Validate(); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}
	if w.SeriesWait != 30*time.Minute || w.Workers != 2 || w.RateLimit.Window != time.Hour || len(w.Bots) == 0 {
		t.Errorf("defaults: %+v", w)
	}
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if got := w.StorePath(); got != filepath.Join("/x/state", "autosel-bot", "state.db") {
		t.Errorf("store path %s", got)
	}
	if got := w.OutboxPath(); got != filepath.Join("/x/state", "autosel-bot", "outbox") {
		t.Errorf("outbox path %s", got)
	}
}

func TestWatchValidate(t *testing.T) {
	tests := []struct {
		w       WatchConfig
		wantErr bool
	}{
		{WatchConfig{}, false},
		{WatchConfig{Send: true}, true},
		{WatchConfig{Send: true, SMTP: SMTPConfig{Addr: "127.0.0.1:25"}}, true},
		{WatchConfig{Send: true, SMTP: SMTPConfig{Addr: "127.0.0.1:25"}, Allow: AllowConfig{Lists: []string{"l"}}}, false},
		{WatchConfig{Send: true, SMTP: SMTPConfig{Addr: "127.0.0.1:25", RedirectTo: "me@x"}}, false},
	}
	for i, tt := range tests {
		if err := tt.w.Validate(); (err != nil) != tt.wantErr {
			t.Errorf("%d: err %v, want error %v", i, err, tt.wantErr)
		}
	}
}
