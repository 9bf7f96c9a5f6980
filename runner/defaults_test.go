package runner

import (
	"log/slog"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/configtest"
)

// TestWithDefaultsFillsDefaults: every documented default is what an unset
// setting gets, and retries follow the rule of every section (0: the
// default, negative: none).
func TestWithDefaultsFillsDefaults(t *testing.T) {
	for _, d := range configtest.Unfilled("runner", Options{}.WithDefaults(), DefaultOptions()) {
		t.Errorf("unset %s", d)
	}
	for _, tc := range []struct{ in, want int }{{0, 1}, {-1, 0}, {2, 2}} {
		if got := (Options{Retries: tc.in}).WithDefaults().Retries; got != tc.want {
			t.Errorf("retries %d: %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestRemoteOptions: the remote backends' shared settings are checked and
// filled in one place.
func TestRemoteOptions(t *testing.T) {
	var accel, work string
	var n int
	r := RemoteOptions{Section: "x", Accel: &accel, DefaultAccel: "kvm", MaxInFlight: &n,
		DefaultMaxInFlight: 3, WorkDir: &work, WorkSub: "sub"}
	r.Log = new(*slog.Logger)
	if err := r.Apply(); err != nil || accel != "kvm" || n != 3 || work != DefaultWorkDir+"/sub" || *r.Log == nil {
		t.Errorf("Apply: %v; accel %q, in flight %d, work dir %q", err, accel, n, work)
	}
	accel = "hvf"
	if err := r.Apply(); err == nil {
		t.Error("accel hvf accepted")
	}
}
