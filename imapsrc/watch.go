package imapsrc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/autosel-bot/autosel-bot/internal/ctxsleep"
	"github.com/autosel-bot/autosel-bot/internal/retry"
	"github.com/autosel-bot/autosel-bot/store"
)

// Message is one message fetched from a mailbox.
type Message struct {
	// Source is the server's Name; Mailbox the mailbox it came from.
	Source, Mailbox string
	// UIDValidity and UID locate it on the server.
	UIDValidity, UID uint32
	// Size is the server-reported RFC822.SIZE.
	Size int64
	// MessageID is the envelope's Message-ID (without angle brackets),
	// known even for messages too large to fetch.
	MessageID string
	// Date is the server's internal date.
	Date time.Time
	// Raw is the full message; nil when TooLarge.
	Raw []byte
	// TooLarge is set when Size exceeds the configured maximum.
	TooLarge bool
}

// Handler receives each new message once, in UID order per mailbox. It
// must durably record the message and advance the mailbox's cursor in the
// store to m.UID in one step (store.RecordMessage does both); an error
// ends the session, which reconnects and fetches from the cursor again.
type Handler interface {
	Handle(ctx context.Context, m *Message) error
}

// Hooks observe connection state (metrics, health); any may be nil.
type Hooks struct {
	// Connected is called when a mailbox session is established.
	Connected func(source, mailbox string)
	// Disconnected is called when it ends, with the reason (also after a
	// connection attempt that failed).
	Disconnected func(source, mailbox string, err error)
	// Unreachable is called when the server's mailboxes cannot be listed
	// (before any mailbox session exists), with the reason.
	Unreachable func(source string, err error)
}

// Watcher follows the mailboxes of a set of servers.
type Watcher struct {
	servers []Server
	st      *store.Store
	h       Handler
	hooks   Hooks
	log     *slog.Logger
}

// NewWatcher checks the server settings and returns a Watcher.
func NewWatcher(servers []Server, st *store.Store, h Handler, hooks Hooks, log *slog.Logger) (*Watcher, error) {
	w := &Watcher{st: st, h: h, hooks: hooks, log: log}
	for _, s := range servers {
		s, err := s.withDefaults()
		if err != nil {
			return nil, err
		}
		w.servers = append(w.servers, s)
	}
	if len(w.servers) == 0 {
		return nil, errors.New("imap: no server configured")
	}
	return w, nil
}

// Run reads every configured mailbox until ctx is done, reconnecting on
// any error. It returns nil when ctx is cancelled.
func (w *Watcher) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for i := range w.servers {
		s := &w.servers[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.runServer(ctx, s)
		}()
	}
	wg.Wait()
	return nil
}

// reconnect is the policy of a server's reconnect delays: from
// BackoffMin, doubled up to BackoffMax, with jitter so that the mailboxes
// of a server that went away do not all come back at once.
func (s *Server) reconnect() retry.Policy {
	return retry.Policy{Min: s.BackoffMin, Max: s.BackoffMax, Jitter: 0.2}
}

// runServer resolves the mailbox patterns (retrying), then follows each
// mailbox on its own connection.
func (w *Watcher) runServer(ctx context.Context, s *Server) {
	log := w.log.With("imap", s.Name)
	var boxes []string
	err := retry.Do(ctx, s.reconnect(), func(context.Context) error {
		c, err := s.dial(nil)
		if err == nil {
			boxes, err = s.resolve(c)
			c.Close()
		}
		if err != nil && w.hooks.Unreachable != nil {
			w.hooks.Unreachable(s.Name, err)
		}
		return err
	}, func(err error, d time.Duration) {
		log.Warn("imap: cannot list mailboxes; retrying", "err", err, "in", d)
	})
	if err != nil {
		return
	}
	log.Info("imap: following mailboxes", "mailboxes", boxes)
	var wg sync.WaitGroup
	for _, mbox := range boxes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.runMailbox(ctx, s, mbox)
		}()
	}
	wg.Wait()
}

// runMailbox keeps one session on a mailbox alive, reconnecting with
// exponential backoff (reset after a session that got going).
func (w *Watcher) runMailbox(ctx context.Context, s *Server, mbox string) {
	log := w.log.With("imap", s.Name, "mailbox", mbox)
	b := s.reconnect().New()
	for {
		start := time.Now()
		healthy, err := w.session(ctx, s, mbox, log)
		if w.hooks.Disconnected != nil {
			w.hooks.Disconnected(s.Name, mbox, err)
		}
		if ctx.Err() != nil {
			return
		}
		if healthy && time.Since(start) > s.BackoffMin {
			b.Reset()
		}
		d := b.Next()
		log.Warn("imap: session ended; reconnecting", "err", err, "in", d)
		if ctxsleep.Sleep(ctx, d) != nil {
			return
		}
	}
}

// session runs one connection: select, catch up from the cursor, then
// wait for new mail (IDLE or polling) and fetch it. healthy reports
// whether the session got as far as the first catch-up.
func (w *Watcher) session(ctx context.Context, s *Server, mbox string, log *slog.Logger) (healthy bool, err error) {
	notify := make(chan struct{}, 1)
	poke := func() {
		select {
		case notify <- struct{}{}:
		default:
		}
	}
	handler := &imapclient.UnilateralDataHandler{
		Mailbox: func(d *imapclient.UnilateralDataMailbox) {
			if d.NumMessages != nil {
				poke()
			}
		},
	}
	c, err := s.dial(handler)
	if err != nil {
		return false, err
	}
	defer c.Close()
	// Cancelling ctx closes the connection, ending any blocked command.
	defer context.AfterFunc(ctx, func() { c.Close() })()
	sel, err := c.Select(mbox, &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		return false, fmt.Errorf("EXAMINE %s: %w", mbox, err)
	}
	if err := w.initCursor(ctx, c, s, mbox, sel, log); err != nil {
		return false, err
	}
	if err := w.fetchNew(ctx, c, s, mbox, sel.UIDValidity, log); err != nil {
		return false, err
	}
	if w.hooks.Connected != nil {
		w.hooks.Connected(s.Name, mbox)
	}
	idle := !s.NoIdle && c.Caps().Has(imap.CapIdle)
	log.Info("imap: caught up", "uidvalidity", sel.UIDValidity, "idle", idle)
	checked := time.Now()
	for {
		t := time.NewTimer(s.PollInterval)
		if idle {
			cmd, err := c.Idle()
			if err != nil {
				t.Stop()
				return true, fmt.Errorf("IDLE: %w", err)
			}
			select {
			case <-ctx.Done():
			case <-notify:
			case <-t.C:
			case <-c.Closed():
			}
			t.Stop()
			if ctx.Err() != nil {
				return true, ctx.Err()
			}
			cmd.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					return true, fmt.Errorf("IDLE: %w", err)
				}
			case <-time.After(30 * time.Second):
				return true, errors.New("IDLE: no answer to DONE")
			}
		} else {
			select {
			case <-ctx.Done():
			case <-notify:
			case <-t.C:
			case <-c.Closed():
			}
			t.Stop()
			if ctx.Err() != nil {
				return true, ctx.Err()
			}
			if err := c.Noop().Wait(); err != nil {
				return true, fmt.Errorf("NOOP: %w", err)
			}
		}
		if time.Since(checked) >= s.PollInterval {
			checked = time.Now()
			if err := reexamine(c, mbox, sel.UIDValidity); err != nil {
				return true, err
			}
			// The re-EXAMINE's EXISTS is no news: fetchNew below
			// looks at everything above the cursor anyway.
			select {
			case <-notify:
			default:
			}
		}
		if err := w.fetchNew(ctx, c, s, mbox, sel.UIDValidity, log); err != nil {
			return true, err
		}
	}
}

// reexamine selects mbox again and fails when its UIDVALIDITY is no
// longer validity, so that the session starts over and rescans.
//
// A mailbox deleted and re-created under a session that has it selected
// is not reliably reported: Dovecot answers STATUS on the selected mailbox
// from the selected view (tagging it [CLIENTBUG]), and when its sync sees
// the new mailbox's index it sends only an untagged "NO Internal error"
// and keeps the old view, frozen, for the rest of the session: same
// UIDVALIDITY, no new messages, no BYE. Only a fresh SELECT opens the
// mailbox that now has the name.
func reexamine(c *imapclient.Client, mbox string, validity uint32) error {
	sel, err := c.Select(mbox, &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		return fmt.Errorf("EXAMINE %s again: %w", mbox, err)
	}
	if sel.UIDValidity != validity {
		return fmt.Errorf("UIDVALIDITY of %s changed from %d to %d", mbox, validity, sel.UIDValidity)
	}
	return nil
}

// initCursor sets the mailbox's cursor on a first start (from now or the
// start date) and resets it when UIDVALIDITY changed (rescan from the
// first start's date; the store drops Message-IDs already seen).
func (w *Watcher) initCursor(ctx context.Context, c *imapclient.Client, s *Server, mbox string, sel *imap.SelectData, log *slog.Logger) error {
	cur, err := w.st.Cursor(ctx, s.Name, mbox)
	if err == nil && cur.UIDValidity == sel.UIDValidity {
		return nil
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	var since time.Time
	if errors.Is(err, store.ErrNotFound) {
		since = s.Start
		if since.IsZero() {
			since = time.Now().UTC()
		}
	} else {
		since = cur.Since
		log.Warn("imap: UIDVALIDITY changed; rescanning with Message-ID de-duplication",
			"old", cur.UIDValidity, "new", sel.UIDValidity, "since", since.Format("2006-01-02"))
	}
	var last uint32
	if errors.Is(err, store.ErrNotFound) && s.Start.IsZero() {
		// First start from "now": everything present is history.
		last, err = lastUID(c, sel)
		if err != nil {
			return err
		}
	} else {
		crit := &imap.SearchCriteria{}
		if !since.IsZero() {
			crit.Since = since
		}
		var uids []imap.UID
		data, err := c.UIDSearch(crit, nil).Wait()
		if err == nil {
			uids = data.AllUIDs()
		} else {
			// Some servers (public-inbox-imapd) reject the quoted date
			// go-imap sends; archives are in date order, so bisect.
			log.Info("imap: SEARCH SINCE refused; bisecting by INTERNALDATE", "err", err)
			u, ok, err := firstSince(c, sel.NumMessages, since)
			if err != nil {
				return err
			}
			if ok {
				uids = []imap.UID{u}
			}
		}
		if len(uids) == 0 {
			if last, err = lastUID(c, sel); err != nil {
				return err
			}
		} else {
			min := uids[0]
			for _, u := range uids {
				if u < min {
					min = u
				}
			}
			last = uint32(min) - 1
		}
	}
	log.Info("imap: cursor set", "uidvalidity", sel.UIDValidity, "last_uid", last)
	return w.st.SetCursor(ctx, s.Name, mbox, store.Cursor{UIDValidity: sel.UIDValidity, LastUID: last, Since: since})
}

// firstSince finds, by bisection over sequence numbers (archives are
// appended in date order), the UID of the first message whose internal
// date is on or after since's day.
func firstSince(c *imapclient.Client, n uint32, since time.Time) (imap.UID, bool, error) {
	day := time.Date(since.Year(), since.Month(), since.Day(), 0, 0, 0, 0, time.UTC)
	at := func(seq uint32) (imap.UID, time.Time, error) {
		bufs, err := c.Fetch(imap.SeqSetNum(seq), &imap.FetchOptions{UID: true, InternalDate: true}).Collect()
		if err != nil {
			return 0, time.Time{}, fmt.Errorf("FETCH %d INTERNALDATE: %w", seq, err)
		}
		if len(bufs) == 0 {
			return 0, time.Time{}, fmt.Errorf("FETCH %d: no answer", seq)
		}
		return bufs[0].UID, bufs[0].InternalDate, nil
	}
	lo, hi := uint32(1), n+1 // first seq with date >= day lies in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo)/2
		_, d, err := at(mid)
		if err != nil {
			return 0, false, err
		}
		if d.Before(day) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo > n {
		return 0, false, nil
	}
	u, _, err := at(lo)
	return u, err == nil, err
}

// lastUID is the highest UID in use (UIDNEXT-1, or a search).
func lastUID(c *imapclient.Client, sel *imap.SelectData) (uint32, error) {
	if sel.UIDNext > 0 {
		return uint32(sel.UIDNext) - 1, nil
	}
	if sel.NumMessages == 0 {
		return 0, nil
	}
	data, err := c.UIDSearch(&imap.SearchCriteria{}, nil).Wait()
	if err != nil {
		return 0, fmt.Errorf("UID SEARCH ALL: %w", err)
	}
	var max imap.UID
	for _, u := range data.AllUIDs() {
		if u > max {
			max = u
		}
	}
	return uint32(max), nil
}

// fetchChunk is how many messages' metadata one FETCH asks for.
const fetchChunk = 200

// fetchNew hands every message above the cursor to the handler, in UID order.
func (w *Watcher) fetchNew(ctx context.Context, c *imapclient.Client, s *Server, mbox string, validity uint32, log *slog.Logger) error {
	cur, err := w.st.Cursor(ctx, s.Name, mbox)
	if err != nil {
		return err
	}
	var set imap.UIDSet
	set.AddRange(imap.UID(cur.LastUID+1), 0)
	data, err := c.UIDSearch(&imap.SearchCriteria{UID: []imap.UIDSet{set}}, nil).Wait()
	if err != nil {
		return fmt.Errorf("UID SEARCH: %w", err)
	}
	var uids []imap.UID
	for _, u := range data.AllUIDs() {
		if uint32(u) > cur.LastUID {
			uids = append(uids, u)
		}
	}
	sort.Slice(uids, func(i, j int) bool { return uids[i] < uids[j] })
	if len(uids) > 0 {
		log.Debug("imap: new messages", "count", len(uids), "after_uid", cur.LastUID)
	}
	for len(uids) > 0 {
		n := min(len(uids), fetchChunk)
		chunk := uids[:n]
		uids = uids[n:]
		metas, err := c.Fetch(imap.UIDSetNum(chunk...), &imap.FetchOptions{
			UID: true, RFC822Size: true, Envelope: true, InternalDate: true,
		}).Collect()
		if err != nil {
			return fmt.Errorf("FETCH metadata: %w", err)
		}
		sort.Slice(metas, func(i, j int) bool { return metas[i].UID < metas[j].UID })
		for _, meta := range metas {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			m := &Message{
				Source: s.Name, Mailbox: mbox, UIDValidity: validity, UID: uint32(meta.UID),
				Size: meta.RFC822Size, Date: meta.InternalDate,
			}
			if meta.Envelope != nil {
				m.MessageID = meta.Envelope.MessageID
			}
			if m.Size > s.MaxMessageSize {
				m.TooLarge = true
			} else {
				raw, err := fetchBody(c, meta.UID)
				if err != nil {
					return err
				}
				if int64(len(raw)) > s.MaxMessageSize {
					m.TooLarge, m.Size = true, int64(len(raw))
				} else {
					m.Raw = raw
				}
			}
			if err := w.h.Handle(ctx, m); err != nil {
				return fmt.Errorf("message UID %d <%s>: %w", m.UID, m.MessageID, err)
			}
		}
	}
	return nil
}

// fetchBody fetches one message's full text without setting \Seen.
func fetchBody(c *imapclient.Client, uid imap.UID) ([]byte, error) {
	sec := &imap.FetchItemBodySection{Peek: true}
	bufs, err := c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{sec}}).Collect()
	if err != nil {
		return nil, fmt.Errorf("FETCH UID %d: %w", uid, err)
	}
	for _, b := range bufs {
		if b.UID == uid {
			return b.FindBodySection(sec), nil
		}
	}
	return nil, nil // expunged meanwhile
}
