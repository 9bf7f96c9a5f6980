package sleep

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// TestShutdownSafe: an I2C transfer passes only where every context a
// registration gives is a restart or power-off handler's (locks the
// handler takes do not matter), and a real sleep never does.
func TestShutdownSafe(t *testing.T) {
	r := &checker{m: sleepModel(t)}
	restart := lockctx.Held{Kind: "irq", Must: true, Why: "restart handler", Shutdown: true}
	die := lockctx.Held{Kind: "irq", Must: true, Why: "die notifier"}
	timer := lockctx.Held{Kind: "softirq", Must: true, Why: "timer"}
	lock := lockctx.Held{Kind: "spin", Must: true, Key: "z->lock"}
	someRestart := restart
	someRestart.Must = false
	i2c := &lockctx.Reach{Prim: "i2c_transfer", Steps: []report.Step{{What: "i2c_transfer()"}}}
	sleep := &lockctx.Reach{Prim: "msleep", Steps: []report.Step{{What: "msleep()"}}}
	for _, tc := range []struct {
		name  string
		proof *lockctx.Reach
		held  []lockctx.Held
		want  bool
	}{
		{"restart handler", i2c, []lockctx.Held{restart}, true},
		{"restart handler under its own lock", i2c, []lockctx.Held{restart, lock}, true},
		{"restart handler and a timer", i2c, []lockctx.Held{restart, timer}, false},
		{"restart handler and a die notifier", i2c, []lockctx.Held{die, restart}, false},
		{"restart handler on some paths", i2c, []lockctx.Held{someRestart}, false},
		{"a lock alone", i2c, []lockctx.Held{lock}, false},
		{"msleep in a restart handler", sleep, []lockctx.Held{restart}, false},
	} {
		if got := r.shutdownSafe(tc.proof, lockctx.State{Held: tc.held}); got != tc.want {
			t.Errorf("%s: shutdownSafe = %v, want %v", tc.name, got, tc.want)
		}
	}
}
