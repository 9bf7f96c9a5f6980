package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/autosel-bot/autosel-bot/botcmd"
	"github.com/autosel-bot/autosel-bot/daemon"
	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/imapsrc"
	"github.com/autosel-bot/autosel-bot/internal/netaddr"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/reply"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
	"github.com/autosel-bot/autosel-bot/web"
)

const watchLong = `Follow mailing lists over IMAP and reply to patch series.

Every configured mailbox (watch.imap) is followed with IDLE (or polling);
each new message is recorded once in the SQLite state (watch.store), keyed by
UIDVALIDITY + UID and Message-ID. Patch mail is held until its series is
complete (all n/N parts, or watch.series_wait has passed), then the series
runs once through the pipeline (analysis; stable trees and the VM suite when
enabled in their sections) and the reply is composed.

Replies are written to the outbox Maildir (watch.outbox). Nothing is sent
unless watch.send is true: then replies go out over SMTP (watch.smtp) with
retries, within the allow-list and rate limits, and each reply is sent once
even across crashes. The bot never answers itself, other bots, Auto-Submitted
mail or mail without a patch. Replies composed while sending was off
(dry-run) are never sent by a later sending run unless --send-backlog is
given.

Replies to the bot's mail (or to a patch) with lines starting "#autosel"
are commands (watch.commands): "#autosel test [tree ...]", "ignore
<finding-id> [reason]", "unignore <finding-id>", "explain <finding-id>",
"help". They are run for the senders trusted on the list, recorded in the
state, and answered once, threaded under the command; others get one
refusal a day. A new version of a series is reported against the previous
one: findings fixed, new and unchanged, and the patches changed. /metrics and /healthz are served on watch.metrics; /healthz answers
503 once IMAP, SMTP or the store has failed for watch.health_grace. The
same address serves the read-only web view (see "serve"); with
web.base_url set, replies and reviews link each finding to its page. A
restart resumes exactly where the last run stopped.

With github.repos set (token from github.token_env or github.token_file),
watch also reviews the open pull requests of those repositories: each new
head commit runs through the same pipeline and gets one review (summary and
line comments) and a check run with annotations; github.webhook adds a
receiver of signed pull_request events. Without watch.imap, only GitHub is
followed.`

// watchFlags are the watch command's flags.
type watchFlags struct {
	metrics    string
	backlog    bool
	logFormat  string
	crashAfter int
	slowDown   time.Duration
}

// newWatchCmd builds the "watch" command.
func newWatchCmd(a *app) *cobra.Command {
	var f watchFlags
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Follow mailing lists over IMAP and reply to patch series (dry-run outbox unless send is on)",
		Long:  watchLong,
		Example: `  autosel-bot watch --config /etc/autosel-bot.yaml
  AUTOSEL_BOT_WATCH_SEND=true autosel-bot watch --config lists.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWatch(cmd, a, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.metrics, "metrics", "", "address for /metrics and /healthz (default from watch.metrics; \"off\" disables)")
	fl.StringVar(&f.logFormat, "log-format", "text", "log format on stderr: text or json")
	fl.BoolVar(&f.backlog, "send-backlog", false, "also send the replies composed by earlier dry-runs (they are never sent otherwise)")
	// Fault injection for the crash tests; not for operators.
	fl.IntVar(&f.crashAfter, "debug-crash-after-send", 0, "kill -9 the process right after the Nth reply was accepted by SMTP")
	fl.DurationVar(&f.slowDown, "debug-analysis-delay", 0, "sleep this long in every analysis")
	fl.MarkHidden("debug-crash-after-send")
	fl.MarkHidden("debug-analysis-delay")
	return cmd
}

// warnLevel is the quiet level of replay's logs.
const warnLevel = slog.LevelWarn

// botLogger is the daemon's structured logger: info level (debug with -v).
func botLogger(a *app, format string) *slog.Logger {
	level := slog.LevelInfo
	if a.verbose {
		level = slog.LevelDebug
	}
	return botLoggerLevel(format, level)
}

// botLoggerLevel is a structured logger on stderr at level.
func botLoggerLevel(format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// botParts are the pieces watch and replay share.
type botParts struct {
	st    *store.Store
	out   *deliver.Outbox
	dl    *deliver.Deliverer
	d     *daemon.Daemon
	smtp  *deliver.SMTP
	pipe  *pipeline.Pipeline
	close func()
}

// newBot opens the state and outbox and wires the pipeline and replies
// into a daemon. send enables SMTP (watch.send); conf may be nil.
// With backlog (--send-backlog), replies composed by earlier dry-runs are
// sent too.
func newBot(ctx context.Context, a *app, log *slog.Logger, send, backlog bool, conf deliver.Confirmer, slowDown time.Duration) (*botParts, error) {
	w := a.cfg.Watch
	if err := w.Daemon.Commands.Validate(); err != nil {
		return nil, fmt.Errorf("watch.%w", err)
	}
	if err := a.cfg.Web.Validate(); err != nil {
		return nil, err
	}
	ropts := a.cfg.Reply
	ropts.FindingURL = findingURL(a)
	ropts.KeepLists = w.Deliver.Policy.Allow.Lists
	ropts.Commands = w.Daemon.Commands.Enabled
	ropts.Version = buildVersion()
	if w.From != "" {
		ropts.From = w.From
	}
	own := ropts.From
	st, err := store.Open(ctx, w.StorePath())
	if err != nil {
		return nil, err
	}
	out, err := deliver.OpenOutbox(w.Deliver.OutboxPath())
	if err != nil {
		st.Close()
		return nil, err
	}
	// The outbox is the durable send queue when sending; a dry-run outbox
	// skips the fsyncs.
	out.Sync = send
	b := &botParts{st: st, out: out, close: func() { st.Close() }}
	var sender deliver.Sender
	if send {
		b.smtp, err = deliver.NewSMTP(w.Deliver.SMTP)
		if err != nil {
			b.close()
			return nil, err
		}
		sender = b.smtp
	}
	// The delivery's section, with the sender, the mode and the reply
	// section's recipient caps.
	dopts := w.Deliver
	dopts.From, dopts.Send, dopts.SendBacklog = bareAddress(own), send, backlog
	dopts.Policy.MaxRecipients, dopts.Policy.StableList = ropts.MaxRecipients, ropts.StableList
	b.dl, err = deliver.New(st, out, sender, conf, dopts, log)
	if err != nil {
		b.close()
		return nil, err
	}
	if backlog && !send {
		b.close()
		return nil, fmt.Errorf("--send-backlog needs sending on (watch.send, and --send for replay)")
	}
	if _, err := b.dl.SendBacklog(ctx); err != nil {
		b.close()
		return nil, err
	}
	// The daemon's and the GitHub reviewer's workers bound the series
	// analysed at once; a series' patches go one after the other.
	p, err := newPipeline(a, a.cfg.Check.Tree, 0, nil, log)
	if err != nil {
		b.close()
		return nil, err
	}
	b.pipe = p
	analyze := func(ctx context.Context, s *series.Series, h *botcmd.History) (*daemon.Result, error) {
		if slowDown > 0 {
			select {
			case <-time.After(slowDown):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		r, err := p.Run(ctx, s)
		if err != nil {
			return nil, err
		}
		if err := botcmd.Apply(r, h); err != nil {
			log.Warn("series history", "series", daemon.Key(s), "err", err)
		}
		js, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		mails, err := reply.Compose(r, s, ropts)
		if err != nil {
			return nil, err
		}
		res := &daemon.Result{Report: js}
		for _, m := range mails {
			if len(m.Dropped) > 0 {
				log.Warn("reply recipients over reply.max_recipients dropped", "series", daemon.Key(s), "message_id", m.MessageID,
					"cap", ropts.MaxRecipients, "dropped", len(m.Dropped), "first_dropped", m.Dropped[:min(5, len(m.Dropped))])
			}
			res.Replies = append(res.Replies, daemon.OutMail{MessageID: m.MessageID, InReplyTo: m.InReplyTo, Raw: m.Bytes()})
		}
		return res, nil
	}
	maxReplies := 0
	if ropts.MaxPatchReplies > 0 {
		maxReplies = ropts.MaxPatchReplies + 1
	}
	o := w.Daemon
	o.From, o.MaxReplies, o.StableList = own, maxReplies, ropts.StableList
	o.TrailerRecipients = ropts.TrailerRecipients
	if o.Web, err = web.New(st, log); err != nil {
		b.close()
		return nil, err
	}
	if o.Commands.Enabled {
		c, err := newCommander(a, p, ropts, log, slowDown)
		if err != nil {
			b.close()
			return nil, err
		}
		o.Commander = c
	}
	b.d, err = daemon.New(st, b.dl, analyze, o, log)
	if err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

// findingURL links findings to their web pages when web.base_url is
// set, else nil.
func findingURL(a *app) func(id string) string {
	if a.cfg.Web.BaseURL == "" {
		return nil
	}
	return a.cfg.Web.FindingURL
}

// bareAddress returns the address of "Name <addr>".
func bareAddress(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '<' {
			s = s[i+1:]
			if j := len(s) - 1; j >= 0 && s[j] == '>' {
				s = s[:j]
			}
			break
		}
	}
	return s
}

// imapServers converts the configured servers.
func imapServers(cfg []imapsrc.ServerOptions, maxSize int64) ([]imapsrc.Server, error) {
	var out []imapsrc.Server
	for _, c := range cfg {
		s, err := c.Server(maxSize)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func runWatch(cmd *cobra.Command, a *app, f watchFlags) error {
	w := a.cfg.Watch
	if err := w.Validate(); err != nil {
		return &exitError{2, err}
	}
	if len(w.IMAP) == 0 && len(a.cfg.GitHub.Repos) == 0 {
		return &exitError{2, fmt.Errorf("watch: no IMAP server (watch.imap) or GitHub repository (github.repos) configured")}
	}
	log := botLogger(a, f.logFormat)
	servers, err := imapServers(w.IMAP, w.Daemon.MaxMessageSize)
	if err != nil {
		return &exitError{2, err}
	}
	// Interrupted sends are looked up in the watched mailboxes (the bot's
	// replies come back through the list) and the confirm mailboxes.
	confServers := append([]imapsrc.Server(nil), servers...)
	if len(w.Deliver.ConfirmMailboxes) > 0 {
		extra := servers[0]
		extra.Mailboxes = w.Deliver.ConfirmMailboxes
		confServers = append(confServers, extra)
	}
	var finder deliver.Confirmer
	if len(confServers) > 0 {
		f, err := imapsrc.NewFinder(confServers)
		if err != nil {
			return &exitError{2, err}
		}
		finder = f
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b, err := newBot(ctx, a, log, w.Deliver.Send, f.backlog, finder, f.slowDown)
	if err != nil {
		return &exitError{2, err}
	}
	defer b.close()
	if f.crashAfter > 0 && b.smtp != nil {
		var n atomic.Int32
		b.smtp.AfterAccept = func() {
			if int(n.Add(1)) == f.crashAfter {
				log.Warn("debug: crashing right after the SMTP server accepted a reply")
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
	}
	for _, c := range a.collectors {
		if err := b.d.Register(c); err != nil {
			return &exitError{2, fmt.Errorf("metrics: %w", err)}
		}
	}
	ghRun, err := githubWatch(a, b.st, b.pipe, b.d.Register, log)
	if err != nil {
		return &exitError{2, err}
	}
	for _, s := range servers {
		for _, mb := range s.Mailboxes {
			if !strings.ContainsAny(mb, "*%") { // a LIST pattern names no mailbox yet
				b.d.Metrics().InitMailbox(s.Name, mb)
			}
		}
	}
	var watcher *imapsrc.Watcher
	if len(servers) > 0 {
		if watcher, err = imapsrc.NewWatcher(servers, b.st, b.d, b.d.Hooks(), log); err != nil {
			return &exitError{2, err}
		}
	}
	addr := w.Metrics
	if f.metrics != "" {
		addr = f.metrics
	}
	if addr == "off" {
		addr = ""
	}
	if addr != "" && !netaddr.IsLoopback(addr) {
		log.Warn("metrics and health are served on a non-loopback address", "addr", addr)
	}
	mode := "dry-run: replies stay in the outbox"
	if w.Deliver.Send {
		mode = "sending over SMTP " + w.Deliver.SMTP.Addr
	}
	log.Info("watch starting", "store", w.StorePath(), "outbox", w.Deliver.OutboxPath(), "mode", mode)
	err = runAlongside(ctx, ghRun, func(ctx context.Context) error {
		if watcher == nil { // GitHub only
			return serveMetrics(ctx, addr, b.d.HTTPHandler(), log)
		}
		return b.d.Run(ctx, watcher, addr)
	})
	if err != nil {
		return &exitError{2, err}
	}
	log.Info("watch stopped")
	return nil
}
