package lava

import (
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/configtest"
)

// TestWithDefaults: every documented default is what an unset setting
// gets (token_env, priority and serve_addr are config-only or resolved
// later), and a bad accel is refused by the helper shared with the
// github-actions backend.
func TestWithDefaults(t *testing.T) {
	o := Options{URL: "http://lava.invalid/"}
	if err := o.withDefaults(); err != nil {
		t.Fatal(err)
	}
	want := DefaultOptions()
	want.TokenEnv, want.Priority, want.ServeAddr = "", "", ""
	for _, d := range configtest.Unfilled("runner.lava", o, want) {
		t.Errorf("unset %s", d)
	}
	if !strings.HasSuffix(o.WorkDir, "/lava") || o.Log == nil {
		t.Errorf("work dir %q, log %v", o.WorkDir, o.Log)
	}
	bad := Options{URL: "http://lava.invalid/", Accel: "hvf"}
	if err := bad.withDefaults(); err == nil || !strings.Contains(err.Error(), "runner.lava.accel") {
		t.Errorf("accel hvf: %v", err)
	}
}

// TestReconnectPolicy: the event stream reconnects after 1s, then up to a
// minute apart, jittered down.
func TestReconnectPolicy(t *testing.T) {
	p := reconnect()
	if d := p.Delay(0); d < 800*time.Millisecond || d > time.Second {
		t.Errorf("first reconnect after %v", d)
	}
	if d := p.Delay(20); d < 48*time.Second || d > time.Minute {
		t.Errorf("reconnect 20 after %v", d)
	}
}
