package config

import (
	"github.com/autosel-bot/autosel-bot/runner"
	"github.com/autosel-bot/autosel-bot/runner/lava"
)

// RunnerConfig is the runner section (see config.yaml): runner.Options
// (building a patched kernel, booting it in QEMU, running the regression
// suite) and the lava backend's sub-section.
type RunnerConfig struct {
	runner.Options `mapstructure:",squash"`
	// Lava configures the lava backend (backend: lava).
	Lava lava.Options `mapstructure:"lava"`
}
