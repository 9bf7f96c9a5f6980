package lockctx

import "testing"

// TestBitTest: the forms of a test of one flag of a variable, and what
// is not one.
func TestBitTest(t *testing.T) {
	for _, tc := range []struct {
		cond, name, bit string
		set, ok         bool
	}{
		{"flag & CMD_WAIT", "flag", "CMD_WAIT", true, true},
		{"CMD_WAIT & flag", "flag", "CMD_WAIT", true, true},
		{"!(flag & CMD_WAIT)", "flag", "CMD_WAIT", false, true},
		{"(flag & CMD_WAIT) == 0", "flag", "CMD_WAIT", false, true},
		{"(flag & CMD_WAIT) != 0", "flag", "CMD_WAIT", true, true},
		{"unlikely(flags & MSG_DONTWAIT)", "flags", "MSG_DONTWAIT", true, true},
		{"(flag & CMD_WAIT) == 1", "", "", false, false},
		{"flag & CMD_WAIT == 0", "", "", false, false},
		{"!flag & CMD_WAIT", "", "", false, false},
		{"flag && CMD_WAIT", "", "", false, false},
		{"p->flags & CMD_WAIT", "", "", false, false},
		{"flag & mask", "", "", false, false},
		{"flag", "", "", false, false},
	} {
		name, bit, set, ok := bitTest(tc.cond)
		if name != tc.name || bit != tc.bit || set != tc.set || ok != tc.ok {
			t.Errorf("bitTest(%q) = %q, %q, %v, %v; want %q, %q, %v, %v", tc.cond, name, bit, set, ok, tc.name, tc.bit, tc.set, tc.ok)
		}
	}
}
