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

func TestTLSMode(t *testing.T) {
	tests := []struct {
		addr, mode string
		allowPlain bool
		want       string
		wantErr    bool
	}{
		{"mail.example.org:993", "tls", false, "tls", false},
		{"mail.example.org:587", "starttls", false, "starttls", false},
		{"127.0.0.1:143", "", false, "plain", false},
		{"mail.example.org:143", "plain", false, "", true},
		{"mail.example.org:143", "plain", true, "plain", false},
		{"127.0.0.1:143", "ssl", false, "", true},
	}
	for _, tc := range tests {
		got, err := TLSMode("imap", tc.addr, tc.mode, tc.allowPlain)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("TLSMode(%q, %q, %v) = %q, %v", tc.addr, tc.mode, tc.allowPlain, got, err)
		}
	}
}
