package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
	// Messages, Series and Replies are the store's counts by status/state
	// after the replay (all runs on this store, not just this one).
	Messages, Series, Replies map[string]int
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
// series is processed as it is (complete or not).
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
			return d.schedule(ctx, time.Now(), false)
		}
		return nil
	}
	for _, p := range paths {
		if err := replayOne(p, feed); err != nil {
			return nil, err
		}
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
	return st, nil
}

// replayOne feeds one mbox file or Maildir.
func replayOne(p string, feed func(source string, uid int, raw []byte) error) error {
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	abs, _ := filepath.Abs(p)
	source := "replay:" + abs
	if !fi.IsDir() {
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		defer f.Close()
		n := 0
		err = mail.ReadMbox(f, func(raw []byte, line int) error {
			n++
			return feed(source, line, raw)
		})
		if err != nil {
			return fmt.Errorf("replay %s: %w", p, err)
		}
		return nil
	}
	var files []string
	for _, sub := range []string{"cur", "new"} {
		ents, err := os.ReadDir(filepath.Join(p, sub))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.IsDir() {
				files = append(files, filepath.Join(p, sub, e.Name()))
			}
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("replay %s: not an mbox and no Maildir messages in cur/ or new/", p)
	}
	sort.Strings(files)
	for i, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		if err := feed(source, i+1, raw); err != nil {
			return err
		}
	}
	return nil
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
