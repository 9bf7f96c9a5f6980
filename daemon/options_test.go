package daemon

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/deliver"
)

func TestWatchOptions(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	w := WatchOptions{}
	if got := w.StorePath(); got != filepath.Join("/x/state", "autosel-bot", "state.db") {
		t.Errorf("default store %s", got)
	}
	if err := w.Validate(); err != nil {
		t.Errorf("dry-run: %v", err)
	}
	w = WatchOptions{Store: "/s.db", Deliver: deliver.Options{Send: true}}
	if got := w.StorePath(); got != "/s.db" {
		t.Errorf("configured store %s", got)
	}
	// The delivery's checks, named as settings of the watch section.
	if err := w.Validate(); err == nil || !strings.HasPrefix(err.Error(), "watch: send is enabled but smtp.addr is empty") {
		t.Errorf("send without a server: %v", err)
	}
}
