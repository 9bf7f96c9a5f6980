package daemon

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/configtest"
)

// TestWithDefaultsFillsDefaults: every documented count and duration of
// the daemon is what an unset one gets.
func TestWithDefaultsFillsDefaults(t *testing.T) {
	for _, d := range configtest.Unfilled("watch", Options{}.withDefaults(), DefaultOptions()) {
		t.Errorf("unset %s", d)
	}
}
