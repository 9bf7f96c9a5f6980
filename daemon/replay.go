package daemon

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/autosel-bot/autosel-bot/imapsrc"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/store"
)

// ReplayStats summarise a replay.
type ReplayStats struct {
	// Read is the number of messages read from the inputs.
	Read int
	// New is how many of them were not in the store yet.
	New int
	// Messages, Series, Replies and Commands (command mails) are the
	// store's counts by status/state after the replay (all runs on this
	// store, not just this one).
	Messages, Series, Replies, Commands map[string]int
	// InputErrors are the paths (or files of a Maildir) that could not be
	// read: missing, unreadable, FIFOs, devices, symbolic links in a
	// Maildir. The rest of the input was still replayed.
	InputErrors []*mail.InputError
}

// replayBatch is how many messages trigger a scheduling pass, and
// recordBatch how many are recorded per transaction.
const (
	replayBatch = 2000
	recordBatch = 250
)

// Replay runs archives (mbox files or Maildirs) through the same path as
// watch: record, filter, hold, assemble, analyse, reply, deliver. Messages
// already in the store are not processed again. At the end every held
// series is processed as it is (complete or not). Inputs are streamed
// (mail.ReadInputs): a path that cannot be read is reported in
// ReplayStats.InputErrors and the others are still replayed; the error
// return is for the store, the outbox and ctx.
func (d *Daemon) Replay(ctx context.Context, paths []string) (*ReplayStats, error) {
	if err := d.Load(ctx); err != nil {
		return nil, err
	}
	stop := d.startWorkers(ctx)
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	st := &ReplayStats{}
	before, err := d.st.CountMessages(ctx)
	if err != nil {
		return nil, err
	}
	// Messages are recorded in batches (one transaction each); a batch is
	// always recorded before series are scheduled.
	var recs []*store.Message
	var msgs []*mail.Message
	flush := func() error {
		if len(recs) == 0 {
			return nil
		}
		ins, err := d.st.RecordMessages(ctx, recs)
		if err != nil {
			return err
		}
		for i := range recs {
			d.admit(recs[i], msgs[i], ins[i])
		}
		recs, msgs = recs[:0], msgs[:0]
		return nil
	}
	sinceSchedule := 0
	feed := func(source string, uid int, raw []byte) error {
		st.Read++
		rec, msg := d.prepare(ctx, &imapsrc.Message{Source: source, UID: uint32(uid), Size: int64(len(raw)), Raw: raw})
		recs, msgs = append(recs, rec), append(msgs, msg)
		if len(recs) >= recordBatch {
			if err := flush(); err != nil {
				return err
			}
		}
		if sinceSchedule++; sinceSchedule >= replayBatch {
			sinceSchedule = 0
			if err := flush(); err != nil {
				return err
			}
			// Commands about processed series first: what they change
			// (ignores) holds for the versions after them.
			if _, err := d.runCommands(ctx, false); err != nil {
				return err
			}
			return d.schedule(ctx, time.Now(), false)
		}
		return nil
	}
	inErrs, err := mail.ReadInputs(ctx, paths, nil, func(r *mail.Raw) error {
		abs, _ := filepath.Abs(r.Input)
		uid := r.Line
		if r.Source != r.Input {
			uid = r.Index // a Maildir message
		}
		return feed("replay:"+abs, uid, r.Data)
	})
	st.InputErrors = inErrs
	for _, e := range inErrs {
		d.log.Warn("replay: input skipped", "err", e)
	}
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if err := d.settle(ctx); err != nil {
		return nil, err
	}
	stop()
	stopped = true
	if err := d.dl.Recover(ctx); err != nil {
		return nil, err
	}
	if _, err := d.dl.Pass(ctx); err != nil {
		return nil, err
	}
	if st.Messages, err = d.st.CountMessages(ctx); err != nil {
		return nil, err
	}
	st.New = sum(st.Messages) - sum(before)
	if st.Series, err = d.st.CountSeries(ctx); err != nil {
		return nil, err
	}
	if st.Replies, err = d.st.CountReplies(ctx); err != nil {
		return nil, err
	}
	if st.Commands, err = d.st.CountCommands(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
