package lockctx

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

// TestMergeImplicit: two implicit contexts of one kind merge into one
// that keeps an exemption only when both have it, so that a callback
// registered as a restart handler and as a die notifier is judged as a
// die notifier, and names the registration that holds in more cases.
func TestMergeImplicit(t *testing.T) {
	at := func(what string) report.Step { return report.Step{What: what} }
	plain := Held{Kind: "irq", At: at("plain")}
	lifted := Held{Kind: "irq", UnlessSleeps: true, At: at("lifted")}
	down := Held{Kind: "irq", Shutdown: true, At: at("down")}
	liftedDown := Held{Kind: "irq", UnlessSleeps: true, Shutdown: true, At: at("liftedDown")}
	for _, tc := range []struct {
		name           string
		prev, h        Held
		at             string
		lifted, onDown bool
	}{
		{"plain and shutdown", plain, down, "plain", false, false},
		{"shutdown and plain", down, plain, "plain", false, false},
		{"lifted and plain", lifted, plain, "plain", false, false},
		{"shutdown and lifted", down, lifted, "down", false, false},
		{"lifted and shutdown", lifted, down, "down", false, false},
		{"lifted shutdown and lifted", liftedDown, lifted, "lifted", true, false},
		{"both shutdown", down, down, "down", false, true},
		{"both lifted", lifted, lifted, "lifted", true, false},
	} {
		got := mergeImplicit(tc.prev, tc.h)
		if got.At.What != tc.at || got.UnlessSleeps != tc.lifted || got.Shutdown != tc.onDown {
			t.Errorf("%s: got at %s, UnlessSleeps %v, Shutdown %v; want at %s, %v, %v",
				tc.name, got.At.What, got.UnlessSleeps, got.Shutdown, tc.at, tc.lifted, tc.onDown)
		}
	}
}
