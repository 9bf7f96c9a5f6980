package deliver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/autosel-bot/autosel-bot/store"
)

// fakeSender records sends and returns scripted errors.
type fakeSender struct {
	errs  []error
	sent  []string
	rcpts [][]string
}

func (f *fakeSender) Send(ctx context.Context, from string, rcpt []string, raw []byte) error {
	var err error
	if len(f.errs) > 0 {
		err, f.errs = f.errs[0], f.errs[1:]
	}
	if err == nil || errors.Is(err, ErrAmbiguous) {
		f.sent = append(f.sent, string(raw))
		f.rcpts = append(f.rcpts, rcpt)
	}
	return err
}

// fakeConfirmer says which Message-IDs the receiving side has.
type fakeConfirmer struct{ seen map[string]bool }

func (f *fakeConfirmer) Seen(ctx context.Context, id string) (bool, error) { return f.seen[id], nil }

type env struct {
	st   *store.Store
	out  *Outbox
	d    *Deliverer
	snd  *fakeSender
	conf *fakeConfirmer
	now  time.Time
}

func newEnv(t *testing.T, opts Options, errs ...error) *env {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	out, err := OpenOutbox(filepath.Join(dir, "outbox"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{st: st, out: out, snd: &fakeSender{errs: errs}, conf: &fakeConfirmer{seen: map[string]bool{}}, now: time.Now()}
	if opts.From == "" {
		opts.From = "bot@bot.example.org"
	}
	e.d, err = New(st, out, e.snd, e.conf, opts, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	e.d.Now = func() time.Time { return e.now }
	return e
}

// queue composes a reply into the outbox and the store.
func (e *env) queue(t *testing.T, id, list, author string, to ...string) {
	t.Helper()
	raw := fmt.Sprintf("From: bot <bot@bot.example.org>\r\nTo: %s\r\nSubject: Re: x\r\nMessage-ID: <%s>\r\n\r\nbody\r\n", strings.Join(to, ", "), id)
	path, err := e.out.Write(id, []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	key := "s-" + id
	e.st.BeginSeries(ctx, &store.Series{Key: key, SeriesID: key, Version: 1})
	if err := e.st.FinishSeries(ctx, key, store.SeriesDone, "", "", nil, []*store.Reply{{MessageID: id, List: list, Author: author, Path: path}}); err != nil {
		t.Fatal(err)
	}
}

func (e *env) state(t *testing.T, id string) *store.Reply {
	t.Helper()
	r, err := e.st.GetReply(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (e *env) pass(t *testing.T) {
	t.Helper()
	if err := e.d.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.d.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestDryRunKeepsOutbox(t *testing.T) {
	e := newEnv(t, Options{})
	e.queue(t, "r1@bot", "l", "a@x", "a@x.org")
	e.pass(t)
	if r := e.state(t, "r1@bot"); r.State != store.ReplyDryRun || !strings.Contains(r.Path, "/new/") {
		t.Fatalf("dry-run reply: %+v", r)
	}
	if len(e.snd.sent) != 0 {
		t.Fatal("dry-run sent mail")
	}
	// Writing the same reply again (re-analysis) replaces, not adds.
	e.out.Write("r1@bot", []byte("Message-ID: <r1@bot>\r\n\r\nagain\r\n"))
	if files, _ := e.out.List(); len(files) != 1 {
		t.Fatalf("outbox has %d files", len(files))
	}
}

func TestSendProtocol(t *testing.T) {
	tempErr := &smtp.SMTPError{Code: 451, Message: "try later"}
	permErr := &smtp.SMTPError{Code: 550, Message: "no such user"}
	ambiguous := fmt.Errorf("end of DATA: %w: %w", ErrAmbiguous, io.ErrUnexpectedEOF)
	tests := []struct {
		name      string
		opts      Options
		errs      []error
		seen      bool // the receiving side has it (after an ambiguous send)
		passes    int
		advance   time.Duration
		wantState string
		wantSends int
	}{
		{name: "ok", errs: nil, passes: 1, wantState: store.ReplySent, wantSends: 1},
		{name: "temporary then ok", errs: []error{tempErr}, passes: 2, advance: time.Minute, wantState: store.ReplySent, wantSends: 1},
		{name: "permanent", errs: []error{permErr}, passes: 2, advance: time.Minute, wantState: store.ReplyFailed, wantSends: 0},
		{name: "attempts exhausted", opts: Options{Retry: Retry{MaxAttempts: 2}}, errs: []error{tempErr, tempErr, tempErr}, passes: 3, advance: time.Hour, wantState: store.ReplyFailed},
		{name: "ambiguous, seen", errs: []error{ambiguous}, seen: true, passes: 2, wantState: store.ReplySent, wantSends: 1},
		{name: "ambiguous, not seen yet", errs: []error{ambiguous}, passes: 2, wantState: store.ReplySending, wantSends: 1},
		{name: "ambiguous, never seen: held", errs: []error{ambiguous}, passes: 2, advance: time.Hour, wantState: store.ReplyUnconfirmed, wantSends: 1},
		{name: "ambiguous, never seen: resend", opts: Options{ResendUnconfirmed: true}, errs: []error{ambiguous}, passes: 2, advance: time.Hour, wantState: store.ReplySent, wantSends: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Send = true
			tt.opts.Retry.Backoff = time.Second
			e := newEnv(t, tt.opts, tt.errs...)
			e.queue(t, "r@bot", "l", "a@x", "a@x.org")
			for i := 0; i < tt.passes; i++ {
				e.pass(t)
				if len(e.snd.sent) > 0 && tt.seen {
					e.conf.seen["r@bot"] = true
				}
				e.now = e.now.Add(tt.advance)
			}
			r := e.state(t, "r@bot")
			if r.State != tt.wantState {
				t.Errorf("state %s (%s), want %s", r.State, r.LastError, tt.wantState)
			}
			if len(e.snd.sent) != tt.wantSends {
				t.Errorf("%d sends, want %d", len(e.snd.sent), tt.wantSends)
			}
			if r.State == store.ReplySent && !strings.HasSuffix(r.Path, ":2,S") {
				t.Errorf("sent reply not moved to cur/: %s", r.Path)
			}
			if _, err := os.Stat(r.Path); err != nil {
				t.Errorf("reply file: %v", err)
			}
		})
	}
}

func TestAlreadyReceivedIsNotSent(t *testing.T) {
	e := newEnv(t, Options{Send: true})
	e.queue(t, "r@bot", "l", "a@x", "a@x.org")
	e.conf.seen["r@bot"] = true
	e.pass(t)
	if r := e.state(t, "r@bot"); r.State != store.ReplySent || len(e.snd.sent) != 0 {
		t.Fatalf("state %s, %d sends", r.State, len(e.snd.sent))
	}
	// The ingest seeing a reply confirms it too.
	e.queue(t, "r2@bot", "l", "a@x", "a@x.org")
	if ours, err := e.d.Confirm(context.Background(), "r2@bot"); !ours || err != nil {
		t.Fatalf("Confirm: %v %v", ours, err)
	}
	if ours, _ := e.d.Confirm(context.Background(), "someone-else@x"); ours {
		t.Fatal("foreign Message-ID taken for ours")
	}
	if r := e.state(t, "r2@bot"); r.State != store.ReplySent {
		t.Fatalf("confirmed reply: %s", r.State)
	}
}

func TestPolicy(t *testing.T) {
	e := newEnv(t, Options{Send: true, Policy: Policy{
		Allow:     Allow{Lists: []string{"<linux-kernel.vger.kernel.org>"}, Domains: []string{"kernel.org"}},
		RateLimit: RateLimit{PerAuthor: 1, Window: time.Hour},
	}})
	e.queue(t, "other-list@bot", "spam.example.com", "a@x", "a@kernel.org")
	e.queue(t, "no-rcpt@bot", "linux-kernel@vger.kernel.org", "b@x", "b@gmail.com")
	e.queue(t, "ok@bot", "linux-kernel.vger.kernel.org", "a@x", "a@kernel.org", "c@gmail.com", "list@vger.kernel.org")
	e.queue(t, "limited@bot", "linux-kernel.vger.kernel.org", "a@x", "a@kernel.org")
	e.pass(t)
	want := map[string]string{
		"other-list@bot": store.ReplyHeld,
		"no-rcpt@bot":    store.ReplyHeld,
		"ok@bot":         store.ReplySent,
		"limited@bot":    store.ReplyQueued,
	}
	for id, st := range want {
		if r := e.state(t, id); r.State != st {
			t.Errorf("%s: %s (%s), want %s", id, r.State, r.LastError, st)
		}
	}
	if len(e.snd.rcpts) != 1 || strings.Join(e.snd.rcpts[0], ",") != "a@kernel.org,list@vger.kernel.org" {
		t.Errorf("recipients %v, want the allowed domains only", e.snd.rcpts)
	}
	if r := e.state(t, "limited@bot"); !strings.Contains(r.LastError, "rate limit") || !r.NextAttempt.After(e.now) {
		t.Errorf("rate-limited reply: %+v", r)
	}
	e.now = e.now.Add(2 * time.Hour)
	e.pass(t)
	if r := e.state(t, "limited@bot"); r.State != store.ReplySent {
		t.Errorf("after the window: %s", r.State)
	}
}

// TestRateLimitOnePass: in one pass over a backlog, the caps hold exactly
// although the counts are reused between deliveries (passCounts): each
// reply that goes out, or that the pass records as a dry-run, is counted
// for the replies after it.
func TestRateLimitOnePass(t *testing.T) {
	type rep struct {
		id, list, author string
		dryRun           bool // composed in a dry-run: recorded as such, never sent
	}
	many := func(n int, list, author string) []rep {
		var out []rep
		for i := 0; i < n; i++ {
			out = append(out, rep{id: fmt.Sprintf("%s.%s.%d@bot", list, author, i), list: list, author: author})
		}
		return out
	}
	tests := []struct {
		name      string
		policy    Policy
		replies   []rep
		wantSent  map[string]int // per author
		wantWhy   string         // in the deferred replies' last error
		wantQueue int
	}{
		{name: "per author", policy: Policy{RateLimit: RateLimit{PerAuthor: 2}},
			replies:  append(many(50, "l", "a@x"), many(3, "l", "b@x")...),
			wantSent: map[string]int{"a@x": 2, "b@x": 2}, wantWhy: "to author", wantQueue: 49},
		{name: "per list", policy: Policy{RateLimit: RateLimit{PerList: 3}},
			replies:  append(append(many(4, "l", "a@x"), many(4, "l", "b@x")...), many(2, "m", "c@x")...),
			wantSent: map[string]int{"a@x": 3, "c@x": 2}, wantWhy: "from l", wantQueue: 5},
		{name: "total", policy: Policy{RateLimit: RateLimit{Total: 4, PerAuthor: 3}},
			replies:  append(append(many(5, "l", "a@x"), many(5, "m", "b@x")...), many(5, "n", "c@x")...),
			wantSent: map[string]int{"a@x": 3, "b@x": 1}, wantWhy: "", wantQueue: 11},
		{name: "a dry-run counts", policy: Policy{RateLimit: RateLimit{PerList: 2, PerAuthor: 1}},
			replies: []rep{
				{id: "r1@bot", list: "l", author: "a@x"},
				{id: "r2@bot", list: "l", author: "a@x"}, // deferred: author a at 1; counts list l at 1
				{id: "d1@bot", list: "l", author: "c@x", dryRun: true},
				{id: "r3@bot", list: "l", author: "b@x"}, // list l at 2 now
			},
			wantSent: map[string]int{"a@x": 1}, wantWhy: "", wantQueue: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.policy.RateLimit.Window = time.Hour
			e := newEnv(t, Options{Send: true, Policy: tt.policy})
			ctx := context.Background()
			for _, r := range tt.replies {
				raw := fmt.Sprintf("From: bot <bot@bot.example.org>\r\nTo: %s\r\nSubject: Re: x\r\nMessage-ID: <%s>\r\n\r\nbody\r\n", r.author, r.id)
				path, err := e.out.Write(r.id, []byte(raw))
				if err != nil {
					t.Fatal(err)
				}
				key := "s-" + r.id
				e.st.BeginSeries(ctx, &store.Series{Key: key, SeriesID: key, Version: 1})
				if err := e.st.FinishSeries(ctx, key, store.SeriesDone, "", "", nil,
					[]*store.Reply{{MessageID: r.id, List: r.list, Author: r.author, Path: path, DryRun: r.dryRun}}); err != nil {
					t.Fatal(err)
				}
			}
			e.pass(t)
			sent := map[string]int{}
			for _, rcpt := range e.snd.rcpts {
				sent[strings.Join(rcpt, ",")]++
			}
			if fmt.Sprint(sent) != fmt.Sprint(tt.wantSent) {
				t.Errorf("sent per author %v, want %v", sent, tt.wantSent)
			}
			queued, err := e.st.Replies(ctx, store.ReplyQueued)
			if err != nil {
				t.Fatal(err)
			}
			if len(queued) != tt.wantQueue {
				t.Errorf("%d replies left queued, want %d", len(queued), tt.wantQueue)
			}
			for _, r := range queued {
				if !strings.Contains(r.LastError, "rate limit") || !strings.Contains(r.LastError, tt.wantWhy) {
					t.Errorf("%s deferred for %q, want a rate limit %q", r.MessageID, r.LastError, tt.wantWhy)
				}
			}
		})
	}
}

func TestNewChecks(t *testing.T) {
	if _, err := New(nil, nil, nil, nil, Options{Send: true, From: "a@b"}, nil); err == nil {
		t.Error("send without a sender accepted")
	}
	if _, err := NewSMTP(SMTPOptions{Addr: "smtp.example.org:25", TLS: "plain"}); err == nil {
		t.Error("plain SMTP to a remote host accepted")
	}
	if _, err := NewSMTP(SMTPOptions{Addr: "127.0.0.1:25", TLS: "plain"}); err != nil {
		t.Errorf("plain SMTP to loopback: %v", err)
	}
	if _, err := NewSMTP(SMTPOptions{Addr: "smtp.example.org:25", TLS: "bogus"}); err == nil {
		t.Error("bad TLS mode accepted")
	}
}
