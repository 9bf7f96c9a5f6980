package github

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/configtest"
)

// TestClientDefaults: every documented client count and duration is what
// an unset one gets, and retries follow the rule of every section (0: the
// default, negative: none; before, 0 became 4 here and meant none in
// runner.retries).
func TestClientDefaults(t *testing.T) {
	want := DefaultOptions().Client
	want.TokenEnv = "" // config-only: "" is anonymous
	for _, d := range configtest.Unfilled("github", ClientOptions{}.withDefaults(), want) {
		t.Errorf("unset %s", d)
	}
	for _, tc := range []struct{ in, want int }{{0, 4}, {-1, 0}, {2, 2}} {
		c, err := NewClient(ClientOptions{Retries: tc.in})
		if err != nil {
			t.Fatal(err)
		}
		if c.tr.retries != tc.want {
			t.Errorf("retries %d: %d, want %d", tc.in, c.tr.retries, tc.want)
		}
	}
}
