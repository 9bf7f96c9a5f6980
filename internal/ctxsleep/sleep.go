// Package ctxsleep waits for a duration or a context, whichever ends first:
// the one pause used by the polling loops (GitHub, Actions, LAVA, IMAP).
package ctxsleep

import (
	"context"
	"time"
)

// Sleep waits for d or until ctx is done. It returns ctx.Err() when the
// context ended first (or already had), nil after a full wait. A d <= 0
// does not wait.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
