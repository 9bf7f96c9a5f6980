package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/botcmd"
	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/reply"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// TestHostileInputs is the table of attacks on the mail side (issue 13):
// one row per attack, each asserting the safe outcome.
func TestHostileInputs(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"3,000 Cc addresses: one reply with at most the cap", hostileManyCc},
		{"reply file with 3,000 Cc: envelope capped", hostileEnvelopeCap},
		{"From/List-Id rotation does not bypass rate limits", hostileRotation},
		{"FIFO in a Maildir does not hang replay", hostileFIFO},
		{"SIGTERM ends a replay", hostileSIGTERM},
		{"symlink to /dev/zero is skipped", hostileDevZero},
		{"missing path among good ones", hostileMissingPath},
		{"dry-run backlog not sent without --send-backlog", hostileBacklog},
		{"10,000-part series: bounded reply count", hostileHugeSeries},
		{"analyzer flooding replies: capped by the daemon", hostileReplyFlood},
		{"terminal escapes in subjects", hostileEscapes},
		{"truncated final hunk header", hostileTruncatedHunk},
		{"forged List-Id: the list is the mailbox read", hostileForgedListID},
		{"recipients outside the thread dropped", hostileOutsideThread},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

const hostileDiff = "Fix it.\n\nSigned-off-by: A <a@example.com>\n---\n" +
	"diff --git a/fs/pipe.c b/fs/pipe.c\n--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n"

// hostileMail returns a patch mail; extra are header lines.
func hostileMail(id, subject, from string, extra ...string) string {
	h := "From: " + from + "\nTo: list@vger.kernel.org\nSubject: " + subject + "\nMessage-ID: <" + id + ">\n" +
		"Date: Mon, 1 Jan 2024 00:00:00 +0000\n"
	for _, e := range extra {
		h += e + "\n"
	}
	return h + "\n" + hostileDiff
}

// writeMbox writes messages as an mbox and returns its path.
func writeMbox(t *testing.T, dir, name string, msgs ...string) string {
	t.Helper()
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("From x@y Mon Jan  1 00:00:00 2024\n")
		b.WriteString(m)
		b.WriteString("\n")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// realCompose analyses nothing but gives every patch a risk finding and
// composes the replies with package reply, as watch does.
func realCompose(opts reply.Options) Analyzer {
	return func(ctx context.Context, s *series.Series, h *botcmd.History) (*Result, error) {
		r := &report.Report{SeriesID: s.ID, Title: s.Title, Version: s.Version, Total: s.Total}
		for _, p := range s.Patches {
			r.Patches = append(r.Patches, report.PatchReport{
				Number: p.Number, Subject: p.Msg.Subject.Raw, MessageID: p.Msg.MessageID, Files: []string{"fs/pipe.c"},
				Findings: []report.Finding{{Rule: "sleep-in-atomic", Severity: report.SeverityRisk, Patch: p.Number,
					File: "fs/pipe.c", Func: "pipe_write", Line: 2, Message: "mutex_lock() under spin_lock()"}},
			})
		}
		mails, err := reply.Compose(r, s, opts)
		if err != nil {
			return nil, err
		}
		res := &Result{Report: []byte("{}")}
		for _, m := range mails {
			res.Replies = append(res.Replies, OutMail{MessageID: m.MessageID, InReplyTo: m.InReplyTo, Raw: m.Bytes()})
		}
		return res, nil
	}
}

// captureSender records what would go out over SMTP.
type captureSender struct {
	mu   sync.Mutex
	rcpt [][]string
	raws [][]byte
}

func (c *captureSender) Send(ctx context.Context, from string, rcpt []string, raw []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rcpt = append(c.rcpt, append([]string(nil), rcpt...))
	c.raws = append(c.raws, raw)
	return nil
}

func (c *captureSender) sent() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.rcpt)
}

func replyOpts() reply.Options {
	o := reply.DefaultOptions()
	o.From = "autosel-bot <autosel-bot@bot.example.org>"
	o.SkipEmpty = false
	return o
}

func hostileManyCc(t *testing.T) {
	var cc []string
	for i := 0; i < 3000; i++ {
		cc = append(cc, fmt.Sprintf("victim%d@example.com", i))
	}
	cc = append(cc, "linux-kernel@vger.kernel.org")
	mbox := writeMbox(t, t.TempDir(), "cc.mbox", hostileMail("cc@x", "[PATCH] flood", "Author <author@example.com>",
		"Cc: "+strings.Join(cc, ", "), "List-Id: <linux-kernel.vger.kernel.org>"))
	snd := &captureSender{}
	e := newEnv(t, Options{Lists: []ListOrigin{{Origin: "replay:" + mbox + "/", List: "linux-kernel@vger.kernel.org"}}}, deliver.Options{Send: true, Policy: deliver.Policy{
		Allow: deliver.Allow{Lists: []string{"linux-kernel.vger.kernel.org"}}, MaxRecipients: 20,
	}}, snd, nil)
	ro := replyOpts()
	ro.KeepLists = []string{"linux-kernel.vger.kernel.org"}
	e.an.real = realCompose(ro)
	if _, err := e.d.Replay(context.Background(), []string{mbox}); err != nil {
		t.Fatal(err)
	}
	out := outboxMails(t, e.out.Dir)
	if len(out) != 1 || snd.sent() != 1 {
		t.Fatalf("%d replies in the outbox, %d sent; want one reply", len(out), snd.sent())
	}
	for _, m := range out {
		n := len(m.To) + len(m.Cc)
		if n > 20 {
			t.Errorf("reply headers name %d recipients, cap 20", n)
		}
		var all []string
		for _, a := range append(append([]mail.Address(nil), m.To...), m.Cc...) {
			all = append(all, a.Addr)
		}
		joined := strings.Join(all, " ")
		for _, must := range []string{"author@example.com", "linux-kernel@vger.kernel.org"} {
			if !strings.Contains(joined, must) {
				t.Errorf("capped recipients %v lack %s", all, must)
			}
		}
	}
	if n := len(snd.rcpt[0]); n > 20 {
		t.Errorf("SMTP envelope has %d recipients, cap 20", n)
	}
}

func hostileEnvelopeCap(t *testing.T) {
	snd := &captureSender{}
	e := newEnv(t, Options{StableList: "stable@vger.kernel.org"}, deliver.Options{Send: true, Policy: deliver.Policy{MaxRecipients: 20, StableList: "stable@vger.kernel.org"}}, snd, nil)
	var patchCc []string
	for i := 0; i < 3000; i++ {
		patchCc = append(patchCc, fmt.Sprintf("victim%d@example.com", i))
	}
	// A reply as an older composer wrote it: every Cc of the patch kept.
	e.an.real = func(ctx context.Context, s *series.Series, h *botcmd.History) (*Result, error) {
		m := s.Patches[0].Msg
		var cc []string
		for i := 0; i < 3000; i++ {
			cc = append(cc, fmt.Sprintf("victim%d@example.com", i))
		}
		cc = append(cc, "stable@vger.kernel.org")
		raw := "From: autosel-bot <autosel-bot@bot.example.org>\nTo: victim-first@example.com\nCc: " + strings.Join(cc, ", ") + ", " + m.From.Addr +
			"\nSubject: Re: x\nMessage-ID: <env@bot>\nIn-Reply-To: <" + m.MessageID + ">\n\nbody\n"
		return &Result{Replies: []OutMail{{MessageID: "env@bot", InReplyTo: m.MessageID, Raw: []byte(raw)}}}, nil
	}
	mbox := writeMbox(t, t.TempDir(), "a.mbox", hostileMail("env@x", "[PATCH] x", "Author <author@example.com>",
		"Cc: victim-first@example.com, "+strings.Join(patchCc, ", ")))
	if _, err := e.d.Replay(context.Background(), []string{mbox}); err != nil {
		t.Fatal(err)
	}
	if snd.sent() != 1 {
		t.Fatalf("%d sent, want 1", snd.sent())
	}
	rc := snd.rcpt[0]
	if len(rc) != 20 {
		t.Errorf("envelope has %d recipients, want the cap of 20", len(rc))
	}
	joined := strings.Join(rc, " ")
	for _, must := range []string{"author@example.com", "stable@vger.kernel.org"} {
		if !strings.Contains(joined, must) {
			t.Errorf("envelope %v lacks %s", rc, must)
		}
	}
	if !strings.Contains(e.logBuf.String(), "recipients over the cap dropped") {
		t.Error("dropped recipients not logged")
	}
}

func hostileRotation(t *testing.T) {
	dir := t.TempDir()
	var msgs []string
	for i := 0; i < 10; i++ {
		msgs = append(msgs, hostileMail(fmt.Sprintf("rot%d@x", i), fmt.Sprintf("[PATCH] rotate %d", i),
			fmt.Sprintf("Sender %d <s%d@example%d.com>", i, i, i), fmt.Sprintf("List-Id: <list%d.example.org>", i)))
	}
	a := writeMbox(t, dir, "list-a.mbox", msgs...)
	b := writeMbox(t, dir, "list-b.mbox", hostileMail("other@x", "[PATCH] other list", "O <o@example.com>"))
	snd := &captureSender{}
	e := newEnv(t, Options{}, deliver.Options{Send: true, Policy: deliver.Policy{RateLimit: deliver.RateLimit{PerList: 3, Window: time.Hour}}}, snd, nil)
	if _, err := e.d.Replay(context.Background(), []string{a, b}); err != nil {
		t.Fatal(err)
	}
	// Three from the rotating archive (its origin's cap), one from the other.
	if snd.sent() != 4 {
		t.Errorf("%d replies sent, want 4 (3 from the rotating source, 1 from the other)", snd.sent())
	}
	queued, err := e.st.Replies(context.Background(), store.ReplyQueued)
	if err != nil {
		t.Fatal(err)
	}
	if len(queued) != 7 {
		t.Errorf("%d replies deferred, want 7", len(queued))
	}
	for _, r := range queued {
		if !strings.Contains(r.LastError, "list-a.mbox") {
			t.Errorf("deferred reply %s: %q does not name the origin", r.MessageID, r.LastError)
		}
	}
}

// replayWithin runs a replay and fails if it takes longer than d.
func replayWithin(t *testing.T, e *testEnv, d time.Duration, paths ...string) *ReplayStats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	type res struct {
		st  *ReplayStats
		err error
	}
	done := make(chan res, 1)
	go func() {
		st, err := e.d.Replay(ctx, paths)
		done <- res{st, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("replay: %v", r.err)
		}
		return r.st
	case <-time.After(d + 5*time.Second):
		t.Fatalf("replay still running after %v", d)
	}
	return nil
}

func inputErrors(st *ReplayStats) string {
	var s []string
	for _, e := range st.InputErrors {
		s = append(s, e.Error())
	}
	return strings.Join(s, "\n")
}

func hostileMaildir(t *testing.T, dir string, msgs ...string) string {
	t.Helper()
	md := filepath.Join(dir, "md")
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(md, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range msgs {
		if err := os.WriteFile(filepath.Join(md, "new", fmt.Sprintf("%d.host", i)), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return md
}

func hostileFIFO(t *testing.T) {
	md := hostileMaildir(t, t.TempDir(), hostileMail("good@x", "[PATCH] good", "A <a@example.com>"))
	if err := syscall.Mkfifo(filepath.Join(md, "new", "0.fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{}, deliver.Options{}, nil, nil)
	st := replayWithin(t, e, 20*time.Second, md)
	if st.Read != 1 || st.Series["done"] != 1 {
		t.Errorf("read %d, series %v; want the good message processed", st.Read, st.Series)
	}
	if got := inputErrors(st); !strings.Contains(got, "0.fifo: not a regular file; skipped (FIFO)") {
		t.Errorf("input errors %q do not name the FIFO", got)
	}
}

func hostileSIGTERM(t *testing.T) {
	dir := t.TempDir()
	var msgs []string
	for i := 0; i < 300; i++ {
		msgs = append(msgs, hostileMail(fmt.Sprintf("slow%d@x", i), fmt.Sprintf("[PATCH] slow %d", i), "A <a@example.com>"))
	}
	mbox := writeMbox(t, dir, "slow.mbox", msgs...)
	e := newEnv(t, Options{Workers: 1}, deliver.Options{}, nil, nil)
	e.an.delay = 200 * time.Millisecond
	// As replay's command does: SIGTERM cancels the context.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := e.d.Replay(ctx, []string{mbox})
		done <- err
	}()
	waitFor(t, "the first analysis", 20*time.Second, func() bool {
		e.an.mu.Lock()
		defer e.an.mu.Unlock()
		return len(e.an.calls) > 0
	})
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("replay ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("replay did not end within 10s of SIGTERM")
	}
	if n := len(e.an.calls); n >= 300 {
		t.Errorf("%d series analysed: SIGTERM did not stop the replay", n)
	}
}

func hostileDevZero(t *testing.T) {
	dir := t.TempDir()
	md := hostileMaildir(t, dir, hostileMail("good@x", "[PATCH] good", "A <a@example.com>"))
	if err := os.Symlink("/dev/zero", filepath.Join(md, "cur", "0.zero")); err != nil {
		t.Fatal(err)
	}
	top := filepath.Join(dir, "zero.mbox")
	if err := os.Symlink("/dev/zero", top); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{}, deliver.Options{}, nil, nil)
	st := replayWithin(t, e, 20*time.Second, top, md)
	if st.Read != 1 || st.Series["done"] != 1 {
		t.Errorf("read %d, series %v; want the good message processed", st.Read, st.Series)
	}
	got := inputErrors(st)
	for _, w := range []string{"0.zero: not a regular file; skipped (symbolic link)", "zero.mbox: not a regular file; skipped (character device)"} {
		if !strings.Contains(got, w) {
			t.Errorf("input errors %q lack %q", got, w)
		}
	}
}

func hostileMissingPath(t *testing.T) {
	dir := t.TempDir()
	a := writeMbox(t, dir, "a.mbox", hostileMail("a@x", "[PATCH] a", "A <a@example.com>"))
	b := writeMbox(t, dir, "b.mbox", hostileMail("b@x", "[PATCH] b", "B <b@example.com>"))
	e := newEnv(t, Options{}, deliver.Options{}, nil, nil)
	st := replayWithin(t, e, 20*time.Second, a, filepath.Join(dir, "missing.mbox"), b)
	if st.Read != 2 || st.Series["done"] != 2 {
		t.Errorf("read %d, series %v; want both good archives processed", st.Read, st.Series)
	}
	if got := inputErrors(st); len(st.InputErrors) != 1 || !strings.Contains(got, "missing.mbox") {
		t.Errorf("input errors %q, want one naming missing.mbox", got)
	}
}

func hostileBacklog(t *testing.T) {
	dir := t.TempDir()
	a := writeMbox(t, dir, "a.mbox",
		hostileMail("bl1@x", "[PATCH] one", "A <a@example.com>"),
		hostileMail("bl2@x", "[PATCH] two", "A <a@example.com>"))
	// Dry-run with a rate limit: one reply "delivered" to the dry-run
	// outbox, the other held back by the limit.
	e := newEnv(t, Options{}, deliver.Options{Policy: deliver.Policy{RateLimit: deliver.RateLimit{PerList: 1, Window: time.Hour}}}, nil, nil)
	if _, err := e.d.Replay(context.Background(), []string{a}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	counts, _ := e.st.CountReplies(ctx)
	if counts[store.ReplyDryRun] != 1 || counts[store.ReplyQueued] != 1 {
		t.Fatalf("after the dry-run: %v, want one dry-run and one held back", counts)
	}
	sendRun := func(backlog bool) *captureSender {
		snd := &captureSender{}
		dl, err := deliver.New(e.st, e.out, snd, nil, deliver.Options{From: "autosel-bot@bot.example.org", Send: true, SendBacklog: backlog}, e.d.log)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dl.SendBacklog(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := dl.Pass(ctx); err != nil {
			t.Fatal(err)
		}
		return snd
	}
	// A later sending run without --send-backlog sends nothing.
	if snd := sendRun(false); snd.sent() != 0 {
		t.Errorf("a sending run sent %d dry-run replies without --send-backlog", snd.sent())
	}
	counts, _ = e.st.CountReplies(ctx)
	if counts[store.ReplyDryRun] != 2 {
		t.Errorf("after the sending run: %v, want both replies left as dry-run", counts)
	}
	// With --send-backlog the operator gets them sent.
	if snd := sendRun(true); snd.sent() != 2 {
		t.Errorf("--send-backlog sent %d replies, want 2", snd.sent())
	}
}

func hostileHugeSeries(t *testing.T) {
	const parts = 10000
	msgs := []string{"From: A <a@example.com>\nTo: list@vger.kernel.org\nSubject: [PATCH 0/10000] huge\nMessage-ID: <huge0@x>\n" +
		"Date: Mon, 1 Jan 2024 00:00:00 +0000\n\ncover\n"}
	for i := 1; i <= parts; i++ {
		msgs = append(msgs, hostileMail(fmt.Sprintf("huge%d@x", i), fmt.Sprintf("[PATCH %d/%d] part %d", i, parts, i),
			"A <a@example.com>", "In-Reply-To: <huge0@x>", "References: <huge0@x>"))
	}
	mbox := writeMbox(t, t.TempDir(), "huge.mbox", msgs...)
	e := newEnv(t, Options{MaxReplies: 11}, deliver.Options{}, nil, nil)
	ro := replyOpts()
	ro.MaxPatchReplies = 10
	e.an.real = realCompose(ro)
	st := replayWithin(t, e, 5*time.Minute, mbox)
	if st.Series["done"] != 1 {
		t.Fatalf("series %v, want the one huge series done", st.Series)
	}
	files, err := e.out.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 11 {
		t.Errorf("%d reply files, want 11 (series reply + 10 per-patch replies)", len(files))
	}
	// The patches beyond the cap are reported in the series reply.
	var series []byte
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte("In-Reply-To: <huge0@x>")) {
			series = raw
		}
	}
	if !bytes.Contains(series, []byte("part 9999")) {
		t.Error("the series reply does not carry the findings of the patches beyond the cap")
	}
}

func hostileReplyFlood(t *testing.T) {
	e := newEnv(t, Options{MaxReplies: 5}, deliver.Options{}, nil, nil)
	e.an.real = func(ctx context.Context, s *series.Series, h *botcmd.History) (*Result, error) {
		m := s.Patches[0].Msg
		res := &Result{}
		for i := 0; i < 10001; i++ {
			id := fmt.Sprintf("flood%d@bot", i)
			res.Replies = append(res.Replies, OutMail{MessageID: id, InReplyTo: m.MessageID,
				Raw: []byte("From: autosel-bot@bot.example.org\nTo: " + m.From.Addr + "\nSubject: Re: x\nMessage-ID: <" + id + ">\n\nx\n")})
		}
		return res, nil
	}
	mbox := writeMbox(t, t.TempDir(), "a.mbox", hostileMail("flood@x", "[PATCH] x", "A <a@example.com>"))
	replayWithin(t, e, time.Minute, mbox)
	files, _ := e.out.List()
	if len(files) != 5 {
		t.Errorf("%d reply files, want the cap of 5", len(files))
	}
}

func hostileEscapes(t *testing.T) {
	raw := hostileMail("esc@x", "=?utf-8?q?=1B]0;owned=07=1B[2J[PATCH]_evil?=", "=?utf-8?q?Evil=1B[31m?= <e@example.com>")
	m, err := mail.Parse(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Subject.Raw, "\x1b") {
		t.Fatalf("test input lost its escape: %q", m.Subject.Raw)
	}
	r := &report.Report{SeriesID: m.MessageID, Title: m.Subject.Title, Author: m.From.Name + " <" + m.From.Addr + ">",
		Patches: []report.PatchReport{{Number: 1, Subject: m.Subject.Raw, MessageID: m.MessageID, Files: []string{"fs/pipe.c"}}}}
	var b bytes.Buffer
	if err := report.WriteText(&b, []*report.Report{r}); err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(b.Bytes(), "\x1b\x07") {
		t.Errorf("raw terminal control characters in text output:\n%q", b.String())
	}
	if !strings.Contains(b.String(), `\x1b]0;owned\x07`) {
		t.Errorf("escaped subject missing from output:\n%s", b.String())
	}
}

func hostileTruncatedHunk(t *testing.T) {
	raw := hostileMail("cut@x", "[PATCH] cut", "A <a@example.com>") + "@@"
	m, err := mail.Parse(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	_, err = diffcheck.Parse(m.Diff)
	var de *diffcheck.Error
	if !errors.As(err, &de) {
		t.Fatalf("diff with a truncated final hunk header: err %v, want a *diffcheck.Error", err)
	}
	if de.File != "fs/pipe.c" || de.Line == 0 || !strings.Contains(err.Error(), `fs/pipe.c: truncated hunk header "@@"`) {
		t.Errorf("error %v (file %q, line %d) does not name the file and line", err, de.File, de.Line)
	}
}
