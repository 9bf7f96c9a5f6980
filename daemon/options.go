package daemon

import (
	"fmt"
	"time"

	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/imapsrc"
	"github.com/autosel-bot/autosel-bot/internal/defaults"
	"github.com/autosel-bot/autosel-bot/internal/statedir"
)

// WatchOptions are the `watch:` section of the configuration, which watch
// and replay read: the daemon's Options and the delivery's
// (deliver.Options), whose keys share the section, and the ends the
// command opens around them (the IMAP servers, the state file, the bot's
// address, the metrics address). config.yaml documents every key and its
// default.
type WatchOptions struct {
	// Daemon holds bots, workers, series_wait, max_message_size,
	// health_grace and commands.
	Daemon Options `mapstructure:",squash"`
	// Deliver holds send, outbox, smtp, retry, allow, rate_limit,
	// confirm_wait, resend_unconfirmed and confirm_mailboxes.
	Deliver deliver.Options `mapstructure:",squash"`
	// IMAP lists the servers and mailboxes to follow.
	IMAP []imapsrc.ServerOptions `mapstructure:"imap"`
	// Store is the SQLite state file ("" = the default, see StorePath).
	Store string `mapstructure:"store"`
	// From is the bot's address ("Name <addr>"): the SMTP envelope sender
	// and mail it never answers; empty means reply.from, and when set it
	// replaces reply.from for watch and replay.
	From string `mapstructure:"from"`
	// Metrics is the local address serving /metrics and /healthz ("" = off).
	Metrics string `mapstructure:"metrics"`
}

// DefaultOptions are the documented defaults: config.yaml's keys of the
// watch section that belong to the daemon (a test holds the two equal).
func DefaultOptions() Options {
	return Options{
		Bots: []string{
			"*bot@*", "*-bot@*", "*bot-*@*", "lkp@intel.com", "syzbot*@*",
			"patchwork*@*", "noreply@*", "no-reply@*", "*-daemon@*",
		},
		SeriesWait:     30 * time.Minute,
		Workers:        2,
		MaxMessageSize: 10 << 20,
		HealthGrace:    5 * time.Minute,
		Commands: CommandOptions{
			Enabled:         true,
			Trust:           []TrustOptions{{List: "*", Author: true}},
			RefusalInterval: 24 * time.Hour,
		},
	}
}

// DefaultWatchOptions are the documented defaults of the whole watch
// section: the daemon's, the delivery's and the metrics address.
func DefaultWatchOptions() WatchOptions {
	return WatchOptions{Daemon: DefaultOptions(), Deliver: deliver.DefaultOptions(), Metrics: "127.0.0.1:9464"}
}

// withDefaults fills the unset counts and durations from DefaultOptions
// (0 is the default, as everywhere in the configuration); MaxAttempts,
// not a configuration key, defaults to 3. Lists (Bots, Commands.Trust)
// are not filled: nil is none.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	defaults.Fill(&o.SeriesWait, d.SeriesWait)
	defaults.Fill(&o.Workers, d.Workers)
	defaults.Fill(&o.MaxAttempts, 3)
	defaults.Fill(&o.HealthGrace, d.HealthGrace)
	defaults.Fill(&o.MaxMessageSize, d.MaxMessageSize)
	defaults.Fill(&o.Commands.RefusalInterval, d.Commands.RefusalInterval)
	return o
}

// StorePath is Store or its default, state.db under
// $XDG_STATE_HOME/autosel-bot.
func (w *WatchOptions) StorePath() string {
	if w.Store != "" {
		return w.Store
	}
	return statedir.Path("state.db")
}

// Validate checks the settings that would make the daemon unsafe (see
// deliver.Options.Validate) and the command trust patterns.
func (w *WatchOptions) Validate() error {
	if err := w.Deliver.Validate(); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if err := w.Daemon.Commands.Validate(); err != nil {
		return fmt.Errorf("watch.%w", err)
	}
	return nil
}
