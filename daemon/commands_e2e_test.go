package daemon

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/store"
)

// inbox is the mailbox as the list sees it: every message by Message-ID,
// and how many copies of each.
type inbox struct {
	msgs   map[string]*mail.Message
	copies map[string]int
}

func readInbox(t *testing.T, dv *dovecot) *inbox {
	t.Helper()
	in := &inbox{msgs: map[string]*mail.Message{}, copies: map[string]int{}}
	for _, raw := range dv.Fetch("list", "INBOX") {
		m, err := mail.Parse(bytes.NewReader(raw))
		if err != nil {
			continue
		}
		in.msgs[m.MessageID] = m
		in.copies[m.MessageID]++
	}
	return in
}

// answers returns the bot's messages answering id.
func (in *inbox) answers(id string) []*mail.Message {
	var out []*mail.Message
	for _, m := range in.msgs {
		if m.InReplyTo == id && m.From.Addr == "autosel-bot@localhost" {
			for n := in.copies[m.MessageID]; n > 0; n-- {
				out = append(out, m)
			}
		}
	}
	return out
}

// waitAnswer waits until the bot answered id in the mailbox, and returns
// the answer.
func waitAnswer(t *testing.T, dv *dovecot, p *botProc, id string) *mail.Message {
	t.Helper()
	var got *mail.Message
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if as := readInbox(t, dv).answers(id); len(as) > 0 {
			got = as[0]
			break
		}
		if p.exited() {
			t.Fatalf("the bot exited:\n%s", p.log.String())
		}
		time.Sleep(300 * time.Millisecond)
	}
	if got == nil {
		t.Fatalf("no answer to <%s>:\n%s", id, p.log.String())
	}
	return got
}

// commandState peeks at a command mail's state in the running bot's store.
func commandState(t *testing.T, path, id string) string {
	storeMu.Lock()
	defer storeMu.Unlock()
	s, err := store.Open(context.Background(), path)
	if err != nil {
		return ""
	}
	defer s.Close()
	c, err := s.GetCommand(context.Background(), id)
	if err != nil {
		return ""
	}
	return c.State
}

// TestCommandsEndToEnd is the acceptance, on the real binary with
// sending on, through postfix into the watched dovecot mailbox: a patch,
// the bot's reply with two findings; a maintainer's "#autosel ignore"
// reply, confirmed; v2 of the series, whose threaded reply omits the
// ignored finding and says "1 fixed, 0 new"; "#autosel test" from an
// untrusted sender, refused once for two mails; "#autosel test" killed
// with SIGKILL while it runs, then answered once after the restart.
func TestCommandsEndToEnd(t *testing.T) {
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
  metrics: 127.0.0.1:%d
  commands:
    trust:
      - list: "*"
        maintainers: ["Maint Ainer <maint@example.org>"]
        author: true
`, dv.IMAPAddr, state, filepath.Join(dir, "outbox"), smtpAddr, freePort(t))), 0o644)
	post := func(raws ...string) {
		for _, r := range raws {
			dv.Append("list", "INBOX", []byte(r))
		}
	}
	subject := "[PATCH] foo: take the config mutex in the fast paths"
	now := time.Now().UTC()
	date := func(d time.Duration) string { return now.Add(d).Format(time.RFC1123Z) }

	p1 := startBot(t, bin, cfg)
	waitFor(t, "the bot to catch up", 30*time.Second, func() bool { return strings.Contains(p1.log.String(), "imap: caught up") })
	post(fooPatch(1, date(0)))
	r1 := waitAnswer(t, dv, p1, "v1.foo@example.org")
	ids := findingIDRE.FindAllStringSubmatch(r1.Body, -1)
	if len(ids) != 2 {
		t.Fatalf("v1 reply:\n%s", r1.Body)
	}
	idA, idB := ids[0][1], ids[1][1]
	if !strings.Contains(r1.Body, "foo_a()\n    Finding id: "+idA) {
		idA, idB = idB, idA
	}

	// The maintainer ignores foo_a()'s finding.
	refs := "<v1.foo@example.org>"
	post(commandMail("ignore.1@example.org", "Maint Ainer <maint@example.org>", subject, r1.MessageID, refs, date(time.Minute),
		"> [risk] ...\n\n#autosel ignore "+idA+" the config mutex is never contended here\n"))
	ra := waitAnswer(t, dv, p1, "ignore.1@example.org")
	if !strings.Contains(ra.Body, "Finding "+idA+" (sleep-in-atomic: drivers/misc/foo.c:11 foo_a()) will not be reported again") {
		t.Errorf("answer to the ignore:\n%s", ra.Body)
	}

	// An untrusted sender, twice.
	post(commandMail("test.1@example.org", "Some One <someone@example.net>", subject, r1.MessageID, refs, date(2*time.Minute), "#autosel test\n"),
		commandMail("test.2@example.org", "Some One <someone@example.net>", subject, r1.MessageID, refs, date(3*time.Minute), "#autosel test\n"))
	waitFor(t, "both untrusted commands to be refused", 60*time.Second, func() bool {
		return commandState(t, state, "test.1@example.org") == store.CommandRefused && commandState(t, state, "test.2@example.org") == store.CommandRefused
	})

	// v2 keeps foo_a()'s finding (ignored) and fixes foo_b()'s.
	post(fooPatch(2, date(time.Hour)))
	r2 := waitAnswer(t, dv, p1, "v2.foo@example.org")
	for _, want := range []string{
		"1 fixed, 0 new, 0 unchanged (findings matched by id)",
		"fixed: " + idB,
		"1 finding suppressed, not reported",
	} {
		if !strings.Contains(r2.Body, want) {
			t.Errorf("v2 reply lacks %q:\n%s", want, r2.Body)
		}
	}
	if strings.Contains(r2.Body, idA) || strings.Contains(r2.Body, "[risk]") {
		t.Errorf("v2 reply reports the ignored finding:\n%s", r2.Body)
	}
	if r2.InReplyTo != "v2.foo@example.org" || r2.References[len(r2.References)-1] != "v2.foo@example.org" || r2.Subject.Raw != "Re: [PATCH v2] foo: take the config mutex in the fast paths" {
		t.Errorf("v2 reply threading: %q %v %q", r2.InReplyTo, r2.References, r2.Subject.Raw)
	}
	p1.cmd.Process.Signal(syscall.SIGTERM)
	<-p1.done

	// "#autosel test" killed mid-run, then answered once.
	p2 := startBot(t, bin, cfg, "--debug-analysis-delay", "8s")
	post(commandMail("test.3@example.org", "Dev Eloper <dev@example.org>", "[PATCH v2] foo: take the config mutex in the fast paths",
		r2.MessageID, "<v2.foo@example.org>", date(2*time.Hour), "#autosel test\n"))
	waitFor(t, "the test command to run", 60*time.Second, func() bool { return commandState(t, state, "test.3@example.org") == store.CommandRunning })
	p2.kill()
	<-p2.done
	p3 := startBot(t, bin, cfg)
	rt := waitAnswer(t, dv, p3, "test.3@example.org")
	if !strings.Contains(rt.Body, "> #autosel test\nThe VM regression suite did not run.\nNote: VM suite not configured on this bot (runner.tree is empty)") {
		t.Errorf("answer to the test:\n%s", rt.Body)
	}
	waitFor(t, "every reply to be confirmed", 60*time.Second, func() bool {
		s, err := store.Open(context.Background(), state)
		if err != nil {
			return false
		}
		defer s.Close()
		rep, _ := s.CountReplies(context.Background())
		return rep[store.ReplyQueued]+rep[store.ReplySending] == 0
	})
	time.Sleep(2 * time.Second) // anything sent twice would be in by now
	in := readInbox(t, dv)
	for _, id := range []string{"v1.foo@example.org", "ignore.1@example.org", "v2.foo@example.org", "test.3@example.org"} {
		if n := len(in.answers(id)); n != 1 {
			t.Errorf("%d answers to <%s>, want exactly 1", n, id)
		}
	}
	if n1, n2 := len(in.answers("test.1@example.org")), len(in.answers("test.2@example.org")); n1+n2 != 1 {
		t.Errorf("%d + %d refusals to the untrusted sender, want 1", n1, n2)
	}
	for id, n := range in.copies {
		if n != 1 {
			t.Errorf("<%s> is in the mailbox %d times", id, n)
		}
	}
	if t.Failed() {
		t.Logf("run 1:\n%s\nrun 2:\n%s\nrun 3:\n%s", p1.log.String(), p2.log.String(), p3.log.String())
	}
}
