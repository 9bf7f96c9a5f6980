package index

import "testing"

func TestSettingsValidate(t *testing.T) {
	for _, tt := range []struct {
		progress string
		ok       bool
	}{{"", true}, {"auto", true}, {"always", true}, {"never", true}, {"yes", false}, {"Auto", false}} {
		if err := (Settings{Progress: tt.progress}).Validate(); (err == nil) != tt.ok {
			t.Errorf("progress %q: err %v, want ok %v", tt.progress, err, tt.ok)
		}
	}
}
