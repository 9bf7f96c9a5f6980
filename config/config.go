// Package config loads autosel-bot's configuration with viper: embedded
// defaults (config.yaml), then an optional --config file, then AUTOSEL_BOT_*
// environment variables.
package config

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/viper"

	autoselbot "github.com/autosel-bot/autosel-bot"
	"github.com/autosel-bot/autosel-bot/daemon"
	"github.com/autosel-bot/autosel-bot/internal/sandbox"
	"github.com/autosel-bot/autosel-bot/reply"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/stable"
)

// Config is the whole configuration: the options types of the packages
// that own each section (rules, stable, runner, sandbox, github, reply),
// composed with the sections of the commands themselves (check, watch,
// index), whose types live in this package.
type Config struct {
	Check  CheckConfig    `mapstructure:"check"`
	Rules  rules.Options  `mapstructure:"rules"`
	Stable stable.Options `mapstructure:"stable"`
	Runner RunnerConfig   `mapstructure:"runner"`
	// Sandbox confines every build of patched sources (runner, stable).
	Sandbox sandbox.Options     `mapstructure:"sandbox"`
	Watch   daemon.WatchOptions `mapstructure:"watch"`
	GitHub  GitHubConfig        `mapstructure:"github"`
	Index   IndexConfig         `mapstructure:"index"`
	// Reply is the replies' sender, greeting, signature and caps (set
	// Version and Now in code; check and watch pass it to package reply).
	Reply reply.Options `mapstructure:"reply"`

	// Sources says where each value came from (for error messages that
	// name a setting); set by Load.
	Sources *Sources `mapstructure:"-"`
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
	// LoreURL is the public-inbox inbox a Message-ID argument is fetched
	// from (<lore_url><Message-ID>/t.mbox.gz); check and test use it.
	LoreURL string `mapstructure:"lore_url"`
	// LoreTimeout bounds one thread download.
	LoreTimeout time.Duration `mapstructure:"lore_timeout"`
}

// IndexConfig configures the kernel tree index (check --tree, watch with a
// tree): where it is cached and whether indexing shows a progress bar.
type IndexConfig struct {
	// CacheDir holds the persisted index of each tree (about 160 MB for
	// Linux 6.1); "" means $XDG_CACHE_HOME/autosel-bot (~/.cache/...),
	// "-" disables the cache (every run scans the whole tree).
	CacheDir string `mapstructure:"cache_dir"`
	// Progress is auto (a progress bar on a terminal, for the text
	// format), always or never.
	Progress string `mapstructure:"progress"`
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
// variable, or the built-in defaults).
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
	c.Sources = src
	return &c, nil
}
