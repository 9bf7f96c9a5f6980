package daemon

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"

	"github.com/autosel-bot/autosel-bot/botcmd"
	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/imapsrc"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// outcome is what a run leaves behind: the store's counts and the
// outbox (file name -> reply text without its Date header).
type outcome struct {
	Messages, Series, Replies map[string]int
	Outbox                    map[string]string
}

// outcomeOf reads the outcome of a run from its store and outbox.
func outcomeOf(t testing.TB, st *store.Store, outbox string) outcome {
	t.Helper()
	ctx := context.Background()
	var o outcome
	var err error
	if o.Messages, err = st.CountMessages(ctx); err != nil {
		t.Fatal(err)
	}
	if o.Series, err = st.CountSeries(ctx); err != nil {
		t.Fatal(err)
	}
	if o.Replies, err = st.CountReplies(ctx); err != nil {
		t.Fatal(err)
	}
	o.Outbox = map[string]string{}
	for _, sub := range []string{"new", "cur"} {
		ents, _ := os.ReadDir(filepath.Join(outbox, sub))
		for _, e := range ents {
			raw, err := os.ReadFile(filepath.Join(outbox, sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			head, body := splitHeader(raw)
			var kept []string
			for _, line := range strings.Split(string(head), "\n") {
				if !strings.HasPrefix(strings.ToLower(line), "date:") {
					kept = append(kept, line)
				}
			}
			o.Outbox[sub+"/"+e.Name()] = strings.Join(kept, "\n") + string(body)
		}
	}
	return o
}

// String summarises an outcome's counts.
func (o outcome) String() string {
	return fmt.Sprintf("messages %v, series %v, replies %v, %d outbox files", o.Messages, o.Series, o.Replies, len(o.Outbox))
}

// diff describes how o differs from want (empty if it does not).
func (o outcome) diff(want outcome) string {
	var d []string
	for _, c := range []struct {
		what      string
		got, want map[string]int
	}{{"messages", o.Messages, want.Messages}, {"series", o.Series, want.Series}, {"replies", o.Replies, want.Replies}} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			d = append(d, fmt.Sprintf("%s %v, want %v", c.what, c.got, c.want))
		}
	}
	if want.Outbox == nil {
		return strings.Join(d, "; ")
	}
	var names []string
	for name := range o.Outbox {
		names = append(names, name)
	}
	for name := range want.Outbox {
		if _, ok := o.Outbox[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	bad := 0
	for _, name := range names {
		got, ok1 := o.Outbox[name]
		exp, ok2 := want.Outbox[name]
		switch {
		case !ok1:
			d = append(d, "outbox lacks "+name)
		case !ok2:
			d = append(d, "outbox has an extra "+name)
		case got != exp:
			d = append(d, "outbox "+name+" differs")
		default:
			continue
		}
		if bad++; bad == 5 {
			d = append(d, "...")
			break
		}
	}
	return strings.Join(d, "; ")
}

// scaled is o's counts times k plus p's (the outbox is left out).
func (o outcome) scaled(k int, p outcome) outcome {
	sum := func(a, b map[string]int) map[string]int {
		out := map[string]int{}
		for s, n := range a {
			out[s] += k * n
		}
		for s, n := range b {
			out[s] += n
		}
		return out
	}
	return outcome{Messages: sum(o.Messages, p.Messages), Series: sum(o.Series, p.Series), Replies: sum(o.Replies, p.Replies)}
}

// replayRun replays mbox into a fresh state and outbox with the given
// worker pool size (0: the default) and the real analyzer.
func replayRun(t *testing.T, mbox string, workers int, an Analyzer) (outcome, time.Duration) {
	t.Helper()
	e := newEnv(t, Options{Workers: workers}, deliver.Options{}, nil, nil)
	// Thousands of messages: the daemon's warnings only, and not on -v's
	// stderr (the log is shown if the test fails).
	e.d.log = slog.New(slog.NewTextHandler(e.logBuf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e.an.real = an
	e.out.Sync = false // dry-run, as replay runs by default
	start := time.Now()
	st, err := e.d.Replay(context.Background(), []string{mbox})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	o := outcomeOf(t, e.st, e.out.Dir)
	if fmt.Sprint(st.Messages) != fmt.Sprint(o.Messages) || fmt.Sprint(st.Replies) != fmt.Sprint(o.Replies) {
		t.Fatalf("replay reported %v %v, the store holds %v", st.Messages, st.Replies, o)
	}
	return o, took
}

// TestReplayDeterministic replays copies of the seed threads (fresh
// Message-IDs) into fresh state, repeatedly, with the worker pool at its
// default size and at 1: every run ends with the same counts and the same
// outbox, and the counts are those of the seeds replayed one copy at a
// time (no part is late, every held message is decided). 5,000 messages
// run scheduling passes at 2,000 and 4,000 while the input is still read;
// 4,000 (and 2,000) messages also run the final pass right after one that
// handed out series still in analysis (the case that marked finished
// series late). -short runs 2,000 messages twice per pool size; under
// -race (about 15 times slower) 2,000 messages once per pool size.
func TestReplayDeterministic(t *testing.T) {
	sizes := []struct{ n, reps int }{{5000, 10}, {4000, 3}}
	switch {
	case raceEnabled:
		sizes = []struct{ n, reps int }{{2000, 1}}
	case testing.Short():
		sizes = []struct{ n, reps int }{{2000, 2}}
	}
	an, err := realAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	seeds := seedMessages(t)
	for _, size := range sizes {
		t.Run(fmt.Sprint(size.n), func(t *testing.T) {
			replayDeterministic(t, an, len(seeds), size.n, size.reps)
		})
	}
}

// replayDeterministic replays n copied seed messages reps times per pool
// size and compares every outcome with the reference and the first run.
func replayDeterministic(t *testing.T, an Analyzer, nseeds, n, reps int) {
	dir := t.TempDir()
	raws := seedCopies(t, n)
	mbox := writeMboxrd(t, filepath.Join(dir, "copies.mbox"), raws)

	// The reference: one copy of the seeds, and the cut last copy, each
	// replayed alone (one scheduling pass, nothing else in flight).
	one, _ := replayRun(t, writeMboxrd(t, filepath.Join(dir, "one.mbox"), raws[:nseeds]), 1, an)
	var rest outcome
	if k := n % nseeds; k > 0 {
		rest, _ = replayRun(t, writeMboxrd(t, filepath.Join(dir, "rest.mbox"), raws[n-k:]), 1, an)
	}
	want := one.scaled(n/nseeds, rest)
	if want.Messages[store.StatusDone] == 0 || want.Replies[store.ReplyDryRun] == 0 ||
		want.Messages[store.StatusLate] != 0 || want.Messages[store.StatusPending] != 0 {
		t.Fatalf("the seeds replayed alone give %v: want done parts and replies, nothing late or held", one)
	}
	t.Logf("want %v", want)

	var first *outcome
	for _, workers := range []int{0, 1} {
		for i := 0; i < reps; i++ {
			o, took := replayRun(t, mbox, workers, an)
			t.Logf("workers=%d run %d: %v in %v", workers, i, o, took.Round(time.Millisecond))
			if d := o.diff(want); d != "" {
				t.Fatalf("workers=%d run %d: %s", workers, i, d)
			}
			if len(o.Outbox) != want.Replies[store.ReplyDryRun] {
				t.Fatalf("workers=%d run %d: %d outbox files for %v", workers, i, len(o.Outbox), o.Replies)
			}
			if first == nil {
				first = &o
				continue
			}
			if d := o.diff(*first); d != "" {
				t.Fatalf("workers=%d run %d differs from the first run: %s", workers, i, d)
			}
		}
	}
}

// mailServer is an IMAP account the watch test appends to.
type mailServer interface {
	// server is the account as the daemon follows mailbox.
	server(mailbox string) imapsrc.Server
	// append adds raw messages to mailbox (creating it).
	append(t *testing.T, mailbox string, raws ...[]byte)
}

// memServer is go-imap's in-memory server with user "list".
type memServer struct {
	addr string
	user *imapmemserver.User
}

// startMemServer serves an in-memory IMAP server (IMAP4rev1, IDLE) on
// 127.0.0.1 until the test ends.
func startMemServer(t *testing.T) *memServer {
	t.Helper()
	mem := imapmemserver.New()
	u := imapmemserver.NewUser("list", "secret")
	mem.AddUser(u)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
		},
		Caps:         imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapIdle: {}},
		InsecureAuth: true,
		Logger:       slog.NewLogLogger(slog.NewTextHandler(io.Discard, nil), slog.LevelError),
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return &memServer{addr: ln.Addr().String(), user: u}
}

func (m *memServer) server(mailbox string) imapsrc.Server {
	return testServer(m.addr, "list", mailbox)
}

func (m *memServer) append(t *testing.T, mailbox string, raws ...[]byte) {
	t.Helper()
	if err := m.user.Create(mailbox, nil); err != nil && !strings.Contains(err.Error(), "exists") {
		t.Fatal(err)
	}
	for _, raw := range raws {
		raw = bytes.ReplaceAll(bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n")), []byte("\n"), []byte("\r\n"))
		lit := imap.LiteralReader(struct {
			io.Reader
			literalSize
		}{bytes.NewReader(raw), literalSize(len(raw))})
		if _, err := m.user.Append(mailbox, lit, &imap.AppendOptions{Time: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
}

// literalSize gives a reader the Size an IMAP literal needs.
type literalSize int64

func (s literalSize) Size() int64 { return int64(s) }

// dovecotServer is the dovecot account "list".
type dovecotServer struct{ dv *dovecot }

func (d dovecotServer) server(mailbox string) imapsrc.Server {
	return testServer(d.dv.IMAPAddr, "list", mailbox)
}

func (d dovecotServer) append(t *testing.T, mailbox string, raws ...[]byte) {
	d.dv.Append("list", mailbox, raws...)
}

// overlapHandler records messages as the daemon does and counts those
// recorded while an analysis was running.
type overlapHandler struct {
	d         *Daemon
	analysing *atomic.Int32
	overlap   atomic.Int32
}

func (h *overlapHandler) Handle(ctx context.Context, m *imapsrc.Message) error {
	if h.analysing.Load() > 0 {
		h.overlap.Add(1)
	}
	return h.d.Handle(ctx, m)
}

// watchRun follows a fresh mailbox with a fresh daemon (state, outbox,
// worker pool of the given size, the real analyzer slowed down by delay)
// and appends raws to it in batches of batch messages, each batch once
// the daemon has analysed a series since the last one, so that messages
// arrive while earlier series are being analysed. When every message is
// decided and every reply delivered (dry-run) it stops the daemon and
// returns the outcome and how many messages arrived mid-analysis.
func watchRun(t *testing.T, srv mailServer, mailbox string, raws [][]byte, batch, workers int, an Analyzer, delay time.Duration) (outcome, int) {
	t.Helper()
	const wait = 2 * time.Second
	e := newEnv(t, Options{SeriesWait: wait, Workers: workers}, deliver.Options{}, nil, nil)
	e.out.Sync = false
	var analysing atomic.Int32
	started := make(chan struct{}, 1)
	e.an.real = func(ctx context.Context, s *series.Series, h *botcmd.History) (*Result, error) {
		analysing.Add(1)
		defer analysing.Add(-1)
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return an(ctx, s, h)
	}
	h := &overlapHandler{d: e.d, analysing: &analysing}
	srv.append(t, mailbox) // create it empty: the daemon starts at "now"
	w, err := imapsrc.NewWatcher([]imapsrc.Server{srv.server(mailbox)}, e.st, h, e.d.Hooks(), e.d.log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := e.d.Run(ctx, w, ""); err != nil {
			t.Errorf("daemon: %v", err)
		}
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	defer stop()
	waitFor(t, "the daemon to catch up", 20*time.Second, func() bool {
		return strings.Contains(e.logBuf.String(), "imap: caught up")
	})
	for i := 0; i < len(raws); i += batch {
		if i > 0 {
			select {
			case <-started:
			case <-time.After(30 * time.Second):
				t.Fatalf("no analysis started after %d messages", i)
			}
		}
		srv.append(t, mailbox, raws[i:min(i+batch, len(raws))]...)
	}
	bg := context.Background()
	waitFor(t, "every message decided and every reply delivered", 120*time.Second, func() bool {
		m, _ := e.st.CountMessages(bg)
		r, _ := e.st.CountReplies(bg)
		return sum(m) == len(raws) && m[store.StatusPending] == 0 && r[store.ReplyQueued] == 0 && r[store.ReplySending] == 0
	})
	stop()
	return outcomeOf(t, e.st, e.out.Dir), int(h.overlap.Load())
}

// TestWatchDeterministic: copies of the seed threads (fresh Message-IDs)
// arrive over IMAP in batches while the series of earlier batches are
// being analysed; once everything is decided the counts and the outbox
// (minus Date) are those of a replay of the same messages, every run,
// with the default pool and one worker, on go-imap's in-memory server and
// on dovecot. -short and -race run the in-memory server only, once per
// pool size.
func TestWatchDeterministic(t *testing.T) {
	n, batch, reps := 800, 80, 2
	delay := 20 * time.Millisecond
	servers := []string{"memory", "dovecot"}
	if testing.Short() || raceEnabled {
		servers, reps = servers[:1], 1
	}
	if raceEnabled {
		n, batch = 320, 32
	}
	an, err := realAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	raws := seedCopies(t, n)
	if batch%len(seedMessages(t)) != 0 {
		t.Fatalf("batch %d is not whole copies: a thread would arrive in two batches", batch)
	}
	want, _ := replayRun(t, writeMboxrd(t, filepath.Join(t.TempDir(), "copies.mbox"), raws), 0, an)
	if want.Messages[store.StatusDone] == 0 || len(want.Outbox) == 0 || want.Messages[store.StatusLate] != 0 {
		t.Fatalf("replay of the input: %v: want done parts and replies, nothing late", want)
	}
	t.Logf("replay: %v", want)
	for _, name := range servers {
		t.Run(name, func(t *testing.T) {
			var srv mailServer
			if name == "memory" {
				srv = startMemServer(t)
			} else {
				srv = dovecotServer{startDovecot(t)}
			}
			run := 0
			for _, workers := range []int{0, 1} {
				for i := 0; i < reps; i++ {
					// Arrival during an analysis is a race the test sets
					// up, not one it controls: a run in which no message
					// happened to arrive mid-analysis is checked like any
					// other and then run again, up to maxTries times.
					const maxTries = 3
					overlap := 0
					for try := 0; try < maxTries && overlap == 0; try++ {
						run++
						start := time.Now()
						var o outcome
						o, overlap = watchRun(t, srv, fmt.Sprintf("run%d", run), raws, batch, workers, an, delay)
						t.Logf("workers=%d run %d try %d: %v; %d messages arrived mid-analysis; %v", workers, i, try, o, overlap, time.Since(start).Round(time.Millisecond))
						if d := o.diff(want); d != "" {
							t.Fatalf("workers=%d run %d: %s", workers, i, d)
						}
					}
					if overlap == 0 {
						t.Errorf("workers=%d run %d: in %d tries no message arrived while a series was analysed", workers, i, maxTries)
					}
				}
			}
		})
	}
}
