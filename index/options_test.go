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

func TestSettingsPageCache(t *testing.T) {
	for _, tt := range []struct {
		mb   int
		want int64
		ok   bool
	}{{0, -1, true}, {1, 1 << 20, true}, {64, 64 << 20, true}, {-1, -1, false}} {
		s := Settings{PageCacheMB: tt.mb}
		if got := s.PageCache(); got != tt.want {
			t.Errorf("PageCacheMB %d: PageCache() = %d, want %d", tt.mb, got, tt.want)
		}
		if err := s.Validate(); (err == nil) != tt.ok {
			t.Errorf("PageCacheMB %d: err %v, want ok %v", tt.mb, err, tt.ok)
		}
	}
}
