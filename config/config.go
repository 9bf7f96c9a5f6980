// Package config loads autosel-bot's configuration with viper: embedded
// defaults (config.yaml), then an optional --config file, then AUTOSEL_BOT_*
// environment variables.
package config

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/viper"

	autoselbot "github.com/autosel-bot/autosel-bot"
	"github.com/autosel-bot/autosel-bot/internal/sandbox"
	"github.com/autosel-bot/autosel-bot/rules"
)

// Config is the whole configuration. Each section's type lives in its own
// file of this package.
type Config struct {
	Check  CheckConfig   `mapstructure:"check"`
	Rules  rules.Options `mapstructure:"rules"`
	Stable StableConfig  `mapstructure:"stable"`
	Runner RunnerConfig  `mapstructure:"runner"`
	// Sandbox confines every build of patched sources (runner, stable).
	Sandbox sandbox.Options `mapstructure:"sandbox"`
	Watch   WatchConfig     `mapstructure:"watch"`
}

// CheckConfig configures the check command.
type CheckConfig struct {
	// Format is text, json or email.
	Format string `mapstructure:"format"`
	// FailOn is the severity at or above which check exits 1.
	FailOn string `mapstructure:"fail_on"`
	// Tree is a kernel checkout patches are applied onto (in memory) and
	// indexed; empty for patch-only analysis. --tree overrides it.
	Tree string `mapstructure:"tree"`
}

// New returns a viper instance holding the embedded defaults, with env
// binding (AUTOSEL_BOT_SECTION_KEY).
func New() (*viper.Viper, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(autoselbot.DefaultConfig)); err != nil {
		return nil, fmt.Errorf("embedded config.yaml: %w", err)
	}
	v.SetEnvPrefix("AUTOSEL_BOT")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	return v, nil
}

// Load returns the configuration: defaults, merged with file (if not
// empty), with environment overrides applied.
func Load(v *viper.Viper, file string) (*Config, error) {
	if file != "" {
		v.SetConfigFile(file)
		if err := v.MergeInConfig(); err != nil {
			return nil, fmt.Errorf("config %s: %w", file, err)
		}
	}
	var c Config
	if err := v.Unmarshal(&c); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return &c, nil
}
