package defaults

import (
	"testing"
	"time"
)

// TestFill: zero, negative and "" take the default; a set value stays.
func TestFill(t *testing.T) {
	for _, tc := range []struct{ in, want time.Duration }{
		{0, time.Minute}, {-time.Second, time.Minute}, {time.Second, time.Second},
	} {
		got := tc.in
		Fill(&got, time.Minute)
		if got != tc.want {
			t.Errorf("Fill(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{{"", "kvm"}, {"tcg", "tcg"}} {
		got := tc.in
		Fill(&got, "kvm")
		if got != tc.want {
			t.Errorf("Fill(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCount: 0 is the default, negative is none, a set count stays.
func TestCount(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{0, 4}, {-1, 0}, {2, 2}} {
		if got := Count(tc.in, 4); got != tc.want {
			t.Errorf("Count(%d, 4) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
