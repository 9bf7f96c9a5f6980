package imapsrc

import (
	"testing"
	"time"
)

func TestServerDefaults(t *testing.T) {
	tests := []struct {
		s       Server
		wantErr bool
	}{
		{Server{Addr: "127.0.0.1:143"}, false},
		{Server{Addr: "localhost:143", TLS: "plain"}, false},
		{Server{Addr: "[::1]:143", TLS: "plain"}, false},
		{Server{Addr: "imap.example.org:143", TLS: "plain"}, true},
		{Server{Addr: "imap.example.org:143", TLS: "plain", AllowPlain: true}, false},
		{Server{Addr: "imap.example.org:993", TLS: "tls"}, false},
		{Server{Addr: "imap.example.org:143", TLS: "starttls", Auth: "plain"}, false},
		{Server{Addr: "imap.example.org:143", TLS: "ssl"}, true},
		{Server{Addr: "imap.example.org:993", TLS: "tls", Auth: "xoauth2"}, true},
		{Server{}, true},
	}
	for _, tt := range tests {
		s, err := tt.s.withDefaults()
		if (err != nil) != tt.wantErr {
			t.Errorf("%+v: err %v, want error %v", tt.s, err, tt.wantErr)
			continue
		}
		if err == nil && (s.Name == "" || len(s.Mailboxes) != 1 || s.PollInterval <= 0 || s.MaxMessageSize <= 0) {
			t.Errorf("defaults not filled: %+v", s)
		}
	}
}

func TestBackoff(t *testing.T) {
	b := backoff{min: time.Second, max: 5 * time.Second}
	var got []time.Duration
	for i := 0; i < 5; i++ {
		got = append(got, b.next())
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("backoff %v, want %v", got, want)
		}
	}
	b.reset()
	if d := b.next(); d != time.Second {
		t.Errorf("after reset: %v", d)
	}
}
