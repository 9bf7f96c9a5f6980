package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/autosel-bot/autosel-bot/botcmd"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/mailcmd"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// Commands by mail. A reply with "#autosel" lines is recorded, with its
// command row, in the transaction that records the message (a re-delivered
// mail is the same Message-ID: nothing runs twice). The command worker
// takes the queued command mails in order: it resolves the series the mail
// is about from its references (a reply of the bot's, a patch of the
// series; a series still held makes it wait), checks that the sender is
// trusted on the mail's list, and hands it to the Commander. Its answer is
// written to the outbox and recorded, with what the commands changed (the
// findings ignored for the series' lineage), in one transaction; a crash
// before it leaves the command running, to be run again after a restart
// under the same reply Message-ID, so its answer is sent once.

// commands reports whether command mails are read.
func (d *Daemon) commands() bool { return d.opts.Commander != nil && d.opts.Commands.Enabled }

// commandLoop runs command passes until ctx is done: when kicked (a command
// arrived, a series was processed) and periodically.
func (d *Daemon) commandLoop(ctx context.Context) {
	tick := min(max(d.opts.SeriesWait/4, 50*time.Millisecond), 30*time.Second)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		if _, err := d.runCommands(ctx, false); err != nil && ctx.Err() == nil {
			d.log.Error("commands", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-d.cmdKick:
		case <-t.C:
		}
	}
}

// runCommands runs every pending command mail that can run: its series is
// processed, or no series it names is held (then, or with flush, it is
// answered that there is none). It returns how many it finished.
func (d *Daemon) runCommands(ctx context.Context, flush bool) (int, error) {
	if !d.commands() {
		return 0, nil
	}
	d.cmdMu.Lock()
	defer d.cmdMu.Unlock()
	cs, err := d.st.PendingCommands(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range cs {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		done, err := d.runCommand(ctx, c, flush)
		if err != nil {
			if ctx.Err() != nil {
				return n, ctx.Err()
			}
			d.log.Error("command", "message_id", c.MessageID, "err", err)
			continue
		}
		if done {
			n++
		}
	}
	return n, nil
}

// runCommand runs one command mail and records its outcome; it reports
// false when the mail waits for its series.
func (d *Daemon) runCommand(ctx context.Context, c *store.Command, flush bool) (bool, error) {
	log := d.log.With("command", c.MessageID, "from", c.Sender, "verbs", c.Verbs)
	out := &store.CommandOutcome{MessageID: c.MessageID, State: store.CommandDone}
	raw, err := d.st.CommandRaw(ctx, c.MessageID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			out.State, out.Result = store.CommandFailed, "raw text lost"
			return true, d.finishCommand(ctx, out)
		}
		return false, err
	}
	msg, err := d.opts.Parser.Parse(bytes.NewReader(raw))
	if err != nil {
		out.State, out.Result = store.CommandFailed, "no longer parses: "+err.Error()
		return true, d.finishCommand(ctx, out)
	}
	msg.MessageID = c.MessageID
	refs := []string{msg.InReplyTo}
	for i := len(msg.References) - 1; i >= 0; i-- {
		refs = append(refs, msg.References[i])
	}
	res, err := d.st.ResolveRefs(ctx, refs)
	if err != nil {
		return false, err
	}
	if res.SeriesKey == "" && res.Held && !flush {
		return false, nil // its series is not analysed yet
	}
	attempts, err := d.st.StartCommand(ctx, c.MessageID)
	if err != nil {
		return false, err
	}
	job, err := d.commandJob(ctx, c, msg, res.SeriesKey, out)
	if err != nil {
		return false, err
	}
	if job.Refuse {
		last, err := d.st.LastRefusal(ctx, c.Sender)
		if err != nil {
			return false, err
		}
		if !last.IsZero() && time.Since(last) < d.opts.Commands.RefusalInterval {
			log.Info("command from an untrusted sender, refused already today: not answered", "list", c.List)
			out.State, out.Result = store.CommandRefused, "untrusted sender, refused already at "+last.UTC().Format(time.RFC3339)
			return true, d.finishCommand(ctx, out)
		}
		out.State, out.Refused = store.CommandRefused, c.Sender
	} else if attempts > d.opts.MaxAttempts {
		job.Problem = fmt.Sprintf("I gave up on the commands of this mail after %d attempts: they kept failing or stopping the bot.", attempts-1)
		out.State = store.CommandFailed
	}
	answer, err := d.safeCommand(ctx, job)
	if ctx.Err() != nil {
		return false, ctx.Err() // left running: the next run answers it
	}
	if err != nil {
		log.Error("command failed", "err", err)
		out.State, out.Result = store.CommandFailed, err.Error()
		return true, d.finishCommand(ctx, out)
	}
	out.Result, out.Ignore, out.Unignore = answer.Summary, answer.Ignore, answer.Unignore
	if r := answer.Reply; r != nil {
		path, err := d.dl.Outbox().Write(r.MessageID, r.Bytes())
		if err != nil {
			return false, err
		}
		out.Reply = &store.Reply{MessageID: r.MessageID, InReplyTo: r.InReplyTo, Path: path, List: c.List,
			Author: c.Sender, Origin: c.Origin, DryRun: !d.dl.Sending()}
	}
	if err := d.finishCommand(ctx, out); err != nil {
		return false, err
	}
	log.Info("commands answered", "series", out.SeriesKey, "state", out.State, "result", out.Result)
	if out.Reply != nil {
		poke(d.kick)
	}
	return true, nil
}

// finishCommand records a command mail's outcome and counts it.
func (d *Daemon) finishCommand(ctx context.Context, out *store.CommandOutcome) error {
	if err := d.st.FinishCommand(ctx, out); err != nil {
		return err
	}
	d.m.commands.WithLabelValues(out.State).Inc()
	return nil
}

// commandJob prepares what the Commander needs of a command mail: its
// commands, whether its sender is trusted, and the series it is about.
func (d *Daemon) commandJob(ctx context.Context, c *store.Command, msg *mail.Message, key string, out *store.CommandOutcome) (*botcmd.Job, error) {
	j := &botcmd.Job{Msg: msg, Commands: mailcmd.Parse(msg.Body), List: c.List}
	var sr *store.Series
	if key != "" {
		var err error
		if sr, err = d.st.GetSeries(ctx, key); err != nil {
			return nil, err
		}
	}
	author := ""
	if sr != nil {
		author = sr.Author
	}
	if !d.opts.Commands.trusted(c.List, c.Sender, author) {
		j.Refuse = true
		return j, nil
	}
	if sr == nil {
		j.Problem = "I found no series of mine that this mail is about: it answers neither a reply of mine nor a patch I analysed. Reply to my mail (or to the patch) with the command."
		return j, nil
	}
	out.SeriesKey = sr.Key
	j.SeriesKey, j.Version, j.Report = sr.Key, sr.Version, []byte(sr.Report)
	j.Lineage = sr.Lineage
	if j.Lineage == "" {
		j.Lineage = sr.Key
	}
	out.Lineage = j.Lineage
	var err error
	if j.Ignored, err = d.st.Ignores(ctx, j.Lineage); err != nil {
		return nil, err
	}
	j.Series = func(ctx context.Context) (*series.Series, error) { return d.loadSeries(ctx, sr.Key) }
	return j, nil
}

// loadSeries assembles a processed series again from its stored messages.
func (d *Daemon) loadSeries(ctx context.Context, key string) (*series.Series, error) {
	raws, err := d.st.SeriesMessages(ctx, key)
	if err != nil {
		return nil, err
	}
	var msgs []*mail.Message
	for _, raw := range raws {
		m, err := d.opts.Parser.Parse(bytes.NewReader(raw))
		if err != nil {
			continue
		}
		msgs = append(msgs, m)
	}
	var first *series.Series
	for _, s := range series.Assemble(msgs, d.opts.Assemble) {
		if Key(s) == key {
			return s, nil
		}
		if first == nil && len(s.Patches) > 0 {
			first = s
		}
	}
	if first == nil {
		return nil, fmt.Errorf("series %s: no patch among its %d stored messages", key, len(raws))
	}
	return first, nil
}

// safeCommand runs the Commander, turning a panic into an error.
func (d *Daemon) safeCommand(ctx context.Context, j *botcmd.Job) (res *botcmd.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("command panicked: %v\n%s", p, debug.Stack())
		}
	}()
	res, err = d.opts.Commander.Handle(ctx, j)
	if err == nil && res == nil {
		res = &botcmd.Result{}
	}
	return res, err
}
