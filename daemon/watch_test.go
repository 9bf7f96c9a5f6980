package daemon

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/imapsrc"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// testServer is the IMAP account the daemon follows in these tests.
func testServer(addr, user string, mailboxes ...string) imapsrc.Server {
	if len(mailboxes) == 0 {
		mailboxes = []string{"INBOX"}
	}
	return imapsrc.Server{
		Name: "test", Addr: addr, TLS: "plain", Username: user, Password: "secret",
		Mailboxes: mailboxes, PollInterval: 2 * time.Second,
		BackoffMin: 100 * time.Millisecond, BackoffMax: time.Second,
	}
}

// startWatch runs the daemon on srv until the test ends; it returns once
// every mailbox has its cursor (the first start is "now").
func (e *testEnv) startWatch(t *testing.T, srv imapsrc.Server) context.CancelFunc {
	t.Helper()
	w, err := imapsrc.NewWatcher([]imapsrc.Server{srv}, e.st, e.d, e.d.Hooks(), e.d.log)
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
	stop := func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	waitFor(t, "the daemon to catch up", 20*time.Second, func() bool {
		return strings.Contains(e.logBuf.String(), "imap: caught up")
	})
	return stop
}

// expectedSeries is what the seeds assemble into.
func expectedSeries(t *testing.T, raws [][]byte) []string {
	var msgs []*mail.Message
	for _, m := range parseAll(t, raws) {
		if m.Diff != "" || (m.Subject.Patch && m.Subject.Number == 0 && !m.Subject.Reply) {
			msgs = append(msgs, m)
		}
	}
	var keys []string
	for _, s := range series.Assemble(msgs, series.Options{}) {
		keys = append(keys, Key(s))
	}
	if len(keys) < 4 {
		t.Fatalf("seeds assemble into %d series, want at least 4", len(keys))
	}
	return keys
}

// malformed returns hostile messages and their Message-IDs.
func malformed() (raws [][]byte, ids []string) {
	add := func(id, raw string) {
		ids = append(ids, id)
		raws = append(raws, []byte(raw))
	}
	add("broken-mime@test", "From: Mallory <m@evil.example>\nTo: list@example.org\nSubject: [PATCH] broken mime\n"+
		"Message-ID: <broken-mime@test>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"XYZ\n"+
		"Content-Transfer-Encoding: base64\n\n--XYZ\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\n!!!not base64!!!\n--XY")
	add("traversal@test", "From: Mallory <m@evil.example>\nTo: list@example.org\nSubject: [PATCH] fs: innocent fix\n"+
		"Message-ID: <traversal@test>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\nfix\n\nSigned-off-by: M <m@evil.example>\n---\n"+
		"diff --git a/../../etc/passwd b/../../etc/passwd\n--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1,1 +1,2 @@\n root:x:0:0::/root:/bin/sh\n+evil::0:0::/:/bin/sh\n")
	r := rand.New(rand.NewSource(1))
	junk := make([]byte, 64<<10)
	for i := range junk {
		junk[i] = byte(1 + r.Intn(255))
		if junk[i] == '\r' || junk[i] == '\n' {
			junk[i] = 'x'
		}
		if i%70 == 69 {
			junk[i] = '\n'
		}
	}
	add("junk@test", "From: x@y.example\nSubject: [PATCH] junk\nMessage-ID: <junk@test>\nContent-Type: application/octet-stream\n\n"+string(junk))
	big := strings.Repeat(strings.Repeat("A", 76)+"\n", (20<<20)/77)
	add("huge@test", "From: Big <big@example.org>\nTo: list@example.org\nSubject: [PATCH] huge attachment\nMessage-ID: <huge@test>\n"+
		"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\n\nsee attachment\n--B\n"+
		"Content-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n"+big+"--B--\n")
	return raws, ids
}

// TestWatchDovecot: the seeds are appended to dovecot's INBOX while the
// daemon watches it (IDLE); every series is processed once and the replies
// appear in the outbox, threaded; hostile mail is logged with its
// Message-ID and skipped.
func TestWatchDovecot(t *testing.T) {
	dv := startDovecot(t)
	e := newEnv(t, Options{SeriesWait: 2 * time.Second, MaxMessageSize: 10 << 20}, deliver.Options{}, nil, nil)
	real, err := realAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	e.an.real = real // the real pipeline and reply composer
	e.startWatch(t, testServer(dv.IMAPAddr, "list"))
	seeds := seedMessages(t)
	bad, badIDs := malformed()
	// Hostile mail first, then the seeds, then more hostile mail.
	dv.Append("list", "INBOX", bad[:2]...)
	dv.Append("list", "INBOX", seeds...)
	dv.Append("list", "INBOX", bad[2:]...)
	keys := expectedSeries(t, seeds)
	ctx := context.Background()
	waitFor(t, "every series to be processed", 60*time.Second, func() bool {
		for _, k := range keys {
			if s, err := e.st.GetSeries(ctx, k); err != nil || s.State != store.SeriesDone {
				return false
			}
		}
		return true
	})
	waitFor(t, "all messages recorded", 30*time.Second, func() bool {
		c, _ := e.st.CountMessages(ctx)
		n := 0
		for _, v := range c {
			n += v
		}
		return n >= len(seeds)+len(bad)
	})
	for _, k := range keys {
		if n := e.an.count(k); n != 1 {
			t.Errorf("series %s analysed %d times, want 1", k, n)
		}
	}
	var composed int
	waitFor(t, "replies in the outbox", 20*time.Second, func() bool {
		r, _ := e.st.CountReplies(ctx)
		composed = sum(r)
		return composed > 0 && r[store.ReplyDryRun] == composed
	})
	replies := outboxMails(t, e.out.Dir)
	if len(replies) != composed {
		t.Fatalf("%d replies in the outbox, %d recorded", len(replies), composed)
	}
	// Seed 000's AUTOSEL patch has the lost-wakeup risk: it gets a reply.
	answered := map[string]bool{}
	for _, r := range replies {
		answered[r.InReplyTo] = true
	}
	if !answered["20200214154854.6746-542-sashal@kernel.org"] {
		t.Errorf("no reply to the seed 000 AUTOSEL patch; replies answer %v", answered)
	}
	checkThreading(t, replies, parseAll(t, seeds))
	logs := e.logBuf.String()
	for _, id := range badIDs {
		m, err := e.st.GetMessage(ctx, id)
		if err != nil {
			t.Errorf("hostile message %s not recorded: %v", id, err)
			continue
		}
		if m.Status == store.StatusPending || m.Status == store.StatusDone {
			t.Errorf("hostile message %s has status %s", id, m.Status)
		}
		if !strings.Contains(logs, id) {
			t.Errorf("hostile message %s not logged", id)
		}
		t.Logf("%s: %s (%s)", id, m.Status, m.Reason)
	}
	for _, want := range []string{"traversal@test", "huge@test"} {
		if m, _ := e.st.GetMessage(ctx, want); m == nil || m.Status != store.StatusMalformed {
			t.Errorf("%s should be malformed, got %+v", want, m)
		}
	}
}

// TestWatchReconnect: dovecot is stopped and restarted mid-run; the
// daemon reconnects and misses nothing.
func TestWatchReconnect(t *testing.T) {
	dv := startDovecot(t)
	e := newEnv(t, Options{SeriesWait: 2 * time.Second}, deliver.Options{}, nil, nil)
	e.startWatch(t, testServer(dv.IMAPAddr, "list"))
	seeds := seedMessages(t)
	half := len(seeds) / 2
	dv.Append("list", "INBOX", seeds[:half]...)
	ctx := context.Background()
	recorded := func(n int) func() bool {
		return func() bool {
			c, _ := e.st.CountMessages(ctx)
			s := 0
			for _, v := range c {
				s += v
			}
			return s >= n
		}
	}
	waitFor(t, "first half recorded", 30*time.Second, recorded(half))
	t.Log("stopping dovecot")
	dv.Stop()
	t.Log("dovecot stopped")
	waitFor(t, "the daemon to notice", 30*time.Second, func() bool {
		return strings.Contains(e.logBuf.String(), "session ended; reconnecting")
	})
	time.Sleep(1500 * time.Millisecond) // a few failed reconnects
	dv.Start()
	dv.Append("list", "INBOX", seeds[half:]...)
	waitFor(t, "every message recorded after the restart", 60*time.Second, recorded(len(seeds)))
	keys := expectedSeries(t, seeds)
	waitFor(t, "every series processed", 60*time.Second, func() bool {
		for _, k := range keys {
			if s, err := e.st.GetSeries(ctx, k); err != nil || s.State != store.SeriesDone {
				return false
			}
		}
		return true
	})
	for _, k := range keys {
		if n := e.an.count(k); n != 1 {
			t.Errorf("series %s analysed %d times, want 1", k, n)
		}
	}
	c, _ := e.st.CountMessages(ctx)
	total := 0
	for _, v := range c {
		total += v
	}
	if total != len(seeds) {
		t.Errorf("%d messages recorded, want %d: %v", total, len(seeds), c)
	}
}

// TestWatchSendSMTP: with sending on, replies go through postfix to
// dovecot over LMTP, land in the watched list mailbox, are read back over
// IMAP (exactly one copy each) and are confirmed by the ingest.
func TestWatchSendSMTP(t *testing.T) {
	dv := startDovecot(t)
	smtpAddr := startPostfix(t, dv.LMTPAddr, "list@localhost")
	sender, err := deliver.NewSMTP(deliver.SMTPOptions{Addr: smtpAddr, TLS: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	srv := testServer(dv.IMAPAddr, "list")
	finder, err := imapsrc.NewFinder([]imapsrc.Server{srv})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{SeriesWait: 2 * time.Second},
		deliver.Options{Send: true, Retry: deliver.Retry{Backoff: 200 * time.Millisecond}, ConfirmWait: 5 * time.Second}, sender, finder)
	e.startWatch(t, srv)
	seeds := seedMessages(t)
	dv.Append("list", "INBOX", seeds...)
	keys := expectedSeries(t, seeds)
	ctx := context.Background()
	waitFor(t, "every reply sent", 90*time.Second, func() bool {
		r, _ := e.st.CountReplies(ctx)
		return r[store.ReplySent] == len(keys)
	})
	want := map[string]bool{}
	rs, _ := e.st.Replies(ctx, store.ReplySent)
	for _, r := range rs {
		want[r.MessageID] = true
	}
	var got map[string]*mail.Message
	counts := map[string]int{}
	waitFor(t, "replies delivered to the mailbox", 60*time.Second, func() bool {
		got = map[string]*mail.Message{}
		counts = map[string]int{}
		for _, raw := range dv.Fetch("list", "INBOX") {
			m, err := mail.Parse(bytes.NewReader(raw))
			if err != nil || !want[m.MessageID] {
				continue
			}
			got[m.MessageID] = m
			counts[m.MessageID]++
		}
		return len(got) == len(want)
	})
	for id, n := range counts {
		if n != 1 {
			t.Errorf("reply %s delivered %d times", id, n)
		}
	}
	checkThreading(t, got, parseAll(t, seeds))
	// The bot sees its own replies come back and does not answer them.
	waitFor(t, "own replies ingested", 30*time.Second, func() bool {
		for id := range want {
			m, err := e.st.GetMessage(ctx, id)
			if err != nil || m.Status != store.StatusSkipped {
				return false
			}
		}
		return true
	})
	if s, _ := e.st.CountSeries(ctx); s[store.SeriesDone] != len(keys) {
		t.Errorf("series: %v, want %d done", s, len(keys))
	}
	_ = fmt.Sprint
}

// TestWatchTLS follows the same mailbox over STARTTLS (AUTHENTICATE
// PLAIN, IDLE) and implicit TLS (LOGIN, polling) as two sources: each
// message is recorded once (Message-ID de-duplication) and each series
// analysed once.
func TestWatchTLS(t *testing.T) {
	dv := startDovecotTLS(t)
	e := newEnv(t, Options{SeriesWait: 2 * time.Second}, deliver.Options{}, nil, nil)
	starttls := testServer(dv.IMAPAddr, "list")
	starttls.Name, starttls.TLS, starttls.Auth, starttls.InsecureSkipVerify = "starttls", "starttls", "plain", true
	implicit := testServer(dv.IMAPSAddr, "list")
	implicit.Name, implicit.TLS, implicit.InsecureSkipVerify = "imaps", "tls", true
	implicit.NoIdle = true // the polling fallback
	w, err := imapsrc.NewWatcher([]imapsrc.Server{starttls, implicit}, e.st, e.d, e.d.Hooks(), e.d.log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.d.Run(ctx, w, "") }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "both sessions", 20*time.Second, func() bool {
		return strings.Count(e.logBuf.String(), "imap: caught up") >= 2
	})
	if logs := e.logBuf.String(); !strings.Contains(logs, "idle=false") || !strings.Contains(logs, "idle=true") {
		t.Errorf("want one IDLE and one polling session:\n%s", logs)
	}
	seeds := seedMessages(t)
	dv.Append("list", "INBOX", seeds...)
	keys := expectedSeries(t, seeds)
	waitFor(t, "every series processed", 60*time.Second, func() bool {
		for _, k := range keys {
			if s, err := e.st.GetSeries(ctx, k); err != nil || s.State != store.SeriesDone {
				return false
			}
		}
		return true
	})
	waitFor(t, "both sources read everything", 30*time.Second, func() bool {
		a, err1 := e.st.Cursor(ctx, "starttls", "INBOX")
		b, err2 := e.st.Cursor(ctx, "imaps", "INBOX")
		return err1 == nil && err2 == nil && a.LastUID == uint32(len(seeds)) && b.LastUID == uint32(len(seeds))
	})
	for _, k := range keys {
		if n := e.an.count(k); n != 1 {
			t.Errorf("series %s analysed %d times, want 1", k, n)
		}
	}
	c, _ := e.st.CountMessages(ctx)
	if sum(c) != len(seeds) {
		t.Errorf("%d messages recorded, want %d", sum(c), len(seeds))
	}
}

// TestWatchUIDValidity: the mailbox is deleted and re-created (new
// UIDVALIDITY) with the old messages plus new ones; the daemon rescans it
// and records only the new messages (Message-ID de-duplication).
func TestWatchUIDValidity(t *testing.T) {
	dv := startDovecot(t)
	seeds := seedMessages(t)
	half := len(seeds) / 2
	dv.Append("list", "lkml") // create it empty
	e := newEnv(t, Options{SeriesWait: 2 * time.Second}, deliver.Options{}, nil, nil)
	e.startWatch(t, testServer(dv.IMAPAddr, "list", "lkml"))
	dv.Append("list", "lkml", seeds[:half]...)
	ctx := context.Background()
	total := func() int { c, _ := e.st.CountMessages(ctx); return sum(c) }
	waitFor(t, "first half recorded", 30*time.Second, func() bool { return total() >= half })
	before, _ := e.st.Cursor(ctx, "test", "lkml")
	ended := strings.Count(e.logBuf.String(), "session ended")
	c := dv.client("list")
	if err := c.Delete("lkml").Wait(); err != nil {
		t.Fatalf("delete mailbox: %v", err)
	}
	c.Close()
	// Re-create it only once the daemon has let go of the deleted one:
	// Dovecot cannot cope with a session that still has the old mailbox
	// selected (IDLE) while it is re-created. That session trips over the
	// new index ("Corrupted transaction log ... indexid changed") and the
	// APPENDs fail ("Mailbox was deleted under us"). The daemon's side of
	// that case (a frozen view) is TestWatchRecreatedMailbox in imapsrc.
	waitFor(t, "the daemon to drop the deleted mailbox", 30*time.Second, func() bool {
		return strings.Count(e.logBuf.String(), "session ended") > ended
	})
	dv.Append("list", "lkml", seeds...)
	waitFor(t, "rescan after the UIDVALIDITY change", 60*time.Second, func() bool {
		cur, err := e.st.Cursor(ctx, "test", "lkml")
		return err == nil && cur.UIDValidity != before.UIDValidity && cur.LastUID == uint32(len(seeds))
	})
	if !strings.Contains(e.logBuf.String(), "UIDVALIDITY changed") {
		t.Error("UIDVALIDITY change not logged")
	}
	keys := expectedSeries(t, seeds)
	waitFor(t, "every series processed", 60*time.Second, func() bool {
		for _, k := range keys {
			if s, err := e.st.GetSeries(ctx, k); err != nil || s.State != store.SeriesDone {
				return false
			}
		}
		return true
	})
	if n := total(); n != len(seeds) {
		t.Errorf("%d messages recorded, want %d (no duplicates)", n, len(seeds))
	}
	for _, k := range keys {
		if n := e.an.count(k); n != 1 {
			t.Errorf("series %s analysed %d times, want 1", k, n)
		}
	}
}
