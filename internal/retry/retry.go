// Package retry is the one exponential backoff of the bot: the delays of
// the IMAP reconnects, the SMTP retries, the GitHub transport's retries and
// the LAVA backend's event-stream reconnects and job polling. A Policy
// gives the delay of a retry (Delay); a Backoff walks the delays of one
// loop (Next, Reset, Wait); Do runs a function until it succeeds, fails
// permanently, runs out of attempts or its context ends.
package retry

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/ctxsleep"
)

// Policy is an exponential backoff: Min before the first retry, doubled
// per retry up to Max, each delay shortened by up to Jitter of itself.
type Policy struct {
	// Min is the first delay; Max bounds every delay (0: no bound).
	Min, Max time.Duration
	// Jitter, in [0, 1], is the largest fraction taken off a delay at
	// random, so that clients that failed together do not retry together.
	// Delays never exceed Max.
	Jitter float64
	// MaxAttempts bounds the calls Do makes (0: no bound).
	MaxAttempts int
	// Rand returns a number in [0, 1) for the jitter (nil:
	// math/rand/v2.Float64); Sleep waits (nil: ctxsleep.Sleep). Tests
	// replace them.
	Rand  func() float64
	Sleep func(ctx context.Context, d time.Duration) error
}

// Delay is the wait before retry n (0 is the first retry).
func (p Policy) Delay(n int) time.Duration {
	d := p.Min
	for i := 0; i < n && d > 0; i++ {
		if p.Max > 0 && d >= p.Max {
			break
		}
		d *= 2
	}
	if d <= 0 || (p.Max > 0 && d > p.Max) {
		d = p.Max
	}
	if p.Jitter > 0 && d > 0 {
		r := rand.Float64
		if p.Rand != nil {
			r = p.Rand
		}
		d -= time.Duration(float64(d) * min(p.Jitter, 1) * r())
	}
	return d
}

func (p Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	return ctxsleep.Sleep(ctx, d)
}

// Backoff walks the delays of p for one loop: Next returns Delay(0),
// Delay(1), ... until Reset starts again.
type Backoff struct {
	p Policy
	n int
}

// New returns a Backoff at its first delay.
func (p Policy) New() *Backoff { return &Backoff{p: p} }

// Next returns the next delay.
func (b *Backoff) Next() time.Duration {
	d := b.p.Delay(b.n)
	b.n++
	return d
}

// Reset makes the next delay the first one again (after a success).
func (b *Backoff) Reset() { b.n = 0 }

// Wait sleeps the next delay or until ctx ends (then ctx.Err()).
func (b *Backoff) Wait(ctx context.Context) error {
	return b.p.sleep(ctx, b.Next())
}

// permanent marks an error that retrying cannot fix.
type permanent struct{ err error }

func (e permanent) Error() string { return e.err.Error() }
func (e permanent) Unwrap() error { return e.err }

// Permanent wraps err so that Do returns it at once.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanent{err}
}

// Do calls fn until it returns nil, an error wrapped by Permanent (Do
// returns the error inside), MaxAttempts calls have failed (the last
// error), or ctx ends (ctx.Err()). Before each retry it calls onRetry, if
// not nil, with the error and the delay it is about to wait.
func Do(ctx context.Context, p Policy, fn func(ctx context.Context) error, onRetry func(err error, d time.Duration)) error {
	b := p.New()
	for attempt := 1; ; attempt++ {
		err := fn(ctx)
		var perm permanent
		switch {
		case err == nil:
			return nil
		case errors.As(err, &perm):
			return perm.err
		case ctx.Err() != nil:
			return ctx.Err()
		case p.MaxAttempts > 0 && attempt >= p.MaxAttempts:
			return err
		}
		d := b.Next()
		if onRetry != nil {
			onRetry(err, d)
		}
		if err := p.sleep(ctx, d); err != nil {
			return err
		}
	}
}
