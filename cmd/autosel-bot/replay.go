package main

import (
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

const replayLong = `Run mbox archives (or Maildirs) through the same pipeline as watch, without
IMAP: every message is recorded in the state, patch series are assembled and
analysed once, and the replies are written to the outbox Maildir. Messages
already in the state (an earlier replay or watch) are not processed again.

Paths that cannot be read (missing, unreadable, FIFOs, devices; symbolic
links inside a Maildir) are reported on stderr and skipped; the exit status
is 2 only when nothing at all could be read.

Replay never sends mail unless --send is given and watch.send is on. Replies
composed by a dry-run (including those held back there by a rate limit) are
never sent by a later --send run unless --send-backlog is given. With no
configuration at all it uses the built-in defaults: state in
$XDG_STATE_HOME/autosel-bot/state.db (~/.local/state/...) and the outbox in
$XDG_STATE_HOME/autosel-bot/outbox; --store and --outbox override them.`

// replayFlags are the replay command's flags.
type replayFlags struct {
	store, outbox string
	send, backlog bool
	logFormat     string
}

// newReplayCmd builds the "replay" command.
func newReplayCmd(a *app) *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay MBOX|MAILDIR...",
		Short: "Run archives through the watch pipeline without IMAP (replies to the outbox)",
		Long:  replayLong,
		Example: `  autosel-bot replay testdata/seeds/*.mbox
  autosel-bot replay --store /tmp/s.db --outbox /tmp/outbox lkml-2024.mbox`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd, a, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.store, "store", "", "SQLite state file (default from watch.store)")
	fl.StringVar(&f.outbox, "outbox", "", "outbox Maildir (default from watch.outbox)")
	fl.BoolVar(&f.send, "send", false, "deliver over SMTP when watch.send is also on (default: dry-run)")
	fl.BoolVar(&f.backlog, "send-backlog", false, "with --send, also send the replies composed by earlier dry-runs (never sent otherwise)")
	fl.StringVar(&f.logFormat, "log-format", "text", "log format on stderr: text or json")
	return cmd
}

func runReplay(cmd *cobra.Command, a *app, f replayFlags, args []string) error {
	if f.store != "" {
		a.cfg.Watch.Store = f.store
	}
	if f.outbox != "" {
		a.cfg.Watch.Deliver.Outbox = f.outbox
	}
	send := f.send && a.cfg.Watch.Deliver.Send
	if send {
		if err := a.cfg.Watch.Validate(); err != nil {
			return &exitError{2, err}
		}
	}
	log := botLogger(a, f.logFormat)
	if !a.verbose {
		// Per-message logs are for the daemon; replay prints a summary.
		log = botLoggerLevel(f.logFormat, warnLevel)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b, err := newBot(ctx, a, log, send, f.backlog, nil, 0)
	if err != nil {
		return &exitError{2, err}
	}
	defer b.close()
	st, err := b.d.Replay(ctx, args)
	if err != nil {
		return &exitError{2, err}
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "replay: %d messages read, %d new (messages already in the state are not processed again)\n", st.Read, st.New)
	fmt.Fprintf(out, "messages: %s\n", counts(st.Messages))
	fmt.Fprintf(out, "series:   %s\n", counts(st.Series))
	fmt.Fprintf(out, "replies:  %s\n", counts(st.Replies))
	if len(st.Commands) > 0 {
		fmt.Fprintf(out, "commands: %s\n", counts(st.Commands))
	}
	fmt.Fprintf(out, "state:    %s\n", a.cfg.Watch.StorePath())
	mode := "dry-run, nothing sent"
	if send {
		mode = "sent over SMTP"
	}
	fmt.Fprintf(out, "outbox:   %s (%s)\n", b.out.Dir, mode)
	files, _ := b.out.List()
	for _, p := range files {
		fmt.Fprintf(out, "  %s\n", p)
	}
	for _, e := range st.InputErrors {
		fmt.Fprintf(cmd.ErrOrStderr(), "autosel-bot: replay: %v\n", e)
	}
	if st.Read == 0 && len(st.InputErrors) > 0 {
		return &exitError{2, fmt.Errorf("replay: nothing could be read (%d input errors)", len(st.InputErrors))}
	}
	return nil
}

// counts formats a status histogram ("done=3 skipped=7").
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}
