package statedir

import (
	"path/filepath"
	"testing"
)

func TestPath(t *testing.T) {
	tests := []struct {
		state, home, name, want string
	}{
		{"/x/state", "/home/u", "state.db", "/x/state/autosel-bot/state.db"},
		{"", "/home/u", "outbox", "/home/u/.local/state/autosel-bot/outbox"},
	}
	for _, tt := range tests {
		t.Setenv("XDG_STATE_HOME", tt.state)
		t.Setenv("HOME", tt.home)
		if got := Path(tt.name); got != filepath.FromSlash(tt.want) {
			t.Errorf("Path(%q) with XDG_STATE_HOME=%q HOME=%q = %s, want %s", tt.name, tt.state, tt.home, got, tt.want)
		}
	}
}
