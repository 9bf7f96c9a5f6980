package daemon

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/botcmd"
	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// testAnalyzer stands in for pipeline+reply in the daemon's own tests: it
// answers the first message of each series with a threaded reply whose
// Message-ID depends only on the series key, and counts its calls.
type testAnalyzer struct {
	mu    sync.Mutex
	calls map[string]int
	delay time.Duration
	panic string
	// real, when set, does the work instead (pipeline + reply).
	real Analyzer
}

func (a *testAnalyzer) analyze(ctx context.Context, s *series.Series, h *botcmd.History) (*Result, error) {
	a.mu.Lock()
	if a.calls == nil {
		a.calls = map[string]int{}
	}
	a.calls[Key(s)]++
	a.mu.Unlock()
	if a.panic != "" && strings.Contains(s.Title, a.panic) {
		panic("analyzer bug on " + s.Title)
	}
	if a.delay > 0 {
		select {
		case <-time.After(a.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if a.real != nil {
		return a.real(ctx, s, h)
	}
	first := s.Cover
	if first == nil && len(s.Patches) > 0 {
		first = s.Patches[0].Msg
	}
	if first == nil {
		return &Result{}, nil
	}
	return &Result{Report: []byte(`{"series":"` + s.ID + `"}`), Replies: []OutMail{composeTest(s, first)}}, nil
}

func composeTest(s *series.Series, m *mail.Message) OutMail {
	h := sha256.Sum256([]byte(Key(s)))
	id := "autosel-" + hex.EncodeToString(h[:8]) + "@bot.example.org"
	refs := append(append([]string{}, m.References...), m.MessageID)
	for i := range refs {
		refs[i] = "<" + refs[i] + ">"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: autosel-bot <autosel-bot@bot.example.org>\n")
	fmt.Fprintf(&b, "To: %s\n", m.From.Addr)
	fmt.Fprintf(&b, "Subject: Re: %s\n", m.Subject.Raw)
	fmt.Fprintf(&b, "Message-ID: <%s>\n", id)
	fmt.Fprintf(&b, "In-Reply-To: <%s>\n", m.MessageID)
	fmt.Fprintf(&b, "References: %s\n", strings.Join(refs, " "))
	fmt.Fprintf(&b, "Auto-Submitted: auto-generated\n")
	fmt.Fprintf(&b, "Date: %s\n\n", time.Now().Format(time.RFC1123Z))
	fmt.Fprintf(&b, "[This is an automated email]\n\nSeries %s v%d: %d patches.\n", s.Title, s.Version, len(s.Patches))
	return OutMail{MessageID: id, InReplyTo: m.MessageID, Raw: b.Bytes()}
}

func (a *testAnalyzer) count(key string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls[key]
}

// testEnv is a daemon over a temp store and outbox.
type testEnv struct {
	dir    string
	st     *store.Store
	out    *deliver.Outbox
	dl     *deliver.Deliverer
	d      *Daemon
	an     *testAnalyzer
	logBuf *syncBuffer
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newEnv(t *testing.T, opts Options, dopts deliver.Options, sender deliver.Sender, conf deliver.Confirmer) *testEnv {
	t.Helper()
	dir := t.TempDir()
	e := &testEnv{dir: dir, an: &testAnalyzer{}, logBuf: &syncBuffer{}}
	var w io.Writer = e.logBuf
	if testing.Verbose() {
		w = io.MultiWriter(e.logBuf, os.Stderr)
	}
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
	t.Cleanup(func() {
		if t.Failed() && !testing.Verbose() {
			t.Logf("daemon log:\n%s", e.logBuf.String())
		}
	})
	var err error
	if e.st, err = store.Open(context.Background(), filepath.Join(dir, "state.db")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.st.Close() })
	if e.out, err = deliver.OpenOutbox(filepath.Join(dir, "outbox")); err != nil {
		t.Fatal(err)
	}
	if dopts.From == "" {
		dopts.From = "autosel-bot@bot.example.org"
	}
	if e.dl, err = deliver.New(e.st, e.out, sender, conf, dopts, log); err != nil {
		t.Fatal(err)
	}
	if opts.From == "" {
		opts.From = "autosel-bot <autosel-bot@bot.example.org>"
	}
	if e.d, err = New(e.st, e.dl, e.an.analyze, opts, log); err != nil {
		t.Fatal(err)
	}
	return e
}

// seedMessages returns the raw messages of the bundled seed mboxes.
func seedMessages(t testing.TB) [][]byte {
	t.Helper()
	files, _ := filepath.Glob("../testdata/seeds/*.mbox")
	if len(files) == 0 {
		t.Fatal("no seed mboxes in ../testdata/seeds")
	}
	sort.Strings(files)
	var out [][]byte
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		err = mail.ReadMbox(fh, func(raw []byte, line int) error {
			out = append(out, append([]byte(nil), raw...))
			return nil
		})
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// outboxMails parses every reply in the outbox (new/ and cur/).
func outboxMails(t *testing.T, dir string) map[string]*mail.Message {
	t.Helper()
	out := map[string]*mail.Message{}
	for _, sub := range []string{"new", "cur"} {
		ents, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range ents {
			raw, err := os.ReadFile(filepath.Join(dir, sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			m, err := mail.Parse(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("outbox %s: %v", e.Name(), err)
			}
			out[m.MessageID] = m
		}
	}
	return out
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// checkThreading verifies that every reply answers a seed message with
// the right headers.
func checkThreading(t *testing.T, replies map[string]*mail.Message, seeds map[string]*mail.Message) {
	t.Helper()
	for id, r := range replies {
		orig := seeds[r.InReplyTo]
		if orig == nil {
			t.Errorf("reply %s answers unknown message %q", id, r.InReplyTo)
			continue
		}
		if want := "Re: " + orig.Subject.Raw; r.Subject.Raw != want && !strings.HasPrefix(r.Subject.Raw, "Re:") {
			t.Errorf("reply %s subject %q, want %q", id, r.Subject.Raw, want)
		}
		if !strings.Contains(r.Subject.Raw, orig.Subject.Title) {
			t.Errorf("reply %s subject %q does not carry %q", id, r.Subject.Raw, orig.Subject.Title)
		}
		if len(r.References) == 0 || r.References[len(r.References)-1] != orig.MessageID {
			t.Errorf("reply %s References %v do not end with %s", id, r.References, orig.MessageID)
		}
	}
}

func parseAll(t *testing.T, raws [][]byte) map[string]*mail.Message {
	t.Helper()
	out := map[string]*mail.Message{}
	for _, raw := range raws {
		m, err := mail.Parse(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		out[m.MessageID] = m
	}
	return out
}
