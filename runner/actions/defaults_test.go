package actions

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/configtest"
)

// TestWithDefaults: every documented default is what an unset setting
// gets, and a bad accel is refused by the helper shared with the lava
// backend.
func TestWithDefaults(t *testing.T) {
	var o Options
	if err := o.withDefaults(); err != nil {
		t.Fatal(err)
	}
	for _, d := range configtest.Unfilled("github.actions", o, DefaultOptions()) {
		t.Errorf("unset %s", d)
	}
	if !strings.HasSuffix(o.WorkDir, "/actions") || o.Log == nil {
		t.Errorf("work dir %q, log %v", o.WorkDir, o.Log)
	}
	bad := Options{Accel: "hvf"}
	if err := bad.withDefaults(); err == nil || !strings.Contains(err.Error(), "github.actions.accel") {
		t.Errorf("accel hvf: %v", err)
	}
	if err := (Options{Accel: "hvf"}).Validate(); err == nil {
		t.Error("Validate accepted accel hvf")
	}
}
