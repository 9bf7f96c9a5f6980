package imapsrc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"

	"github.com/autosel-bot/autosel-bot/store"
)

// staleSession behaves like Dovecot towards a session whose selected
// mailbox was deleted and re-created: the selected view stays frozen (no
// new messages, no BYE) and STATUS on the selected mailbox answers from
// that view.
type staleSession struct {
	imapserver.Session
	mu       sync.Mutex
	selected string
	validity uint32
}

func (s *staleSession) Select(name string, options *imap.SelectOptions) (*imap.SelectData, error) {
	data, err := s.Session.Select(name, options)
	if err == nil {
		s.mu.Lock()
		s.selected, s.validity = name, data.UIDValidity
		s.mu.Unlock()
	}
	return data, err
}

func (s *staleSession) Status(name string, options *imap.StatusOptions) (*imap.StatusData, error) {
	data, err := s.Session.Status(name, options)
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == s.selected {
		if err != nil {
			data, err = &imap.StatusData{Mailbox: name}, nil
		}
		if options.UIDValidity {
			data.UIDValidity = s.validity
		}
	}
	return data, err
}

// recorder is a Handler that advances the cursor like store.RecordMessage.
type recorder struct {
	st  *store.Store
	mu  sync.Mutex
	got []string // validity/uid/message-id
}

func (r *recorder) Handle(ctx context.Context, m *Message) error {
	cur, err := r.st.Cursor(ctx, m.Source, m.Mailbox)
	if err != nil {
		return err
	}
	cur.UIDValidity, cur.LastUID = m.UIDValidity, m.UID
	if err := r.st.SetCursor(ctx, m.Source, m.Mailbox, cur); err != nil {
		return err
	}
	r.mu.Lock()
	r.got = append(r.got, fmt.Sprintf("%d/%d/%s", m.UIDValidity, m.UID, m.MessageID))
	r.mu.Unlock()
	return nil
}

func appendMsg(t *testing.T, u *imapmemserver.User, mbox string, n int) {
	t.Helper()
	raw := fmt.Sprintf("From: a@example.org\r\nSubject: m%d\r\nMessage-ID: <m%d@test>\r\n\r\nbody %d\r\n", n, n, n)
	r := imap.LiteralReader(struct {
		io.Reader
		sizer
	}{bytes.NewReader([]byte(raw)), sizer(len(raw))})
	if _, err := u.Append(mbox, r, &imap.AppendOptions{Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

type sizer int64

func (s sizer) Size() int64 { return int64(s) }

// TestWatchRecreatedMailbox: the watched mailbox is deleted and re-created
// while selected, on a server that keeps the old view frozen and answers
// STATUS from it (as Dovecot does); the watcher still notices the new
// UIDVALIDITY within a poll interval and rescans.
func TestWatchRecreatedMailbox(t *testing.T) {
	for _, noIdle := range []bool{false, true} {
		t.Run(fmt.Sprintf("noidle=%v", noIdle), func(t *testing.T) {
			mem := imapmemserver.New()
			u := imapmemserver.NewUser("list", "secret")
			mem.AddUser(u)
			if err := u.Create("lkml", nil); err != nil {
				t.Fatal(err)
			}
			appendMsg(t, u, "lkml", 1)
			srv := imapserver.New(&imapserver.Options{
				NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
					return &staleSession{Session: mem.NewSession()}, nil, nil
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

			ctx, cancel := context.WithCancel(context.Background())
			st, err := store.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			rec := &recorder{st: st}
			var logs bytes.Buffer
			var logMu sync.Mutex
			log := slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
			w, err := NewWatcher([]Server{{
				Name: "test", Addr: ln.Addr().String(), TLS: "plain", Username: "list", Password: "secret",
				Mailboxes: []string{"lkml"}, NoIdle: noIdle, PollInterval: 200 * time.Millisecond,
				BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
			}}, st, rec, Hooks{}, log)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { defer close(done); w.Run(ctx) }()
			t.Cleanup(func() {
				cancel()
				<-done
				if t.Failed() {
					logMu.Lock()
					t.Logf("watcher log:\n%s", logs.String())
					logMu.Unlock()
				}
			})
			cursor := func() (store.Cursor, error) { return st.Cursor(ctx, "test", "lkml") }
			wait := func(what string, cond func() bool) {
				t.Helper()
				for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
					if cond() {
						return
					}
				}
				t.Fatalf("timed out waiting for %s; handled %v", what, rec.got)
			}
			wait("the first cursor", func() bool { _, err := cursor(); return err == nil })
			before, _ := cursor()
			if before.LastUID != 1 {
				t.Fatalf("first start: cursor at UID %d, want 1 (history)", before.LastUID)
			}
			appendMsg(t, u, "lkml", 2)
			wait("the new message", func() bool { c, _ := cursor(); return c.LastUID == 2 })

			if err := u.Delete("lkml"); err != nil {
				t.Fatal(err)
			}
			if err := u.Create("lkml", nil); err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 3; i++ {
				appendMsg(t, u, "lkml", i)
			}
			wait("the rescan", func() bool {
				c, err := cursor()
				return err == nil && c.UIDValidity != before.UIDValidity && c.LastUID == 3
			})
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if n := len(rec.got); n != 4 {
				t.Errorf("handled %v, want m2 then m1..m3 of the new mailbox", rec.got)
			}
		})
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
