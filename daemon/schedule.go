package daemon

import (
	"context"
	"sort"
	"time"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// Scheduling. The pool is a cache of the parsed held messages; the store
// is the authority on what became of each of them. A pass assembles a
// copy of the pool into series, and every decision on a series (run it,
// or mark its parts late) or on a message that formed no series (expire
// it) is taken in one store transaction that reads the messages' current
// state (store.DecideSeries, store.ExpireHeld), so a pass never acts on
// its copy after a worker has finished with the messages in it. Messages
// a worker has are in flight (d.inflight) from the moment they are handed
// over until the worker's outcome is committed and they left the pool: a
// pass defers a series with a member in flight (or a patch referring to a
// message in flight, which may turn out a late part of its series) to a
// later pass.

// schedule runs one scheduling pass (see pass).
func (d *Daemon) schedule(ctx context.Context, now time.Time, flush bool) error {
	_, err := d.pass(ctx, now, flush)
	return err
}

// settle decides every held message: it runs flush passes, waiting for
// the workers after each, with the command mails whose series are done
// run before and after every pass, until a pass defers nothing and no
// command ran; then the commands still waiting are answered. A pass that
// starts with nothing in flight defers only series some of whose messages
// it has just let go of (no longer held, or marked late) and later
// versions of series it runs: the pool shrinks with every such pass, so
// this ends. A later version runs after the commands about the earlier
// one (an ignore applies to it).
func (d *Daemon) settle(ctx context.Context) error {
	for {
		// Commands about series processed already run first: an ignore
		// holds for a version that came after it.
		ranBefore, err := d.runCommands(ctx, false)
		if err != nil {
			return err
		}
		deferred, err := d.pass(ctx, time.Now(), true)
		if err != nil {
			return err
		}
		d.jobs.Wait()
		ran, err := d.runCommands(ctx, false)
		if err != nil {
			return err
		}
		if deferred == 0 && ran+ranBefore == 0 {
			break
		}
		d.log.Debug("settling: scheduling again the series deferred while in flight, assembled from stale messages or waiting for their previous version", "deferred", deferred, "commands", ran)
	}
	_, err := d.runCommands(ctx, true)
	return err
}

// pass assembles the held messages into series and hands every series
// that is ready (complete, or held for SeriesWait; everything when flush)
// to the workers; a later version of a series whose earlier version is
// held too waits for it. A part of a series already processed is marked late;
// held messages that never formed a series expire after twice the wait
// (at once when flush). It returns how many series it deferred because
// their messages were in flight or no longer held.
func (d *Daemon) pass(ctx context.Context, now time.Time, flush bool) (deferred int, err error) {
	d.passMu.Lock()
	defer d.passMu.Unlock()
	d.mu.Lock()
	msgs := make([]*mail.Message, 0, len(d.pool))
	byID := make(map[string]*mail.Message, len(d.pool))
	recv := make(map[string]time.Time, len(d.pool))
	for id, p := range d.pool {
		msgs = append(msgs, p.msg)
		byID[id] = p.msg
		recv[id] = p.received
	}
	d.mu.Unlock()
	if len(msgs) == 0 {
		return 0, nil
	}
	placed := map[string]bool{}
	assembled := series.Assemble(msgs, d.opts.Assemble)
	held := make(map[string]bool, len(assembled))
	for _, s := range assembled {
		held[s.ID] = true
	}
	for _, s := range assembled {
		ids := memberIDs(s)
		first := now
		for _, id := range ids {
			placed[id] = true
			if t, ok := recv[id]; ok && t.Before(first) {
				first = t
			}
		}
		if !flush && s.Incomplete != "" && now.Sub(first) < d.opts.SeriesWait {
			continue
		}
		if s.Supersedes != "" && held[s.Supersedes] {
			// The previous version is held (or in flight) still: this one
			// is reported against it once it is done.
			deferred++
			continue
		}
		key := Key(s)
		members := make([]store.Held, len(ids))
		for i, id := range ids {
			members[i] = heldOf(id, byID[id])
		}
		if d.inFlight(members) {
			deferred++
			continue
		}
		dec, err := d.st.DecideSeries(ctx, key, members)
		if err != nil {
			return deferred, err
		}
		if !dec.Run() {
			if late := d.decided(key, dec); len(dec.Gone) > 0 || late < len(ids) {
				deferred++
			}
			continue
		}
		if err := d.dispatch(ctx, &job{s: s, key: key, ids: ids}); err != nil {
			return deferred, err
		}
	}
	var stale []string
	d.mu.Lock()
	for id, t := range recv {
		if !d.inflight[id] && !placed[id] && (flush || now.Sub(t) >= 2*d.opts.SeriesWait) {
			stale = append(stale, id)
		}
	}
	d.mu.Unlock()
	if len(stale) == 0 {
		return deferred, nil
	}
	sort.Strings(stale)
	expired, gone, err := d.st.ExpireHeld(ctx, "no series formed", stale)
	if err != nil {
		return deferred, err
	}
	if len(expired) > 0 {
		d.log.Info("held messages expired without forming a series", "messages", expired)
		d.m.messages.WithLabelValues(store.StatusExpired).Add(float64(len(expired)))
	}
	d.drop(append(expired, gone...))
	return deferred, nil
}

// decided logs and applies a decision not to run a series: messages no
// longer held and parts marked late leave the pool. It returns the number
// of parts marked late.
func (d *Daemon) decided(key string, dec *store.Decision) int {
	if len(dec.Gone) > 0 {
		d.log.Debug("series assembled from messages no longer held; assembling the rest again", "series", key, "messages", dec.Gone)
		d.drop(dec.Gone)
	}
	keys := make([]string, 0, len(dec.Late))
	for k := range dec.Late {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	n := 0
	for _, k := range keys {
		ids := dec.Late[k]
		d.log.Info("late message for a processed series", "series", k, "messages", ids)
		d.m.messages.WithLabelValues(store.StatusLate).Add(float64(len(ids)))
		d.drop(ids)
		n += len(ids)
	}
	return n
}

// heldOf describes a held message for store.DecideSeries: a patch or a
// cover letter (not a reply) carries what it refers to, as the ingest's
// late-part check reads it.
func heldOf(id string, m *mail.Message) store.Held {
	h := store.Held{MessageID: id}
	if m == nil {
		return h
	}
	h.Version = m.Subject.Version
	if m.Subject.Patch && !m.Subject.Reply {
		for _, r := range append([]string{m.InReplyTo}, m.References...) {
			if r != "" {
				h.Refs = append(h.Refs, r)
			}
		}
	}
	return h
}

// inFlight reports whether a worker has one of the messages, or one a
// patch among them refers to (its series may finish and make the patch a
// late part).
func (d *Daemon) inFlight(held []store.Held) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, h := range held {
		if d.inflight[h.MessageID] {
			return true
		}
		for _, r := range h.Refs {
			if d.inflight[r] {
				return true
			}
		}
	}
	return false
}

// dispatch marks the job's messages in flight and hands it to a worker.
func (d *Daemon) dispatch(ctx context.Context, j *job) error {
	d.mu.Lock()
	for _, id := range j.ids {
		d.inflight[id] = true
	}
	d.mu.Unlock()
	d.jobs.Add(1)
	select {
	case d.work <- j:
		return nil
	case <-ctx.Done():
		d.jobs.Done()
		d.release(j.ids)
		return ctx.Err()
	}
}

// release ends the messages' flight (their worker is done with them).
func (d *Daemon) release(ids []string) {
	d.mu.Lock()
	for _, id := range ids {
		delete(d.inflight, id)
	}
	d.mu.Unlock()
}

// memberIDs are the Message-IDs of a series' held parts, once each:
// cover, patches, inline review patches and replies.
func memberIDs(s *series.Series) []string {
	var ids []string
	seen := map[string]bool{}
	add := func(m *mail.Message) {
		if !seen[m.MessageID] {
			seen[m.MessageID] = true
			ids = append(ids, m.MessageID)
		}
	}
	if s.Cover != nil {
		add(s.Cover)
	}
	for _, p := range s.Patches {
		add(p.Msg)
	}
	for _, p := range s.Review {
		add(p.Msg)
	}
	for _, m := range s.Replies {
		add(m)
	}
	return ids
}
