package sumstore

import "testing"

// TestRenumberPlaces: a stored reason quoting a place the patch moved
// ("set up by ... at FILE:LINE") quotes where it is now; other places and
// text stay.
func TestRenumberPlaces(t *testing.T) {
	moved := map[string]map[int]int{"drivers/mfd/x.c": {41: 42}}
	line := func(file string, l int) int {
		if nl, ok := moved[file][l]; ok {
			return nl
		}
		return l
	}
	for _, tc := range []struct{ in, want string }{
		{"regmap accesses sleep (set up by devm_regmap_init_i2c() at drivers/mfd/x.c:41)",
			"regmap accesses sleep (set up by devm_regmap_init_i2c() at drivers/mfd/x.c:42)"},
		{"set up at drivers/mfd/x.c:40 and at drivers/mfd/y.c:41", "set up at drivers/mfd/x.c:40 and at drivers/mfd/y.c:41"},
		{"takes a mutex", "takes a mutex"},
	} {
		if got := renumberPlaces(tc.in, line); got != tc.want {
			t.Errorf("renumberPlaces(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
