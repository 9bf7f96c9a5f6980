package sandbox

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/configtest"
)

// TestWithDefaultsFillsDefaults: every documented limit is what an unset
// one gets.
func TestWithDefaultsFillsDefaults(t *testing.T) {
	for _, d := range configtest.Unfilled("sandbox", Options{}.withDefaults(), DefaultOptions()) {
		t.Errorf("unset %s", d)
	}
}
