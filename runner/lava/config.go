package lava

import (
	"log/slog"
	"path/filepath"

	"github.com/autosel-bot/autosel-bot/config"
	"github.com/autosel-bot/autosel-bot/runner"
)

// FromConfig returns the backend of the runner section's lava keys, with
// the local backend of o building and evaluating.
func FromConfig(c config.LavaConfig, o runner.Options, log *slog.Logger) (*Backend, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	tok, err := c.Token()
	if err != nil {
		return nil, err
	}
	return New(runner.NewLocal(o), Options{
		URL: c.URL, Token: tok, DeviceType: c.DeviceType, Tags: c.Tags, Priority: c.Priority, Accel: c.Accel,
		MaxInFlight: c.MaxInFlight, PollMin: c.PollMin, PollMax: c.PollMax, Events: c.Events, DeployTimeout: c.DeployTimeout,
		QueueTimeout: c.QueueTimeout, OfflineGrace: c.OfflineGrace, ServeAddr: c.ServeAddr, ServeURL: c.ServeURL,
		ShareDir: c.ShareDir, ShareURL: c.ShareURL, WorkDir: filepath.Join(o.WorkDir, "lava"), Log: log,
	})
}
