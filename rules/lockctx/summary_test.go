package lockctx

import "testing"

// TestMayChoose: a reach found later can still be a summary's only when
// the ones before it are all uncertain and it is certain, or when there
// are none.
func TestMayChoose(t *testing.T) {
	weak, sure := &Reach{Weak: true}, &Reach{}
	for _, tc := range []struct {
		before []*Reach
		weak   bool
		want   bool
	}{
		{nil, true, true},
		{nil, false, true},
		{[]*Reach{weak}, false, true},
		{[]*Reach{weak}, true, false},
		{[]*Reach{weak, weak}, false, true},
		{[]*Reach{sure}, false, false},
		{[]*Reach{weak, sure}, false, false},
	} {
		if got := mayChoose(tc.before, tc.weak); got != tc.want {
			t.Errorf("mayChoose(%d before, weak %v) = %v, want %v", len(tc.before), tc.weak, got, tc.want)
		}
	}
}
