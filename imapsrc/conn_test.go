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

// TestReconnectPolicy: reconnect delays start at BackoffMin (filled in:
// 1s) and stop growing at BackoffMax (5m), jitter only shortening them.
func TestReconnectPolicy(t *testing.T) {
	s, err := Server{Addr: "127.0.0.1:143", Mailboxes: []string{"INBOX"}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	p := s.reconnect()
	p.Rand = func() float64 { return 0 }
	if d0, dn := p.Delay(0), p.Delay(30); d0 != time.Second || dn != 5*time.Minute {
		t.Errorf("delays %v .. %v, want 1s .. 5m", d0, dn)
	}
	p.Rand = func() float64 { return 0.99 }
	if d := p.Delay(0); d < 800*time.Millisecond || d > time.Second {
		t.Errorf("jittered first delay %v", d)
	}
}
