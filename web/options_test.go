package web

import "testing"

func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		base  string
		valid bool
		url   string
	}{
		{"", true, ""},
		{"https://autosel.example.org/", true, "https://autosel.example.org/finding/0123456789ab"},
		{"https://example.org/autosel", true, "https://example.org/autosel/finding/0123456789ab"},
		{"http://127.0.0.1:9464/", true, "http://127.0.0.1:9464/finding/0123456789ab"},
		{"example.org", false, ""},
		{"ftp://example.org/", false, ""},
		{"https://example.org/?x=1", false, ""},
		{"https://example.org/#top", false, ""},
	} {
		o := Options{BaseURL: tc.base}
		if err := o.Validate(); (err == nil) != tc.valid {
			t.Errorf("%q: Validate() = %v", tc.base, err)
		}
		if tc.valid {
			if got := o.FindingURL("0123456789ab"); got != tc.url {
				t.Errorf("%q: FindingURL = %q, want %q", tc.base, got, tc.url)
			}
		}
	}
}
