package stable

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/configtest"
)

// TestWithDefaultsFillsDefaults: every documented count and duration is
// what an unset one gets. upstream.ref and ccache_dir are the exceptions:
// their "" is a setting of its own (no upstream; <cache_dir>/ccache).
func TestWithDefaultsFillsDefaults(t *testing.T) {
	for _, d := range configtest.Unfilled("stable", Options{}.withDefaults(), DefaultOptions()) {
		if !strings.HasPrefix(d, "stable.upstream.ref:") && !strings.HasPrefix(d, "stable.ccache_dir:") {
			t.Errorf("unset %s", d)
		}
	}
}
