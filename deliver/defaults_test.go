package deliver

import (
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/configtest"
)

// TestSetDefaultsFillsDefaults: every documented count and duration is
// what an unset one gets (the rate limits' 0 is "no cap", and smtp.tls ""
// is resolved by NewSMTP); max_attempts follows the retries rule (0: the
// default, negative: one attempt).
func TestSetDefaultsFillsDefaults(t *testing.T) {
	var o Options
	o.setDefaults()
	want := DefaultOptions()
	want.Policy.RateLimit = RateLimit{Window: want.Policy.RateLimit.Window}
	want.SMTP.TLS = ""
	for _, d := range configtest.Unfilled("watch", o, want) {
		t.Errorf("unset %s", d)
	}
	for _, tc := range []struct{ in, want int }{{0, 8}, {-1, 1}, {3, 3}} {
		o := Options{Retry: Retry{MaxAttempts: tc.in}}
		o.setDefaults()
		if o.Retry.MaxAttempts != tc.want {
			t.Errorf("max_attempts %d: %d, want %d", tc.in, o.Retry.MaxAttempts, tc.want)
		}
	}
}

// TestRetryPolicy: SMTP retry delays double from backoff up to
// max_backoff, jittered down by at most a tenth.
func TestRetryPolicy(t *testing.T) {
	p := Retry{Backoff: 30 * time.Second, MaxBackoff: time.Hour}.policy()
	for _, tc := range []struct {
		n      int
		lo, hi time.Duration
	}{
		{0, 27 * time.Second, 30 * time.Second},
		{2, 108 * time.Second, 120 * time.Second},
		{100, 54 * time.Minute, time.Hour},
	} {
		if d := p.Delay(tc.n); d < tc.lo || d > tc.hi {
			t.Errorf("retry %d: %v, want in [%v, %v]", tc.n, d, tc.lo, tc.hi)
		}
	}
}
