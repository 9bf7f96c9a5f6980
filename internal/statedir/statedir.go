// Package statedir names the files the bot keeps between runs (the SQLite
// state, the outbox) when the configuration leaves their paths empty:
// under $XDG_STATE_HOME/autosel-bot, ~/.local/state/autosel-bot when unset.
package statedir

import (
	"os"
	"path/filepath"
)

// Path returns name under $XDG_STATE_HOME/autosel-bot
// (~/.local/state/autosel-bot when unset; the system's temporary directory
// stands in for a missing home).
func Path(name string) string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			home = os.TempDir()
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "autosel-bot", name)
}
