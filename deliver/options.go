package deliver

import (
	"errors"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/retry"
	"github.com/autosel-bot/autosel-bot/internal/statedir"
)

// Options are the delivery's settings: its keys of the `watch:` section
// of the configuration (mapstructure tags; config.yaml documents every key
// and its default), plus what the caller wires in (the envelope sender,
// the reply section's recipient caps, --send-backlog). Unset counts and
// durations get their defaults in New.
type Options struct {
	// From is the envelope sender (bare address); the caller derives it
	// from watch.from or reply.from.
	From string `mapstructure:"-"`
	// Send enables SMTP; without it replies stay in the outbox (dry-run).
	Send bool `mapstructure:"send"`
	// Outbox is the Maildir replies are written to ("" = the default,
	// see OutboxPath).
	Outbox string `mapstructure:"outbox"`
	// SMTP is the submission server used when Send is set (the caller
	// builds the Sender with NewSMTP); its RedirectTo applies here.
	SMTP SMTPOptions `mapstructure:"smtp"`
	// Policy is the allow-list (allow.*) and the rate limits
	// (rate_limit.*).
	Policy Policy `mapstructure:",squash"`
	// Retry bounds SMTP retries.
	Retry Retry `mapstructure:"retry"`
	// ConfirmWait is how long a reply interrupted mid-send waits to be seen
	// on the receiving side before it is held as unconfirmed (default 10m).
	ConfirmWait time.Duration `mapstructure:"confirm_wait"`
	// ResendUnconfirmed re-queues such a reply after ConfirmWait instead of
	// holding it.
	ResendUnconfirmed bool `mapstructure:"resend_unconfirmed"`
	// ConfirmMailboxes are extra mailboxes (e.g. "Sent") on the first IMAP
	// server searched for interrupted replies, besides the watched ones
	// (the caller builds the Confirmer from them).
	ConfirmMailboxes []string `mapstructure:"confirm_mailboxes"`
	// SendBacklog lets a sending run send the replies composed in earlier
	// dry-runs (see Deliverer.SendBacklog); without it they are never
	// sent (--send-backlog).
	SendBacklog bool `mapstructure:"-"`
}

// Retry bounds SMTP retries: Backoff is the first retry delay, doubled per
// attempt up to MaxBackoff.
type Retry struct {
	// MaxAttempts bounds SMTP attempts per reply (0: the default, 8;
	// negative: one attempt, no retries).
	MaxAttempts int `mapstructure:"max_attempts"`
	// Backoff and MaxBackoff default to 30s and 1h.
	Backoff    time.Duration `mapstructure:"backoff"`
	MaxBackoff time.Duration `mapstructure:"max_backoff"`
}

// policy is the backoff of the SMTP retries, with jitter so that the
// replies that failed together (a server outage) are not retried together.
func (r Retry) policy() retry.Policy {
	return retry.Policy{Min: r.Backoff, Max: r.MaxBackoff, Jitter: 0.1}
}

// OutboxPath is Outbox or its default, outbox under
// $XDG_STATE_HOME/autosel-bot.
func (o *Options) OutboxPath() string {
	if o.Outbox != "" {
		return o.Outbox
	}
	return statedir.Path("outbox")
}

// Validate checks the settings that would make sending unsafe: sending
// needs a server and an allow-list (or a redirect to one address).
func (o *Options) Validate() error {
	if !o.Send {
		return nil
	}
	if o.SMTP.Addr == "" {
		return errors.New("send is enabled but smtp.addr is empty")
	}
	if len(o.Policy.Allow.Lists) == 0 && len(o.Policy.Allow.Domains) == 0 && o.SMTP.RedirectTo == "" {
		return errors.New("send is enabled without an allow-list (allow.lists or allow.domains) or smtp.redirect_to")
	}
	return nil
}

// DefaultOptions are the documented defaults: config.yaml's keys of the
// watch section that belong to the delivery (a test holds the two equal).
func DefaultOptions() Options {
	return Options{
		SMTP: SMTPOptions{TLS: "starttls"},
		Policy: Policy{RateLimit: RateLimit{
			PerList: 30, PerAuthor: 5, Total: 100, Window: time.Hour,
		}},
		Retry:       Retry{MaxAttempts: 8, Backoff: 30 * time.Second, MaxBackoff: time.Hour},
		ConfirmWait: 10 * time.Minute,
	}
}

// setDefaults fills the unset counts and durations from DefaultOptions
// (0 is the default, as everywhere in the configuration); a negative
// MaxAttempts is one attempt (no retries).
func (o *Options) setDefaults() {
	d := DefaultOptions()
	switch {
	case o.Retry.MaxAttempts == 0:
		o.Retry.MaxAttempts = d.Retry.MaxAttempts
	case o.Retry.MaxAttempts < 0:
		o.Retry.MaxAttempts = 1
	}
	if o.Retry.Backoff <= 0 {
		o.Retry.Backoff = d.Retry.Backoff
	}
	if o.Retry.MaxBackoff <= 0 {
		o.Retry.MaxBackoff = d.Retry.MaxBackoff
	}
	if o.ConfirmWait <= 0 {
		o.ConfirmWait = d.ConfirmWait
	}
	if o.Policy.RateLimit.Window <= 0 {
		o.Policy.RateLimit.Window = d.Policy.RateLimit.Window
	}
}
