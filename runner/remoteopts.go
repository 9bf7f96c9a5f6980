package runner

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/autosel-bot/autosel-bot/internal/defaults"
)

// RemoteOptions are the settings every remote backend (runner/lava,
// runner/actions) shares, by reference into the backend's own options, so
// that one helper checks them and fills in their defaults.
type RemoteOptions struct {
	// Section names the configuration section in errors ("runner.lava").
	Section string
	// Accel is kvm or tcg; "" takes DefaultAccel.
	Accel        *string
	DefaultAccel string
	// MaxInFlight bounds the jobs or runs in flight; unset takes
	// DefaultMaxInFlight.
	MaxInFlight        *int
	DefaultMaxInFlight int
	// WorkDir holds the backend's files; "" is <DefaultWorkDir>/<WorkSub>.
	WorkDir *string
	WorkSub string
	// Log receives progress; nil discards it.
	Log **slog.Logger
}

// ValidateAccel checks a remote backend's accel setting: kvm, tcg or ""
// (the default).
func ValidateAccel(section, accel string) error {
	switch accel {
	case "", "kvm", "tcg":
		return nil
	}
	return fmt.Errorf("%s.accel %q: want kvm or tcg", section, accel)
}

// Apply checks the shared settings and fills in their defaults.
func (r RemoteOptions) Apply() error {
	if err := ValidateAccel(r.Section, *r.Accel); err != nil {
		return err
	}
	defaults.Fill(r.Accel, r.DefaultAccel)
	defaults.Fill(r.MaxInFlight, r.DefaultMaxInFlight)
	defaults.Fill(r.WorkDir, filepath.Join(DefaultWorkDir, r.WorkSub))
	if *r.Log == nil {
		*r.Log = slog.New(slog.DiscardHandler)
	}
	return nil
}
