package netaddr

import "testing"

func TestIsLoopback(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:25", true},
		{"127.1.2.3:143", true},
		{"[::1]:993", true},
		{"localhost:587", true},
		{"localhost", true},
		{"10.0.0.1:25", false},
		{"mail.example.org:25", false},
		{"[2001:db8::1]:25", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := IsLoopback(tc.addr); got != tc.want {
			t.Errorf("IsLoopback(%q) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}
