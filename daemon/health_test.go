package daemon

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/deliver"
)

// failingSender fails every send as an unreachable server would.
type failingSender struct{}

func (failingSender) Send(context.Context, string, []string, []byte) error {
	return errors.New("dial tcp 127.0.0.1:25: connect: connection refused")
}

// TestHealthTellsTheTruth checks /healthz for each part that can fail:
// 200 within the grace period (the failure shown), 503 with the reason
// after it, 200 again once the part recovers.
func TestHealthTellsTheTruth(t *testing.T) {
	const grace = 5 * time.Minute
	tests := []struct {
		name string
		// send configures a sending deliverer with a failing SMTP server.
		send bool
		// fail makes the part fail; recover, if set, heals it.
		fail, recover func(t *testing.T, e *testEnv)
		// reason is in the 503 body.
		reason string
	}{
		{
			name:    "IMAP server unreachable from the start",
			fail:    func(t *testing.T, e *testEnv) { e.d.Hooks().Unreachable("lore", errors.New("dial tcp: i/o timeout")) },
			recover: func(t *testing.T, e *testEnv) { e.d.Hooks().Connected("lore", "INBOX") },
			reason:  "imap lore failing for 6m0s (grace 5m0s): dial tcp: i/o timeout",
		},
		{
			name: "one IMAP mailbox down",
			fail: func(t *testing.T, e *testEnv) {
				h := e.d.Hooks()
				h.Connected("lore", "INBOX")
				h.Connected("lore", "netdev")
				h.Disconnected("lore", "netdev", errors.New("EXAMINE netdev: NO access denied"))
			},
			recover: func(t *testing.T, e *testEnv) { e.d.Hooks().Connected("lore", "netdev") },
			reason:  "imap lore/netdev failing for 6m0s (grace 5m0s): EXAMINE netdev: NO access denied",
		},
		{
			name: "SMTP failing while sending",
			send: true,
			fail: func(t *testing.T, e *testEnv) {
				mbox := writeMbox(t, e.dir, "a.mbox", hostileMail("smtp@x", "[PATCH] x", "A <a@example.com>"))
				if _, err := e.d.Replay(context.Background(), []string{mbox}); err != nil {
					t.Fatal(err)
				}
			},
			reason: "smtp failing for 6m0s (grace 5m0s): dial tcp 127.0.0.1:25: connect: connection refused",
		},
		{
			name:   "store failing",
			fail:   func(t *testing.T, e *testEnv) { e.st.Close() },
			reason: "store failing for 6m0s (grace 5m0s): sql: database is closed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var snd deliver.Sender
			if tt.send {
				snd = failingSender{}
			}
			e := newEnv(t, Options{HealthGrace: grace}, deliver.Options{Send: tt.send}, snd, nil)
			now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
			clock := func() time.Time { return now }
			e.d.health.now, e.dl.Now = clock, clock
			h := e.d.HTTPHandler()
			get := func() (int, string) {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
				return rec.Code, rec.Body.String()
			}
			if code, body := get(); code != 200 {
				t.Fatalf("healthy daemon: %d %s", code, body)
			}
			tt.fail(t, e)
			if code, body := get(); code != 200 || !strings.Contains(body, "failing for 0s") {
				t.Errorf("within the grace period: %d %s; want 200 showing the failure", code, body)
			}
			now = now.Add(6 * time.Minute)
			if code, body := get(); code != 503 || !strings.Contains(body, tt.reason) {
				t.Errorf("past the grace period: %d %s; want 503 with %q", code, body, tt.reason)
			}
			if tt.recover != nil {
				tt.recover(t, e)
				if code, body := get(); code != 200 {
					t.Errorf("after recovery: %d %s", code, body)
				}
			}
		})
	}
}

// TestHealthIgnoresSMTPWhenNotSending checks that a dry-run daemon does
// not report SMTP at all.
func TestHealthIgnoresSMTPWhenNotSending(t *testing.T) {
	e := newEnv(t, Options{}, deliver.Options{}, nil, nil)
	hs := e.d.Health(context.Background())
	if _, ok := hs.Parts["smtp"]; ok || !hs.OK {
		t.Errorf("dry-run health %+v reports SMTP", hs)
	}
}
