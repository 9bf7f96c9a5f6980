package daemon

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/textproto"
	"path"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/imapsrc"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/mailcmd"
	"github.com/autosel-bot/autosel-bot/store"
)

// Handle implements imapsrc.Handler: it records the message (advancing
// the mailbox cursor in the same transaction) and holds patch mail for its
// series. Malformed and unwanted mail is recorded with the reason and
// skipped; only a store failure is returned as an error.
func (d *Daemon) Handle(ctx context.Context, in *imapsrc.Message) error {
	rec, msg := d.prepare(ctx, in)
	inserted, err := d.st.RecordMessage(ctx, rec)
	if err != nil {
		return err
	}
	d.admit(rec, msg, inserted)
	return nil
}

// prepare parses and classifies a fetched message into the record to store.
func (d *Daemon) prepare(ctx context.Context, in *imapsrc.Message) (*store.Message, *mail.Message) {
	rec := &store.Message{
		MessageID: in.MessageID, Source: in.Source, Mailbox: in.Mailbox,
		UIDValidity: in.UIDValidity, UID: in.UID, Received: time.Now().UTC(),
	}
	var msg *mail.Message
	switch {
	case in.TooLarge:
		rec.Status, rec.Reason = store.StatusMalformed, fmt.Sprintf("too large: %d bytes (limit %d)", in.Size, d.opts.MaxMessageSize)
	case len(in.Raw) == 0:
		rec.Status, rec.Reason = store.StatusMalformed, "empty message (expunged while fetched?)"
	case int64(len(in.Raw)) > d.opts.MaxMessageSize:
		rec.Status, rec.Reason = store.StatusMalformed, fmt.Sprintf("too large: %d bytes (limit %d)", len(in.Raw), d.opts.MaxMessageSize)
	default:
		var err error
		msg, err = d.opts.Parser.Parse(bytes.NewReader(in.Raw))
		if err != nil {
			var pe *mail.ParseError
			if errors.As(err, &pe) && rec.MessageID == "" {
				rec.MessageID = pe.MessageID
			}
			rec.Status, rec.Reason = store.StatusMalformed, "unparseable: "+err.Error()
			msg = nil
		} else {
			if rec.MessageID == "" || strings.HasSuffix(msg.MessageID, "@"+mail.SyntheticIDDomain) {
				// Keep the parser's ID (it synthesises one when missing).
				rec.MessageID = msg.MessageID
			}
			msg.MessageID = rec.MessageID
			rec.Status, rec.Reason = d.classify(ctx, msg)
		}
	}
	if rec.MessageID == "" {
		rec.MessageID = fallbackID(in)
	}
	if rec.Status == store.StatusPending || rec.Status == store.StatusCommand {
		rec.Raw = in.Raw
	}
	if rec.Status == store.StatusCommand {
		var verbs []string
		for _, c := range mailcmd.Parse(msg.Body) {
			verbs = append(verbs, c.Verb)
		}
		rec.Command = &store.Command{Sender: msg.From.Addr, List: d.listOfOrigin(in.Source + "/" + in.Mailbox), Origin: in.Source + "/" + in.Mailbox,
			Verbs: strings.Join(verbs, " "), Created: rec.Received}
	}
	return rec, msg
}

// admit logs a recorded message and, if it is held, adds it to the pool.
func (d *Daemon) admit(rec *store.Message, msg *mail.Message, inserted bool) {
	log := d.log.With("source", rec.Source, "mailbox", rec.Mailbox, "uid", rec.UID)
	if !inserted {
		log.Debug("message already seen", "message_id", rec.MessageID)
		d.m.messages.WithLabelValues("duplicate").Inc()
		return
	}
	d.m.messages.WithLabelValues(rec.Status).Inc()
	switch rec.Status {
	case store.StatusMalformed:
		log.Warn("malformed message skipped", "message_id", rec.MessageID, "reason", rec.Reason)
	case store.StatusPending:
		log.Debug("patch mail held for its series", "message_id", rec.MessageID, "subject", msg.Subject.Raw)
		d.mu.Lock()
		d.pool[rec.MessageID] = &pooled{msg: msg, received: rec.Received}
		n := len(d.pool)
		d.mu.Unlock()
		d.m.pool.Set(float64(n))
		poke(d.trigger)
	case store.StatusCommand:
		log.Info("commands by mail", "message_id", rec.MessageID, "from", msg.From.Addr, "commands", rec.Reason)
		poke(d.cmdKick)
	default:
		log.Info("message skipped", "message_id", rec.MessageID, "status", rec.Status, "reason", rec.Reason)
	}
}

// classify applies the ingest policy to a parsed message: the bot never
// answers its own mail, other bots, Auto-Submitted mail or mail without a
// patch, and refuses diffs with hostile paths. A reply with "#autosel"
// lines (and no patch of its own) is a command mail when commands are on.
func (d *Daemon) classify(ctx context.Context, m *mail.Message) (status, reason string) {
	// Our own reply coming back from the list confirms its delivery.
	if d.dl != nil {
		if ours, err := d.dl.Confirm(ctx, m.MessageID); err != nil {
			d.log.Warn("confirm reply", "message_id", m.MessageID, "err", err)
		} else if ours {
			return store.StatusSkipped, "own reply"
		}
	}
	from := strings.ToLower(m.From.Addr)
	if own := strings.ToLower(bareAddr(d.opts.From)); own != "" && from == own {
		return store.StatusSkipped, "own mail"
	}
	for _, pat := range d.opts.Bots {
		if ok, _ := path.Match(strings.ToLower(pat), from); ok {
			return store.StatusSkipped, "from a bot (" + pat + ")"
		}
	}
	if a := strings.ToLower(strings.TrimSpace(m.AutoSubmitted)); a != "" && a != "no" {
		return store.StatusSkipped, "Auto-Submitted: " + a
	}
	if d.commands() && (m.InReplyTo != "" || len(m.References) > 0) && (m.Diff == "" || m.Subject.Reply) {
		if cs := mailcmd.Parse(m.Body); len(cs) > 0 {
			return store.StatusCommand, fmt.Sprintf("%d #autosel lines", len(cs))
		}
	}
	if p := hostilePath(m.Diff); p != "" {
		return store.StatusMalformed, fmt.Sprintf("diff touches a path outside the tree: %q", p)
	}
	cover := m.Subject.Patch && m.Subject.Number == 0 && m.Subject.Total > 0 && !m.Subject.Reply
	if m.Diff == "" && !cover {
		return store.StatusSkipped, "no patch"
	}
	if m.Subject.Patch && !m.Subject.Reply {
		refs := append([]string{m.InReplyTo}, m.References...)
		done, err := d.st.SeriesOfMessages(ctx, refs)
		if err != nil {
			d.log.Warn("late-part check", "message_id", m.MessageID, "err", err)
		}
		for key, v := range done {
			if v == m.Subject.Version {
				return store.StatusLate, "part of series " + key + ", already processed"
			}
		}
	}
	return store.StatusPending, ""
}

// hostilePath returns the first path in a diff's file headers that
// escapes the tree (absolute, or with a ".." component), or "".
func hostilePath(diff string) string {
	if diff == "" {
		return ""
	}
	for _, line := range strings.Split(diff, "\n") {
		var paths []string
		switch {
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "):
			f := strings.TrimSpace(line[4:])
			if i := strings.IndexByte(f, '\t'); i >= 0 {
				f = f[:i]
			}
			paths = append(paths, f)
		case strings.HasPrefix(line, "diff --git "):
			paths = append(paths, strings.Fields(line[len("diff --git "):])...)
		case strings.HasPrefix(line, "rename from "), strings.HasPrefix(line, "rename to "),
			strings.HasPrefix(line, "copy from "), strings.HasPrefix(line, "copy to "):
			f := line[strings.Index(line, " ")+1:]
			paths = append(paths, f[strings.Index(f, " ")+1:])
		}
		for _, p := range paths {
			p = strings.Trim(p, `"`)
			if p == "/dev/null" {
				continue
			}
			if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
				p = p[2:]
			}
			if strings.HasPrefix(p, "/") {
				return p
			}
			for _, c := range strings.Split(p, "/") {
				if c == ".." {
					return p
				}
			}
		}
	}
	return ""
}

// bareAddr extracts the address from "Name <addr>".
func bareAddr(s string) string {
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		s = s[i+1:]
		s = strings.TrimSuffix(strings.TrimSpace(s), ">")
	}
	return strings.TrimSpace(s)
}

// fallbackID names a message whose Message-ID could not be read: from its
// raw header if possible, else a hash of its location and content.
func fallbackID(in *imapsrc.Message) string {
	if len(in.Raw) > 0 {
		tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(in.Raw)))
		if h, err := tp.ReadMIMEHeader(); err == nil || len(h) > 0 {
			if id := strings.Trim(strings.TrimSpace(h.Get("Message-Id")), "<>"); id != "" {
				return id
			}
		}
	}
	sum := sha256.New()
	fmt.Fprintf(sum, "%s\x00%s\x00%d\x00%d\x00", in.Source, in.Mailbox, in.UIDValidity, in.UID)
	sum.Write(in.Raw)
	return hex.EncodeToString(sum.Sum(nil)[:16]) + "@unknown.autosel-bot.invalid"
}
