package deliver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/autosel-bot/autosel-bot/store"
)

// The send-once protocol.
//
// Every reply has a deterministic Message-ID (series + version + patch) and
// is first written to the outbox Maildir and recorded as queued in the
// store. To send it, the Deliverer records state "sending" (committed)
// before opening the SMTP transaction, and "sent" only after the server
// accepted the DATA. A crash (or a connection lost after the final dot)
// leaves the reply in "sending": the outcome is unknown. On restart, and
// periodically, such replies are looked up by Message-ID on the receiving
// side (a Confirmer: the watched list mailboxes, where the bot's own reply
// arrives like any list mail, and optionally a Sent folder, over IMAP); the
// ingest also confirms a reply whenever it sees its Message-ID. Found means
// sent. Not found within ConfirmWait means the server most likely never
// accepted it; the reply is then held as "unconfirmed" for a human (or
// re-queued if ResendUnconfirmed is set): the bot prefers a missing reply to
// a duplicate on a public list. A queued reply is never sent when its
// Message-ID has already been seen. Errors before the final dot are
// unambiguous (nothing was accepted) and retried with exponential backoff.

// ErrAmbiguous marks a send error after which the server may or may not
// have accepted the message.
var ErrAmbiguous = errors.New("outcome unknown")

// Confirmer looks a Message-ID up on the receiving side.
type Confirmer interface {
	Seen(ctx context.Context, messageID string) (bool, error)
}

// Deliverer moves replies from the outbox to their recipients.
type Deliverer struct {
	st     *store.Store
	out    *Outbox
	sender Sender
	conf   Confirmer
	opts   Options
	log    *slog.Logger
	// Now is the clock (tests may replace it).
	Now func() time.Time
	// OnState, if set, is called with each reply's new state (metrics).
	OnState func(state string)

	mu          sync.Mutex
	failSince   time.Time // first SMTP failure since the last success
	failLastErr string
}

// Health reports since when SMTP has been failing (zero when the last
// attempt succeeded, or none failed) and the last error. Rejections of a
// single reply (permanent errors) do not count: the server answered.
func (d *Deliverer) Health() (failingSince time.Time, lastErr string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.failSince, d.failLastErr
}

// smtpResult records the outcome of an SMTP attempt for Health.
func (d *Deliverer) smtpResult(err error, now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case err == nil || Permanent(err):
		d.failSince, d.failLastErr = time.Time{}, ""
	default:
		if d.failSince.IsZero() {
			d.failSince = now
		}
		d.failLastErr = err.Error()
	}
}

// New returns a Deliverer. sender may be nil when opts.Send is false;
// conf may be nil (then interrupted sends wait for the ingest to see them).
func New(st *store.Store, out *Outbox, sender Sender, conf Confirmer, opts Options, log *slog.Logger) (*Deliverer, error) {
	if opts.Send && sender == nil {
		return nil, errors.New("deliver: sending enabled without an SMTP server")
	}
	if opts.Send && opts.From == "" {
		return nil, errors.New("deliver: sending enabled without a from address")
	}
	opts.setDefaults()
	return &Deliverer{st: st, out: out, sender: sender, conf: conf, opts: opts, log: log, Now: time.Now}, nil
}

// Outbox returns the outbox.
func (d *Deliverer) Outbox() *Outbox { return d.out }

// Sending reports whether replies go out over SMTP (false: dry-run).
func (d *Deliverer) Sending() bool { return d.opts.Send }

// SendBacklog, when sending with Options.SendBacklog, re-queues the
// replies composed in earlier dry-runs so they are sent (within the
// allow-list and rate limits). It returns how many; otherwise it does
// nothing.
func (d *Deliverer) SendBacklog(ctx context.Context) (int, error) {
	if !d.opts.Send || !d.opts.SendBacklog {
		return 0, nil
	}
	n, err := d.st.SendBacklog(ctx)
	if err == nil && n > 0 {
		d.log.Warn("sending the dry-run backlog on the operator's request", "replies", n)
	}
	return n, err
}

func (d *Deliverer) setState(ctx context.Context, r *store.Reply, state, note, path string) error {
	if err := d.st.SetReplyState(ctx, r.MessageID, state, note, path); err != nil {
		return err
	}
	if d.OnState != nil {
		d.OnState(state)
	}
	return nil
}

// markSent moves the file to cur/ and records the reply as sent.
func (d *Deliverer) markSent(ctx context.Context, r *store.Reply, note string) error {
	path, err := d.out.MarkSent(r.Path)
	if err != nil {
		d.log.Warn("outbox: cannot move sent reply", "message_id", r.MessageID, "err", err)
		path = ""
	}
	return d.setState(ctx, r, store.ReplySent, note, path)
}

// Confirm records that a reply's Message-ID was seen on the receiving side
// (the ingest met it). It returns whether the Message-ID is one of ours.
func (d *Deliverer) Confirm(ctx context.Context, messageID string) (bool, error) {
	r, err := d.st.GetReply(ctx, messageID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	switch r.State {
	case store.ReplyQueued, store.ReplySending, store.ReplyUnconfirmed:
		d.log.Info("reply seen on the receiving side", "message_id", messageID, "was", r.State)
		return true, d.markSent(ctx, r, "seen on the receiving side")
	}
	return true, nil
}

// Recover resolves replies left in "sending" by a crash or an ambiguous
// error (see the protocol above).
func (d *Deliverer) Recover(ctx context.Context) error {
	rs, err := d.st.Replies(ctx, store.ReplySending)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if d.conf != nil {
			seen, err := d.conf.Seen(ctx, r.MessageID)
			if err != nil {
				d.log.Warn("cannot check whether an interrupted reply was sent", "message_id", r.MessageID, "err", err)
				continue
			}
			if seen {
				d.log.Info("interrupted reply found on the receiving side: sent", "message_id", r.MessageID)
				if err := d.markSent(ctx, r, "confirmed on the receiving side"); err != nil {
					return err
				}
				continue
			}
		}
		if d.Now().Sub(r.Sending) < d.opts.ConfirmWait {
			continue
		}
		if d.opts.ResendUnconfirmed {
			d.log.Warn("interrupted reply not seen: sending again", "message_id", r.MessageID)
			if err := d.st.Retry(ctx, r.MessageID, "interrupted, not seen: resending", d.Now()); err != nil {
				return err
			}
			continue
		}
		d.log.Error("interrupted reply not seen on the receiving side: held for a human", "message_id", r.MessageID, "path", r.Path)
		if err := d.setState(ctx, r, store.ReplyUnconfirmed, "interrupted mid-send and not seen on the receiving side", ""); err != nil {
			return err
		}
	}
	return nil
}

// Pass handles every queued reply that is due once, and returns when the
// next deferred one is due (zero if none).
func (d *Deliverer) Pass(ctx context.Context) (time.Time, error) {
	rs, err := d.st.Replies(ctx, store.ReplyQueued)
	if err != nil {
		return time.Time{}, err
	}
	var next time.Time
	counts := passCounts{}
	later := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for _, r := range rs {
		if ctx.Err() != nil {
			return next, ctx.Err()
		}
		if d.opts.Send && r.DryRun {
			// Composed while sending was off (or held back by a rate limit
			// in a dry-run): never sent unless the operator asks
			// (--send-backlog), however soon it was due.
			d.log.Warn("reply composed in a dry-run: not sent (--send-backlog sends it)", "message_id", r.MessageID, "path", r.Path)
			if err := d.setState(ctx, r, store.ReplyDryRun, "composed in a dry-run; not sent without --send-backlog", ""); err != nil {
				return next, err
			}
			clear(counts) // a dry-run reply counts against the limits
			continue
		}
		now := d.Now()
		if r.NextAttempt.After(now) {
			later(r.NextAttempt)
			continue
		}
		t, err := d.one(ctx, r, now, counts)
		if err != nil {
			return next, err
		}
		if !t.IsZero() {
			later(t)
		}
	}
	return next, nil
}

// one delivers one due reply; it returns a retry time when deferred.
// counts are the pass's rate-limit counts (see passCounts).
func (d *Deliverer) one(ctx context.Context, r *store.Reply, now time.Time, counts passCounts) (time.Time, error) {
	log := d.log.With("message_id", r.MessageID, "series", r.SeriesKey)
	raw, err := os.ReadFile(r.Path)
	if err != nil {
		log.Error("reply missing from the outbox", "path", r.Path, "err", err)
		return time.Time{}, d.setState(ctx, r, store.ReplyFailed, err.Error(), "")
	}
	if !d.opts.Policy.listAllowed(r.List) {
		log.Info("reply held: list not in the allow-list", "list", r.List)
		return time.Time{}, d.setState(ctx, r, store.ReplyHeld, fmt.Sprintf("list %q not in the allow-list", r.List), "")
	}
	rcpt, err := Recipients(raw)
	if err != nil {
		log.Error("reply has unreadable recipients", "err", err)
		return time.Time{}, d.setState(ctx, r, store.ReplyFailed, err.Error(), "")
	}
	rcpt, dropped := d.opts.Policy.filterRcpt(rcpt)
	if len(dropped) > 0 {
		log.Info("recipients outside the allowed domains dropped", "dropped", dropped)
	}
	rcpt, capped := d.opts.Policy.capRcpt(rcpt, r.Author)
	if len(capped) > 0 {
		log.Warn("recipients over the cap dropped", "cap", d.opts.Policy.MaxRecipients, "dropped", len(capped), "first_dropped", capped[:min(5, len(capped))])
	}
	if len(rcpt) == 0 {
		log.Info("reply held: no allowed recipient")
		return time.Time{}, d.setState(ctx, r, store.ReplyHeld, "no recipient in the allowed domains", "")
	}
	if d.opts.SMTP.RedirectTo != "" {
		rcpt = []string{d.opts.SMTP.RedirectTo}
	}
	hit, retry, why, err := d.opts.Policy.rateLimited(ctx, d.st, r, now, counts)
	if err != nil {
		return time.Time{}, err
	}
	if hit {
		log.Info("reply deferred", "reason", why, "until", retry)
		return retry, d.st.Defer(ctx, r.MessageID, why, retry)
	}
	if !d.opts.Send {
		log.Info("dry-run: reply left in the outbox", "path", r.Path, "rcpt", rcpt)
		return time.Time{}, d.setState(ctx, r, store.ReplyDryRun, "", "")
	}
	// Never send what the receiving side already has.
	if d.conf != nil {
		if seen, err := d.conf.Seen(ctx, r.MessageID); err == nil && seen {
			log.Info("reply already on the receiving side: not sent again")
			return time.Time{}, d.markSent(ctx, r, "already on the receiving side")
		}
	}
	ok, err := d.st.MarkSending(ctx, r.MessageID)
	if err != nil || !ok {
		return time.Time{}, err
	}
	err = d.sender.Send(ctx, d.opts.From, rcpt, raw)
	if ctx.Err() == nil {
		d.smtpResult(err, d.Now())
	}
	switch {
	case err == nil:
		log.Info("reply sent", "rcpt", rcpt)
		return time.Time{}, d.markSent(ctx, r, "")
	case errors.Is(err, ErrAmbiguous):
		log.Warn("reply send interrupted after DATA: outcome unknown, will confirm", "err", err)
		return time.Time{}, nil
	case Permanent(err):
		log.Error("reply rejected", "err", err)
		return time.Time{}, d.setState(ctx, r, store.ReplyFailed, err.Error(), "")
	case r.Attempts+1 >= d.opts.Retry.MaxAttempts:
		log.Error("reply not sent: attempts exhausted", "attempts", r.Attempts+1, "err", err)
		return time.Time{}, d.setState(ctx, r, store.ReplyFailed, err.Error(), "")
	}
	wait := d.opts.Retry.policy().Delay(r.Attempts)
	log.Warn("reply not sent, will retry", "err", err, "in", wait)
	t := now.Add(wait)
	return t, d.st.Retry(ctx, r.MessageID, err.Error(), t)
}

// Run delivers until ctx is done: it resolves interrupted sends, then
// handles the queue whenever kicked or a deferred reply is due.
func (d *Deliverer) Run(ctx context.Context, kick <-chan struct{}) error {
	recheck := d.opts.ConfirmWait / 4
	if recheck > time.Minute {
		recheck = time.Minute
	}
	for {
		if err := d.Recover(ctx); err != nil && ctx.Err() == nil {
			d.log.Error("deliver: recover", "err", err)
		}
		next, err := d.Pass(ctx)
		if err != nil && ctx.Err() == nil {
			d.log.Error("deliver: queue", "err", err)
		}
		wait := recheck
		if !next.IsZero() {
			if w := next.Sub(d.Now()); w < wait {
				wait = w
			}
		}
		if wait < 10*time.Millisecond {
			wait = 10 * time.Millisecond
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-kick:
		case <-t.C:
		}
		t.Stop()
	}
}
