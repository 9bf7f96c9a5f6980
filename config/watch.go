package config

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/autosel-bot/autosel-bot/imapsrc"
	"github.com/autosel-bot/autosel-bot/internal/secret"
)

// WatchConfig configures the watch daemon and replay (see config.yaml).
type WatchConfig struct {
	// IMAP lists the servers and mailboxes to follow.
	IMAP []imapsrc.ServerOptions `mapstructure:"imap"`
	// Store is the SQLite state file ("" = DefaultStatePath("state.db")).
	Store string `mapstructure:"store"`
	// Outbox is the Maildir replies are written to ("" = DefaultStatePath("outbox")).
	Outbox string `mapstructure:"outbox"`
	// Send enables SMTP delivery; false (the default) is dry-run: replies
	// stay in the outbox.
	Send bool `mapstructure:"send"`
	// From is the bot's address ("Name <addr>"): the SMTP envelope sender
	// and mail it never answers; empty means reply.from, and when set it
	// replaces reply.from for watch and replay.
	From string `mapstructure:"from"`
	// SMTP is the submission server used when Send is set.
	SMTP SMTPConfig `mapstructure:"smtp"`
	// Retry bounds SMTP retries.
	Retry RetryConfig `mapstructure:"retry"`
	// ConfirmWait is how long a reply interrupted mid-send waits to be seen
	// on the receiving side before it is held as unconfirmed.
	ConfirmWait time.Duration `mapstructure:"confirm_wait"`
	// ResendUnconfirmed re-sends such a reply instead of holding it.
	ResendUnconfirmed bool `mapstructure:"resend_unconfirmed"`
	// ConfirmMailboxes are extra mailboxes (e.g. "Sent") on the first IMAP
	// server searched for interrupted replies, besides the watched ones.
	ConfirmMailboxes []string `mapstructure:"confirm_mailboxes"`
	// Allow is the allow-list of lists and recipient domains.
	Allow AllowConfig `mapstructure:"allow"`
	// Bots are sender patterns never answered ('*' wildcards).
	Bots []string `mapstructure:"bots"`
	// RateLimit caps replies per list and per author.
	RateLimit RateLimitConfig `mapstructure:"rate_limit"`
	// Workers bounds concurrent series analyses.
	Workers int `mapstructure:"workers"`
	// SeriesWait is how long an incomplete series is held.
	SeriesWait time.Duration `mapstructure:"series_wait"`
	// MaxMessageSize skips bigger messages (bytes).
	MaxMessageSize int64 `mapstructure:"max_message_size"`
	// Metrics is the local address serving /metrics and /healthz ("" = off).
	Metrics string `mapstructure:"metrics"`
	// HealthGrace is how long IMAP, SMTP (when sending) or the store may
	// fail before /healthz answers 503.
	HealthGrace time.Duration `mapstructure:"health_grace"`
}

// SMTPConfig is the SMTP submission server.
type SMTPConfig struct {
	// Addr is host:port.
	Addr string `mapstructure:"addr"`
	// TLS is tls, starttls or plain (plain: loopback only unless AllowPlain).
	TLS                string `mapstructure:"tls"`
	AllowPlain         bool   `mapstructure:"allow_plain"`
	InsecureSkipVerify bool   `mapstructure:"insecure_skip_verify"`
	// Username, Password (or PasswordFile, which wins: Secret) enable
	// AUTH PLAIN.
	Username     string `mapstructure:"username"`
	Password     string `mapstructure:"password"`
	PasswordFile string `mapstructure:"password_file"`
	// Helo is the EHLO name.
	Helo string `mapstructure:"helo"`
	// RedirectTo replaces every envelope recipient (staging).
	RedirectTo string `mapstructure:"redirect_to"`
}

// RetryConfig bounds SMTP retries: Backoff doubles per attempt up to MaxBackoff.
type RetryConfig struct {
	MaxAttempts int           `mapstructure:"max_attempts"`
	Backoff     time.Duration `mapstructure:"backoff"`
	MaxBackoff  time.Duration `mapstructure:"max_backoff"`
}

// AllowConfig is the allow-list: lists (List-Id or list address) the bot
// may reply to, and recipient domains it may write to. Empty means any;
// sending requires at least one of them to be set.
type AllowConfig struct {
	Lists   []string `mapstructure:"lists"`
	Domains []string `mapstructure:"domains"`
}

// RateLimitConfig caps replies per Window (0 = no cap): per origin (the
// IMAP mailbox or replayed archive a series came from, not its List-Id),
// per series author, and in all.
type RateLimitConfig struct {
	PerList   int           `mapstructure:"per_list"`
	PerAuthor int           `mapstructure:"per_author"`
	Total     int           `mapstructure:"total"`
	Window    time.Duration `mapstructure:"window"`
}

// DefaultStatePath returns name under $XDG_STATE_HOME/autosel-bot
// (~/.local/state/autosel-bot when unset).
func DefaultStatePath(name string) string {
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

// StorePath is Store or its default.
func (w *WatchConfig) StorePath() string {
	if w.Store != "" {
		return w.Store
	}
	return DefaultStatePath("state.db")
}

// Secret returns the SMTP password (read from PasswordFile when set).
func (s SMTPConfig) Secret() (string, error) { return secret.Read(s.Password, s.PasswordFile) }

// OutboxPath is Outbox or its default.
func (w *WatchConfig) OutboxPath() string {
	if w.Outbox != "" {
		return w.Outbox
	}
	return DefaultStatePath("outbox")
}

// Validate checks the watch settings that would make the daemon unsafe.
func (w *WatchConfig) Validate() error {
	if w.Send {
		if w.SMTP.Addr == "" {
			return errors.New("watch: send is enabled but smtp.addr is empty")
		}
		if len(w.Allow.Lists) == 0 && len(w.Allow.Domains) == 0 && w.SMTP.RedirectTo == "" {
			return errors.New("watch: send is enabled without an allow-list (allow.lists or allow.domains) or smtp.redirect_to")
		}
	}
	return nil
}
