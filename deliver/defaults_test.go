package deliver

import (
	"testing"

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
