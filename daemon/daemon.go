// Package daemon is the watch loop: messages come in (IMAP through
// imapsrc, or an archive for replay), are recorded in the store and
// filtered by policy, patch mail is held until its series is complete (or
// a wait has passed), each series is run once through the analysis by a
// bounded worker pool, and the replies go to the outbox and on to delivery
// (package deliver). A restart resumes from the store: messages held,
// series interrupted mid-analysis and replies not yet delivered.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/autosel-bot/autosel-bot/botcmd"
	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// OutMail is one reply composed by the Analyzer.
type OutMail struct {
	// MessageID is the reply's Message-ID (without angle brackets); it must
	// be deterministic for a series version and patch, so that analysing a
	// series again after a crash yields the same replies.
	MessageID string
	// InReplyTo is the Message-ID answered.
	InReplyTo string
	// Raw is the full RFC 5322 message.
	Raw []byte
}

// Result is what the Analyzer makes of a series.
type Result struct {
	// Report is the analysis result as JSON, kept in the store.
	Report []byte
	// Replies are the mails to send (possibly none).
	Replies []OutMail
}

// Analyzer runs a complete series through the pipeline and composes the
// replies, reporting it against its history (the findings ignored by
// command, the previous version analysed: botcmd.Apply). The command
// wires it to package pipeline and package reply; it must be safe for
// concurrent use.
type Analyzer func(ctx context.Context, s *series.Series, h *botcmd.History) (*Result, error)

// Commander answers the command mails the daemon resolved and trusts
// (botcmd.Handler).
type Commander interface {
	Handle(ctx context.Context, j *botcmd.Job) (*botcmd.Result, error)
}

// Options configure a Daemon: its keys of the `watch:` section of the
// configuration (mapstructure tags; config.yaml documents every key and
// its default; WatchOptions is the whole section), plus what the caller
// wires in. Unset counts and durations get their defaults in New.
type Options struct {
	// From is the bot's own address: its mail is never answered. The
	// caller derives it from watch.from or reply.from.
	From string `mapstructure:"-"`
	// Bots are sender patterns never answered ("lkp@intel.com",
	// "*bot*@*", "syzbot*"): '*' matches any run of characters.
	Bots []string `mapstructure:"bots"`
	// SeriesWait is how long an incomplete series is held before it is
	// processed as it is (default 30m).
	SeriesWait time.Duration `mapstructure:"series_wait"`
	// Workers bounds concurrent analyses (default 2).
	Workers int `mapstructure:"workers"`
	// MaxAttempts bounds analyses of one series across crashes (default 3):
	// a series that keeps killing the daemon is marked failed.
	MaxAttempts int `mapstructure:"-"`
	// Assemble tunes series assembly.
	Assemble series.Options `mapstructure:"-"`
	// Parser parses messages (its limits bound hostile input).
	Parser *mail.Parser `mapstructure:"-"`
	// MaxMessageSize skips bigger messages (default 10 MiB).
	MaxMessageSize int64 `mapstructure:"max_message_size"`
	// MaxReplies caps the replies recorded for one series (0: no cap): the
	// Analyzer folds per-patch replies into the series reply beyond its
	// own cap, and anything over this is dropped and logged, so a huge
	// series cannot flood the outbox. The caller derives it from the
	// reply section.
	MaxReplies int `mapstructure:"-"`
	// HealthGrace is how long IMAP, SMTP (when sending) or the store may
	// fail before /healthz reports 503 (default 5m).
	HealthGrace time.Duration `mapstructure:"health_grace"`
	// Commands configure "#autosel" commands by mail: who may give them
	// on which list.
	Commands CommandOptions `mapstructure:"commands"`
	// Commander answers commands; nil: command mails are not read (they
	// are skipped as mail without a patch).
	Commander Commander `mapstructure:"-"`
	// Web serves the read-only pages (package web) on the metrics
	// address, beside /metrics and /healthz; nil: none.
	Web http.Handler `mapstructure:"-"`
	// Lists name the list of the mail read from each mailbox
	// (watch.lists): the list a series or command belongs to, for
	// watch.allow.lists and commands.trust, is where it was read.
	Lists []ListOrigin `mapstructure:"lists"`
	// StableList is the stable list address: a reply may go to it besides
	// the series' own correspondents. The caller derives it from the
	// reply section.
	StableList string `mapstructure:"-"`
	// TrailerRecipients lets a reply go to the people of the series'
	// trailers (reply.Options.TrailerRecipients, which adds them).
	TrailerRecipients bool `mapstructure:"-"`
}

// Daemon is the watch loop's state.
type Daemon struct {
	opts    Options
	st      *store.Store
	dl      *deliver.Deliverer
	analyze Analyzer
	log     *slog.Logger
	m       *Metrics

	mu       sync.Mutex
	pool     map[string]*pooled
	inflight map[string]bool
	jobs     sync.WaitGroup
	health   health

	work    chan *job
	trigger chan struct{}
	kick    chan struct{}
	// cmdKick wakes the command worker: a command mail arrived, or a
	// series it may wait for was processed.
	cmdKick chan struct{}
	// cmdMu makes command passes one at a time.
	cmdMu sync.Mutex
	// passMu makes scheduling passes one at a time: a pass checks that no
	// message of a series is in flight (inflight: the Message-IDs workers
	// have), decides, and marks them in flight in three steps.
	passMu sync.Mutex
}

// pooled is a held patch message.
type pooled struct {
	msg      *mail.Message
	received time.Time
}

// job is one series handed to a worker.
type job struct {
	s   *series.Series
	key string
	ids []string
}

// New returns a Daemon; call Load before feeding it messages.
func New(st *store.Store, dl *deliver.Deliverer, analyze Analyzer, opts Options, log *slog.Logger) (*Daemon, error) {
	if analyze == nil {
		return nil, errors.New("daemon: no analyzer")
	}
	opts = opts.withDefaults()
	if opts.Parser == nil {
		opts.Parser = &mail.Parser{MaxBodySize: opts.MaxMessageSize}
	}
	d := &Daemon{
		opts: opts, st: st, dl: dl, analyze: analyze, log: log,
		m:        NewMetrics(),
		pool:     map[string]*pooled{},
		inflight: map[string]bool{},
		trigger:  make(chan struct{}, 1),
		kick:     make(chan struct{}, 1),
		cmdKick:  make(chan struct{}, 1),
	}
	if dl != nil {
		dl.OnState = func(state string) { d.m.replies.WithLabelValues(state).Inc() }
	}
	return d, nil
}

// Metrics returns the daemon's metrics.
func (d *Daemon) Metrics() *Metrics { return d.m }

// Load puts the messages held by a previous run back in the pool.
func (d *Daemon) Load(ctx context.Context) error {
	msgs, err := d.st.PendingMessages(ctx)
	if err != nil {
		return err
	}
	for _, sm := range msgs {
		msg, err := d.opts.Parser.Parse(strings.NewReader(string(sm.Raw)))
		if err != nil {
			d.log.Warn("held message no longer parses; skipped", "message_id", sm.MessageID, "err", err)
			if err := d.st.SetMessageStatus(ctx, store.StatusMalformed, err.Error(), "", sm.MessageID); err != nil {
				return err
			}
			continue
		}
		msg.MessageID = sm.MessageID
		d.pool[sm.MessageID] = &pooled{msg: msg, received: sm.Received}
	}
	d.m.pool.Set(float64(len(d.pool)))
	if len(msgs) > 0 {
		d.log.Info("resumed held messages", "count", len(d.pool))
	}
	return nil
}

func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// worker runs jobs until the channel closes.
func (d *Daemon) worker(ctx context.Context, work <-chan *job) {
	for j := range work {
		d.process(ctx, j)
		d.jobs.Done()
	}
}

// process analyses one series and records the outcome. Its messages stay
// in flight until the outcome is committed (and they left the pool), so
// that no scheduling pass decides on them meanwhile.
func (d *Daemon) process(ctx context.Context, j *job) {
	defer d.release(j.ids)
	log := d.log.With("series", j.key, "title", j.s.Title)
	rec := &store.Series{
		Key: j.key, SeriesID: j.s.ID, Version: j.s.Version, Title: j.s.Title,
		Author: j.s.Author.Addr, Total: j.s.Total, Incomplete: j.s.Incomplete, Titles: titles(j.s),
	}
	h, err := d.history(ctx, rec)
	if err != nil {
		log.Error("store", "err", err)
		return
	}
	attempts, err := d.st.BeginSeries(ctx, rec)
	if err != nil {
		log.Error("store", "err", err)
		return
	}
	var res *Result
	if attempts > d.opts.MaxAttempts {
		err = fmt.Errorf("gave up after %d attempts (the analysis kept failing or crashing)", attempts-1)
	} else {
		start := time.Now()
		res, err = d.safeAnalyze(ctx, j.s, h)
		d.m.analysis.Observe(time.Since(start).Seconds())
		if ctx.Err() != nil {
			// Shutting down: leave the series "processing" for the next run.
			return
		}
	}
	if err != nil {
		log.Error("series analysis failed", "messages", j.ids, "err", err)
		if err := d.st.FinishSeries(ctx, j.key, store.SeriesFailed, err.Error(), "", j.ids, nil); err != nil {
			log.Error("store", "err", err)
			return
		}
		d.m.series.WithLabelValues(store.SeriesFailed).Inc()
		d.drop(j.ids)
		return
	}
	if max := d.opts.MaxReplies; max > 0 && len(res.Replies) > max {
		log.Warn("too many replies for one series; extra replies dropped", "replies", len(res.Replies), "cap", max)
		res.Replies = res.Replies[:max]
	}
	origin := d.origin(ctx, j.ids)
	// The list is where the series was read, not what its headers say.
	list, author := d.listOfOrigin(origin), strings.ToLower(j.s.Author.Addr)
	// A reply goes only to the series' own correspondents and authors,
	// its list and the stable list (to the people of its trailers only
	// where the reply options add them).
	thread := threadAddrs(j.s, d.opts.TrailerRecipients, list, d.opts.StableList)
	var replies []*store.Reply
	for _, r := range res.Replies {
		if r.MessageID == "" {
			log.Error("analyzer returned a reply without Message-ID; dropped")
			continue
		}
		raw, dropped, err := restrictRecipients(r.Raw, thread)
		if err != nil {
			log.Error("reply with unreadable recipients; dropped", "message_id", r.MessageID, "err", err)
			continue
		}
		if len(dropped) > 0 {
			log.Info("reply recipients outside the thread dropped", "message_id", r.MessageID, "dropped", len(dropped), "first_dropped", dropped[:min(5, len(dropped))])
		}
		path, err := d.dl.Outbox().Write(r.MessageID, raw)
		if err != nil {
			log.Error("outbox", "err", err)
			return
		}
		replies = append(replies, &store.Reply{
			MessageID: r.MessageID, InReplyTo: r.InReplyTo, Path: path,
			List: list, Author: author,
			Origin: origin, DryRun: !d.dl.Sending(),
		})
	}
	if err := d.st.FinishSeries(ctx, j.key, store.SeriesDone, "", string(res.Report), j.ids, replies); err != nil {
		log.Error("store", "err", err)
		return
	}
	log.Info("series processed", "patches", len(j.s.Patches), "incomplete", j.s.Incomplete, "replies", len(replies), "previous", h.PrevKey)
	d.m.series.WithLabelValues(store.SeriesDone).Inc()
	d.drop(j.ids)
	if len(replies) > 0 {
		poke(d.kick)
	}
	poke(d.cmdKick) // commands may wait for this series
}

// history finds the previous version of the series analysed (same
// author, a shared title, a lower version), sets rec's lineage from it,
// and returns what the Analyzer reports the series against.
func (d *Daemon) history(ctx context.Context, rec *store.Series) (*botcmd.History, error) {
	h := &botcmd.History{Lineage: rec.Key}
	prev, err := d.st.PreviousVersion(ctx, rec.Author, rec.Titles, rec.Version, rec.Key)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	default:
		h.PrevKey, h.PrevReport = prev.Key, []byte(prev.Report)
		h.Lineage = prev.Lineage
		if h.Lineage == "" {
			h.Lineage = prev.Key
		}
	}
	rec.Lineage, rec.PrevKey = h.Lineage, h.PrevKey
	if h.Ignored, err = d.st.Ignores(ctx, h.Lineage); err != nil {
		return nil, err
	}
	return h, nil
}

// titles are the normalised titles of a series' cover letter and
// patches, which link a later version by the same author to it.
func titles(s *series.Series) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		t = strings.TrimRight(strings.ToLower(strings.Join(strings.Fields(t), " ")), ". ")
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if s.Cover != nil {
		add(s.Cover.Subject.Title)
	}
	for _, p := range s.Patches {
		if p.Msg != nil {
			add(p.Msg.Subject.Title)
		}
	}
	return out
}

// safeAnalyze runs the analyzer, turning a panic (hostile input reaching a
// bug) into an error so the daemon keeps running.
func (d *Daemon) safeAnalyze(ctx context.Context, s *series.Series, h *botcmd.History) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("analysis panicked: %v\n%s", p, debug.Stack())
		}
	}()
	res, err = d.analyze(ctx, s, h)
	if err == nil && res == nil {
		res = &Result{}
	}
	return res, err
}

// drop removes messages from the pool.
func (d *Daemon) drop(ids []string) {
	d.mu.Lock()
	for _, id := range ids {
		delete(d.pool, id)
	}
	n := len(d.pool)
	d.mu.Unlock()
	d.m.pool.Set(float64(n))
}

// origin names where a series came from, for rate limits: "source/mailbox"
// of the first of its messages the store knows (the IMAP server and
// mailbox, or the replayed archive) — facts the sender does not choose.
func (d *Daemon) origin(ctx context.Context, ids []string) string {
	for _, id := range ids {
		m, err := d.st.GetMessage(ctx, id)
		if err != nil {
			continue
		}
		return m.Source + "/" + m.Mailbox
	}
	return ""
}

// Key identifies a series version in the store.
func Key(s *series.Series) string {
	return fmt.Sprintf("%s#v%d", s.ID, s.Version)
}
