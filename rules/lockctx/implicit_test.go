package lockctx

import "testing"

// TestWider: of two implicit contexts of one kind, the one that holds in
// more cases stands for both, so that a callback registered as a restart
// handler and as a die notifier is judged as a die notifier.
func TestWider(t *testing.T) {
	plain := Held{Kind: "irq"}
	lifted := Held{Kind: "irq", UnlessSleeps: true}
	down := Held{Kind: "irq", Shutdown: true}
	liftedDown := Held{Kind: "irq", UnlessSleeps: true, Shutdown: true}
	for _, tc := range []struct {
		name    string
		h, prev Held
		want    bool
	}{
		{"plain over shutdown", plain, down, true},
		{"shutdown under plain", down, plain, false},
		{"plain over lifted", plain, lifted, true},
		{"lifted under plain", lifted, plain, false},
		{"shutdown over lifted", down, lifted, true},
		{"lifted under shutdown", lifted, down, false},
		{"lifted over lifted shutdown", lifted, liftedDown, true},
		{"same", plain, plain, false},
	} {
		if got := wider(tc.h, tc.prev); got != tc.want {
			t.Errorf("%s: wider = %v, want %v", tc.name, got, tc.want)
		}
	}
}
