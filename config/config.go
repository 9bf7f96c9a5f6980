// Package config loads autosel-bot's configuration with viper: embedded
// defaults (config.yaml), then an optional --config file, then AUTOSEL_BOT_*
// environment variables.
package config

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/viper"

	autoselbot "github.com/autosel-bot/autosel-bot"
	"github.com/autosel-bot/autosel-bot/daemon"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/sandbox"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/reply"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/stable"
	"github.com/autosel-bot/autosel-bot/web"
)

// Config is the whole configuration: the options types of the packages
// that own each section (check: pipeline, rules, stable, runner, sandbox,
// watch: daemon and deliver, github, index, reply, web), composed here; only
// the runner and github sections add their backends' sub-sections.
type Config struct {
	Check  pipeline.CheckOptions `mapstructure:"check"`
	Rules  rules.Options         `mapstructure:"rules"`
	Stable stable.Options        `mapstructure:"stable"`
	Runner RunnerConfig          `mapstructure:"runner"`
	// Sandbox confines every build of patched sources (runner, stable).
	Sandbox sandbox.Options     `mapstructure:"sandbox"`
	Watch   daemon.WatchOptions `mapstructure:"watch"`
	GitHub  GitHubConfig        `mapstructure:"github"`
	Index   index.Settings      `mapstructure:"index"`
	// Reply is the replies' sender, greeting, signature and caps (set
	// Version and Now in code; check and watch pass it to package reply).
	Reply reply.Options `mapstructure:"reply"`
	// Web is the read-only web view (watch's metrics address, serve).
	Web web.Options `mapstructure:"web"`

	// Sources says where each value came from (for error messages that
	// name a setting); set by Load.
	Sources *Sources `mapstructure:"-"`
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
//
// Loading is strict: a key of the file or an AUTOSEL_BOT_* environment
// variable that names no setting is an error naming it, its line and the
// closest known key (*UnknownKeyError), and a value that cannot be decoded
// is an error naming where it came from (file and line, environment
// variable, or the built-in defaults). The bot's sender addresses
// (reply.from, watch.from) must parse.
func Load(v *viper.Viper, file string) (*Config, error) {
	schema := NewSchema()
	src := &Sources{File: file, FileLines: map[string]int{}, Environ: os.Environ()}
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		if err := schema.checkYAML(file, data, src.FileLines); err != nil {
			return nil, err
		}
		v.SetConfigFile(file)
		if err := v.MergeInConfig(); err != nil {
			return nil, fmt.Errorf("config %s: %w", file, err)
		}
	}
	if err := schema.checkEnv(src.Environ); err != nil {
		return nil, err
	}
	c := Config{Reply: reply.DefaultOptions()}
	if err := v.Unmarshal(&c); err != nil {
		return nil, src.valueError(err)
	}
	if err := checkAddresses(&c, src); err != nil {
		return nil, err
	}
	c.Sources = src
	return &c, nil
}
