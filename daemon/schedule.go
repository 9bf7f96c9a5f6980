package daemon

import (
	"context"
	"time"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// schedule assembles the held messages into series and hands every series
// that is ready (complete, or held for SeriesWait; everything when flush)
// to the workers. Series already processed turn late parts into "late";
// held messages that never formed a series expire after twice the wait.
func (d *Daemon) schedule(ctx context.Context, now time.Time, flush bool) error {
	d.mu.Lock()
	msgs := make([]*mail.Message, 0, len(d.pool))
	recv := make(map[string]time.Time, len(d.pool))
	for id, p := range d.pool {
		msgs = append(msgs, p.msg)
		recv[id] = p.received
	}
	d.mu.Unlock()
	if len(msgs) == 0 {
		return nil
	}
	placed := map[string]bool{}
	for _, s := range series.Assemble(msgs, d.opts.Assemble) {
		ids := memberIDs(s)
		first := now
		for _, id := range ids {
			placed[id] = true
			if t, ok := recv[id]; ok && t.Before(first) {
				first = t
			}
		}
		key := Key(s)
		d.mu.Lock()
		busy := d.inflight[key]
		d.mu.Unlock()
		if busy {
			continue
		}
		if !flush && s.Incomplete != "" && now.Sub(first) < d.opts.SeriesWait {
			continue
		}
		rec, err := d.st.GetSeries(ctx, key)
		if err != nil && err != store.ErrNotFound {
			return err
		}
		if rec != nil && (rec.State == store.SeriesDone || rec.State == store.SeriesFailed) {
			d.log.Info("late message for a processed series", "series", key, "messages", ids)
			if err := d.st.SetMessageStatus(ctx, store.StatusLate, "series "+key+" already processed", key, ids...); err != nil {
				return err
			}
			d.m.messages.WithLabelValues(store.StatusLate).Add(float64(len(ids)))
			d.drop(ids)
			continue
		}
		d.mu.Lock()
		d.inflight[key] = true
		d.mu.Unlock()
		d.jobs.Add(1)
		select {
		case d.work <- &job{s: s, key: key, ids: ids}:
		case <-ctx.Done():
			d.jobs.Done()
			return ctx.Err()
		}
	}
	var stale []string
	for id, t := range recv {
		if !placed[id] && (flush || now.Sub(t) >= 2*d.opts.SeriesWait) {
			stale = append(stale, id)
		}
	}
	if len(stale) > 0 {
		d.log.Info("held messages expired without forming a series", "messages", stale)
		if err := d.st.SetMessageStatus(ctx, store.StatusExpired, "no series formed", "", stale...); err != nil {
			return err
		}
		d.m.messages.WithLabelValues(store.StatusExpired).Add(float64(len(stale)))
		d.drop(stale)
	}
	return nil
}

// memberIDs are the Message-IDs of a series' held parts: cover, patches,
// inline review patches and replies.
func memberIDs(s *series.Series) []string {
	var ids []string
	if s.Cover != nil {
		ids = append(ids, s.Cover.MessageID)
	}
	for _, p := range s.Patches {
		ids = append(ids, p.Msg.MessageID)
	}
	for _, p := range s.Review {
		ids = append(ids, p.Msg.MessageID)
	}
	for _, m := range s.Replies {
		ids = append(ids, m.MessageID)
	}
	return ids
}
