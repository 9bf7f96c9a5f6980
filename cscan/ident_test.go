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
