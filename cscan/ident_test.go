package cscan

import "testing"

func TestIsIdent(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"pipe_read", true},
		{"_x", true},
		{"__pipe_lock2", true},
		{"$tmp", true}, // GCC accepts '$' in identifiers
		{"a$b", true},
		{"X", true},
		{"", false},
		{"2fast", false},
		{"a-b", false},
		{"a.b", false},
		{"a b", false},
		{"grüße", false}, // ASCII only
		{"a\x00", false},
	}
	for _, tt := range tests {
		if got := IsIdent(tt.s); got != tt.want {
			t.Errorf("IsIdent(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
	for c := 0; c < 256; c++ {
		b := byte(c)
		digit := b >= '0' && b <= '9'
		if IsIdentChar(b) != (IsIdentStart(b) || digit) || digit && IsIdentStart(b) {
			t.Errorf("byte %q: start %v, char %v", b, IsIdentStart(b), IsIdentChar(b))
		}
	}
}

// TestContainsWord: a word's word matches only where identifiers end, as
// the lexer reads them (cscan.IsIdentChar: digits, '_' and GCC's '$').
func TestContainsWord(t *testing.T) {
	for _, tc := range []struct {
		s, w string
		want bool
	}{
		{"GFP_KERNEL", "GFP_KERNEL", true},
		{"GFP_KERNEL|__GFP_NOWARN", "GFP_KERNEL", true},
		{"(GFP_KERNEL)", "GFP_KERNEL", true},
		{"GFP_KERNEL_ACCOUNT", "GFP_KERNEL", false},
		{"__GFP_KERNEL", "GFP_KERNEL", false},
		{"GFP_KERNEL2", "GFP_KERNEL", false},
		{"x$GFP_KERNEL", "GFP_KERNEL", false},
		{"GFP_KERNEL$", "GFP_KERNEL", false},
		{"GFP_KERNEL_X, GFP_KERNEL", "GFP_KERNEL", true},
		{"x&~GFP_ATOMIC", "~GFP_ATOMIC", true},
		{"GFP_ATOMIC", "GFP_KERNEL", false},
		{"SYS_OFF_MODE_POWER_OFF_PREPARE", "SYS_OFF_MODE_POWER_OFF", false},
		{"SYS_OFF_MODE_POWER_OFF", "SYS_OFF_MODE_POWER_OFF", true},
		{"a->lock", "->lock", true},
		{"a->locked", "->lock", false},
	} {
		if got := ContainsWord(tc.s, tc.w); got != tc.want {
			t.Errorf("ContainsWord(%q, %q) = %v, want %v", tc.s, tc.w, got, tc.want)
		}
	}
}
