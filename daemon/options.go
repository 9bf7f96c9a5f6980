package daemon

import (
	"fmt"

	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/imapsrc"
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
