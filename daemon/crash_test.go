package daemon

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/store"
)

// built is cmd/autosel-bot built once for the package's tests (buildBot),
// in a directory TestMain removes.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildBot builds cmd/autosel-bot, once for the package (every test runs
// the same binary), and returns its path.
func buildBot(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "autosel-daemon-bot"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "autosel-bot")
		if out, err := exec.Command("go", "build", "-o", built.bin, "../cmd/autosel-bot").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// botProc is the real binary running "watch".
type botProc struct {
	cmd  *exec.Cmd
	log  *syncBuffer
	done chan struct{}
}

func startBot(t *testing.T, bin, cfg string, extra ...string) *botProc {
	t.Helper()
	p := &botProc{log: &syncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"watch", "--config", cfg, "-v"}, extra...)...)
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.kill(); <-p.done })
	return p
}

func (p *botProc) kill() { p.cmd.Process.Signal(syscall.SIGKILL) }

func (p *botProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// TestCrashExactlyOnce runs the real binary with sending on, through
// postfix into the watched dovecot mailbox, and kills it with SIGKILL
// twice: once right after the SMTP server accepted a reply (before the
// state records it), once in the middle of a series' analysis. After a
// clean restart every message is recorded once, every series is done, and
// every reply is in the mailbox exactly once.
func TestCrashExactlyOnce(t *testing.T) {
	// Mostly waiting (mail servers, the bot's polls): alongside the others.
	t.Parallel()
	need(t, "go")
	dv := startDovecot(t)
	smtpAddr := startPostfix(t, dv.LMTPAddr, "list@localhost")
	dir := t.TempDir()
	bin := buildBot(t)
	state := filepath.Join(dir, "state.db")
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`watch:
  imap:
    - name: test
      addr: %s
      tls: plain
      username: list
      password: secret
      mailboxes: [INBOX]
      start: now
      idle: true
      poll_interval: 2s
      backoff_min: 100ms
      backoff_max: 1s
  store: %s
  outbox: %s
  send: true
  smtp:
    addr: %s
    tls: plain
    redirect_to: list@localhost
  retry:
    backoff: 200ms
  confirm_wait: 3s
  series_wait: 2s
  workers: 2
  metrics: 127.0.0.1:%d
`, dv.IMAPAddr, state, filepath.Join(dir, "outbox"), smtpAddr, freePort(t))), 0o644)

	// Run 1: crash right after the first reply is accepted by postfix.
	p1 := startBot(t, bin, cfg, "--debug-crash-after-send", "1", "--debug-analysis-delay", "500ms")
	waitFor(t, "run 1 to catch up", 30*time.Second, func() bool { return strings.Contains(p1.log.String(), "imap: caught up") })
	seeds := seedMessages(t)
	dv.Append("list", "INBOX", seeds...)
	waitFor(t, "run 1 to crash after a send", 60*time.Second, p1.exited)
	if !strings.Contains(p1.log.String(), "crashing right after the SMTP server accepted") {
		t.Fatalf("run 1 ended without the injected crash:\n%s", p1.log.String())
	}
	if ws, ok := p1.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("run 1 exit: %v, want SIGKILL", p1.cmd.ProcessState)
	}

	// Run 2: killed while a series is being analysed.
	p2 := startBot(t, bin, cfg, "--debug-analysis-delay", "3s")
	waitFor(t, "run 2 to start a series", 30*time.Second, func() bool {
		return strings.Contains(p2.log.String(), "imap: caught up") && countOpenSeries(t, state) > 0
	})
	p2.kill()
	<-p2.done

	// Run 3: runs to the end.
	p3 := startBot(t, bin, cfg)
	ctx := context.Background()
	var st *store.Store
	waitFor(t, "run 3 to process and send everything", 90*time.Second, func() bool {
		s, err := store.Open(ctx, state)
		if err != nil {
			return false
		}
		defer s.Close()
		ser, _ := s.CountSeries(ctx)
		rep, _ := s.CountReplies(ctx)
		msgs, _ := s.CountMessages(ctx)
		// Done when every series is, every reply is out, and the bot has
		// seen its replies come back through the list.
		return ser[store.SeriesProcessing] == 0 && ser[store.SeriesDone] >= 4 && len(rep) > 0 &&
			rep[store.ReplyQueued]+rep[store.ReplySending] == 0 &&
			sum(msgs) >= len(seeds)+sum(rep)
	})
	p3.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p3.done:
	case <-time.After(20 * time.Second):
		t.Fatal("run 3 does not stop on SIGTERM")
	}
	st, err := store.Open(ctx, state)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	msgs, _ := st.CountMessages(ctx)
	for _, raw := range seeds {
		m, err := mail.Parse(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := st.GetMessage(ctx, m.MessageID)
		if err != nil {
			t.Errorf("seed %s not recorded: %v", m.MessageID, err)
		} else if rec.Status == store.StatusPending {
			t.Errorf("seed %s still pending", m.MessageID)
		}
	}
	rs, _ := st.Replies(ctx, store.ReplySent, store.ReplyQueued, store.ReplySending, store.ReplyFailed, store.ReplyUnconfirmed, store.ReplyHeld)
	if len(rs) == 0 {
		t.Fatal("no replies composed")
	}
	want := map[string]bool{}
	for _, r := range rs {
		if r.State != store.ReplySent {
			t.Errorf("reply %s: %s (%s)", r.MessageID, r.State, r.LastError)
		}
		want[r.MessageID] = true
	}
	// The reply interrupted by the crash was settled by finding it on the
	// receiving side, not by sending it again.
	settled := 0
	for _, r := range rs {
		if strings.Contains(r.LastError, "receiving side") {
			settled++
		}
	}
	if settled == 0 {
		t.Errorf("no reply was confirmed on the receiving side after the crash")
	}
	counts := map[string]int{}
	var got = map[string]*mail.Message{}
	for _, raw := range dv.Fetch("list", "INBOX") {
		m, err := mail.Parse(bytes.NewReader(raw))
		if err != nil || !want[m.MessageID] {
			continue
		}
		counts[m.MessageID]++
		got[m.MessageID] = m
	}
	for id := range want {
		if counts[id] != 1 {
			t.Errorf("reply %s is in the mailbox %d times, want exactly 1", id, counts[id])
		}
	}
	checkThreading(t, got, parseAll(t, seeds))
	total := 0
	for _, v := range msgs {
		total += v
	}
	// Seeds plus the bot's own replies coming back through the list.
	if total != len(seeds)+len(want) {
		t.Errorf("%d messages recorded, want %d seeds + %d own replies: %v", total, len(seeds), len(want), msgs)
	}
	ser, _ := st.CountSeries(ctx)
	t.Logf("messages %v, series %v, replies %d (all sent once)", msgs, ser, len(want))
	if t.Failed() {
		t.Logf("run 1:\n%s\nrun 2:\n%s\nrun 3:\n%s", p1.log.String(), p2.log.String(), p3.log.String())
	}
}

var storeMu sync.Mutex

// countOpenSeries counts series in state "processing" (read-only peek at
// the running daemon's state).
func countOpenSeries(t *testing.T, path string) int {
	storeMu.Lock()
	defer storeMu.Unlock()
	s, err := store.Open(context.Background(), path)
	if err != nil {
		return 0
	}
	defer s.Close()
	c, _ := s.CountSeries(context.Background())
	return c[store.SeriesProcessing]
}
