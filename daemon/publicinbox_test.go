package daemon

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/lore/loretest"
	"github.com/autosel-bot/autosel-bot/store"
)

// TestWatchPublicInbox: a public-inbox v2 inbox served by
// public-inbox-imapd, read the way lore.kernel.org would be: the mailbox
// pattern finds the NEWSGROUP.N folders, a first start from a date picks up
// the archive, IDLE picks up what arrives later.
func TestWatchPublicInbox(t *testing.T) {
	// Mostly waiting (mail servers, the bot's polls): alongside the others.
	t.Parallel()
	pi := loretest.StartIMAP(t)
	seeds := seedMessages(t)
	half := len(seeds) / 2
	for _, raw := range seeds[:half] {
		pi.Deliver(t, raw)
	}
	e := newEnv(t, Options{SeriesWait: 2 * time.Second}, deliver.Options{}, nil, nil)
	srv := testServer(pi.IMAPAddr, "anyone", pi.Newsgroup+".*")
	srv.Start = time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	e.startWatch(t, srv)
	ctx := context.Background()
	total := func() int {
		c, _ := e.st.CountMessages(ctx)
		n := 0
		for _, v := range c {
			n += v
		}
		return n
	}
	waitFor(t, "the archive backfilled", 30*time.Second, func() bool { return total() >= half })
	for _, raw := range seeds[half:] {
		pi.Deliver(t, raw)
	}
	waitFor(t, "new mail picked up", 60*time.Second, func() bool { return total() >= len(seeds) })
	keys := expectedSeries(t, seeds)
	waitFor(t, "every series processed", 60*time.Second, func() bool {
		for _, k := range keys {
			if s, err := e.st.GetSeries(ctx, k); err != nil || s.State != store.SeriesDone {
				return false
			}
		}
		return true
	})
	for _, k := range keys {
		if n := e.an.count(k); n != 1 {
			t.Errorf("series %s analysed %d times, want 1", k, n)
		}
	}
	if n := total(); n != len(seeds) {
		t.Errorf("%d messages recorded, want %d", n, len(seeds))
	}
	if !strings.Contains(e.logBuf.String(), pi.Newsgroup+".0") {
		t.Errorf("mailbox %s.0 not followed", pi.Newsgroup)
	}
	replies := outboxMails(t, e.out.Dir)
	if len(replies) != len(keys) {
		t.Errorf("%d replies, want %d", len(replies), len(keys))
	}
	checkThreading(t, replies, parseAll(t, seeds))
}
