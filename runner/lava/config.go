package lava

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/defaults"
	"github.com/autosel-bot/autosel-bot/internal/secret"

	"github.com/autosel-bot/autosel-bot/runner"
)

// ResolveToken returns the API token: from TokenFile when set, else from
// the environment variable TokenEnv ("" when neither is set).
func (o Options) ResolveToken() (string, error) {
	return secret.Token(o.TokenEnv, o.TokenFile, "lava token")
}

// DefaultOptions are the documented defaults: config.yaml's runner.lava
// section (a test holds the two equal).
func DefaultOptions() Options {
	return Options{
		TokenEnv:      "AUTOSEL_LAVA_TOKEN",
		DeviceType:    "qemu",
		Priority:      "medium",
		Accel:         "tcg",
		MaxInFlight:   2,
		PollMin:       time.Second,
		PollMax:       15 * time.Second,
		DeployTimeout: 5 * time.Minute,
		QueueTimeout:  10 * time.Minute,
		OfflineGrace:  2 * time.Minute,
		ServeAddr:     "127.0.0.1:0",
	}
}

// Validate checks the section for the lava backend.
func (o Options) Validate() error {
	if o.URL == "" {
		return errors.New("runner.backend lava needs runner.lava.url")
	}
	if o.ShareDir != "" && o.ShareURL == "" {
		return errors.New("runner.lava.share_dir needs runner.lava.share_url")
	}
	if o.Events != "" && !strings.HasPrefix(o.Events, "tcp://") {
		return fmt.Errorf("runner.lava.events %q: want tcp://host:port", o.Events)
	}
	return runner.ValidateAccel("runner.lava", o.Accel)
}

// withDefaults checks o and fills its unset settings from DefaultOptions
// (0 is the default, as everywhere in the configuration); the settings
// shared with the other remote backend go through runner.RemoteOptions.
func (o *Options) withDefaults() error {
	if err := o.Validate(); err != nil {
		return fmt.Errorf("lava backend: %w", err)
	}
	d := DefaultOptions()
	err := runner.RemoteOptions{
		Section: "runner.lava", Accel: &o.Accel, DefaultAccel: d.Accel,
		MaxInFlight: &o.MaxInFlight, DefaultMaxInFlight: d.MaxInFlight,
		WorkDir: &o.WorkDir, WorkSub: "lava", Log: &o.Log,
	}.Apply()
	if err != nil {
		return err
	}
	defaults.Fill(&o.DeviceType, d.DeviceType)
	defaults.Fill(&o.PollMin, d.PollMin)
	if o.PollMax < o.PollMin {
		o.PollMax = max(o.PollMin, d.PollMax)
	}
	defaults.Fill(&o.DeployTimeout, d.DeployTimeout)
	defaults.Fill(&o.QueueTimeout, d.QueueTimeout)
	defaults.Fill(&o.OfflineGrace, d.OfflineGrace)
	return nil
}

// NewWithLocal returns the backend of the configured section opts, with
// the local backend of ro (the runner's options, defaults filled in)
// building and evaluating: it validates opts, reads the token, and keeps
// its files in <ro.WorkDir>/lava; log receives progress.
func NewWithLocal(opts Options, ro runner.Options, log *slog.Logger) (*Backend, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	tok, err := opts.ResolveToken()
	if err != nil {
		return nil, err
	}
	ro = ro.WithDefaults()
	opts.Token, opts.WorkDir, opts.Log = tok, filepath.Join(ro.WorkDir, "lava"), log
	return New(runner.NewLocal(ro), opts)
}
