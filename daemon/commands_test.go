package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/botcmd"
	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// fooBase is drivers/misc/foo.c before the series; v1 makes foo_a() take
// a mutex and foo_b() sleep under their spinlock (two risks), v2 keeps
// foo_a()'s and fixes foo_b()'s.
const fooDiffV1 = `diff --git a/drivers/misc/foo.c b/drivers/misc/foo.c
--- a/drivers/misc/foo.c
+++ b/drivers/misc/foo.c
@@ -8,13 +8,16 @@ struct foo { spinlock_t lock; struct mutex cfg_mutex; int a, b; };
 static void foo_a(struct foo *f)
 {
 	spin_lock(&f->lock);
+	mutex_lock(&f->cfg_mutex);
 	f->a++;
+	mutex_unlock(&f->cfg_mutex);
 	spin_unlock(&f->lock);
 }
 
 static void foo_b(struct foo *f)
 {
 	spin_lock_irq(&f->lock);
+	msleep(10);
 	f->b++;
 	spin_unlock_irq(&f->lock);
 }
`

var fooDiffV2 = strings.Replace(fooDiffV1, "+\tmsleep(10);", "+\tudelay(10);", 1)

// fooPatch is version v of the foo series, posted to list@localhost.
func fooPatch(v int, date string) string {
	tag, diff := "PATCH", fooDiffV1
	if v > 1 {
		tag, diff = fmt.Sprintf("PATCH v%d", v), fooDiffV2
	}
	return fmt.Sprintf("From: Dev Eloper <dev@example.org>\nTo: list@localhost\nSubject: [%s] foo: take the config mutex in the fast paths\n"+
		"Date: %s\nMessage-ID: <v%d.foo@example.org>\n\nTake the config mutex.\n\nSigned-off-by: Dev Eloper <dev@example.org>\n---\n%s",
		tag, date, v, diff)
}

// commandMail is a reply of from to the mail inReplyTo (refs: the thread
// before it) with body.
func commandMail(id, from, subject, inReplyTo, refs, date, body string) string {
	return fmt.Sprintf("From: %s\nTo: list@localhost\nSubject: Re: %s\nDate: %s\nMessage-ID: <%s>\nIn-Reply-To: <%s>\nReferences: %s <%s>\n\n%s",
		from, subject, date, id, inReplyTo, refs, inReplyTo, body)
}

var findingIDRE = regexp.MustCompile(`Finding id: ([0-9a-f]{12})`)

// commandEnv is a daemon with the real analysis (patch-only), the real
// replies and the real command answers; maint@example.org is trusted on
// every list, as is a series' author.
func commandEnv(t *testing.T) *testEnv {
	t.Helper()
	ropts := replyOpts()
	an, err := realAnalyzerWith(ropts)
	if err != nil {
		t.Fatal(err)
	}
	h := &botcmd.Handler{Reply: ropts, Test: func(ctx context.Context, s *series.Series, trees []string) (*report.Report, error) {
		return &report.Report{SeriesID: s.ID, Notes: []string{"VM suite not configured on this bot (runner.tree is empty)"}}, nil
	}}
	e := newEnv(t, Options{Workers: 2, Commander: h, Commands: CommandOptions{Enabled: true, Trust: []TrustOptions{
		{List: "*", Maintainers: []string{"Maint Ainer <maint@example.org>"}, Author: true},
	}}}, deliver.Options{}, nil, nil)
	e.an.real = an
	return e
}

// replyTo returns the reply of the outbox that answers the given
// Message-ID (nil if none) and how many do.
func replyTo(t *testing.T, e *testEnv, id string) (*mail.Message, int) {
	t.Helper()
	var got *mail.Message
	n := 0
	for _, m := range outboxMails(t, filepath.Join(e.dir, "outbox")) {
		if m.InReplyTo == id {
			got = m
			n++
		}
	}
	return got, n
}

// TestCommandsReplay: the whole conversation through replay: v1 gets
// its reply with two findings; the maintainer's "#autosel ignore" is
// confirmed; v2, replayed with it, is reported against v1 (one finding
// fixed, none new) without the ignored one; an untrusted sender is
// refused once for two commands; unknown commands and help are answered;
// replaying the same mails again runs nothing.
func TestCommandsReplay(t *testing.T) {
	e := commandEnv(t)
	ctx := context.Background()
	dir := t.TempDir()
	subject := "[PATCH] foo: take the config mutex in the fast paths"
	v1 := writeMbox(t, dir, "v1.mbox", fooPatch(1, "Mon, 2 Jan 2024 10:00:00 +0000"))
	if _, err := e.d.Replay(ctx, []string{v1}); err != nil {
		t.Fatal(err)
	}
	r1, n := replyTo(t, e, "v1.foo@example.org")
	if n != 1 {
		t.Fatalf("%d replies to v1", n)
	}
	ids := findingIDRE.FindAllStringSubmatch(r1.Body, -1)
	if len(ids) != 2 || !strings.Contains(r1.Body, "foo_a()") || !strings.Contains(r1.Body, "foo_b()") {
		t.Fatalf("v1 reply:\n%s", r1.Body)
	}
	idA, idB := ids[0][1], ids[1][1]
	if !strings.Contains(r1.Body, "[risk] sleep-in-atomic: drivers/misc/foo.c:11 foo_a()\n    Finding id: "+idA) {
		idA, idB = idB, idA
	}
	refs := "<v1.foo@example.org>"
	mails := []string{
		commandMail("ignore.1@example.org", "Maint Ainer <maint@example.org>", subject, r1.MessageID, refs, "Mon, 2 Jan 2024 11:00:00 +0000",
			"> bot text\n\n#autosel ignore "+idA+" the config mutex is never contended here\n"),
		commandMail("test.1@example.org", "Some One <someone@example.net>", subject, r1.MessageID, refs, "Mon, 2 Jan 2024 11:01:00 +0000",
			"#autosel test\n"),
		commandMail("test.2@example.org", "Some One <someone@example.net>", subject, r1.MessageID, refs, "Mon, 2 Jan 2024 11:02:00 +0000",
			"#autosel test again\n"),
		commandMail("misc.1@example.org", "Dev Eloper <dev@example.org>", subject, "v1.foo@example.org", "", "Mon, 2 Jan 2024 11:03:00 +0000",
			"#autosel frobnicate\n#autosel help\n#autosel explain "+idB+"\n#autosel test v9.9\n"),
		fooPatch(2, "Tue, 3 Jan 2024 10:00:00 +0000"),
	}
	rest := writeMbox(t, dir, "rest.mbox", mails...)
	st, err := e.d.Replay(ctx, []string{rest})
	if err != nil {
		t.Fatal(err)
	}
	if st.Commands[store.CommandDone] != 2 || st.Commands[store.CommandRefused] != 2 {
		t.Errorf("commands %v, want 2 done, 2 refused", st.Commands)
	}
	// The ignore is confirmed and recorded for the lineage.
	if r, n := replyTo(t, e, "ignore.1@example.org"); n != 1 || !strings.Contains(r.Body, "> #autosel ignore "+idA) ||
		!strings.Contains(r.Body, "Finding "+idA+" (sleep-in-atomic: drivers/misc/foo.c:11 foo_a()) will not be reported again") {
		t.Errorf("%d answers to the ignore:\n%v", n, r)
	}
	igs, err := e.st.Ignores(ctx, "v1.foo@example.org#v1")
	if err != nil || len(igs) != 1 || igs[0].FindingID != idA || igs[0].By != "Maint Ainer <maint@example.org>" {
		t.Errorf("ignores %+v %v", igs, err)
	}
	// v2: 1 fixed, 0 new, the ignored finding counted, not reported.
	r2, n := replyTo(t, e, "v2.foo@example.org")
	if n != 1 {
		t.Fatalf("%d replies to v2", n)
	}
	for _, want := range []string{
		"Changes since v1 <v1.foo@example.org>:\n    1 fixed, 0 new, 0 unchanged (findings matched by id)\n",
		"    fixed: " + idB + " sleep-in-atomic: drivers/misc/foo.c foo_b(): ",
		"No findings reported; 1 finding suppressed, not reported (by #autosel\n    ignore by Maint Ainer <maint@example.org>)",
		"How to reproduce:\n",
	} {
		if !strings.Contains(r2.Body, want) {
			t.Errorf("v2 reply lacks %q:\n%s", want, r2.Body)
		}
	}
	if strings.Contains(r2.Body, idA) || strings.Contains(r2.Body, "[risk]") {
		t.Errorf("v2 reply reports the ignored finding:\n%s", r2.Body)
	}
	if r2.References[len(r2.References)-1] != "v2.foo@example.org" {
		t.Errorf("v2 reply not threaded: %v", r2.References)
	}
	// One refusal for two commands, to the sender alone.
	r, n1 := replyTo(t, e, "test.1@example.org")
	_, n2 := replyTo(t, e, "test.2@example.org")
	if n1+n2 != 1 || r == nil || !strings.Contains(r.Body, "your\ncommand was not run") || len(r.To) != 1 || len(r.Cc) != 0 {
		t.Errorf("refusals: %d + %d\n%v", n1, n2, r)
	}
	// The author's mail: unknown command, help, explain, an unknown tree.
	r, n = replyTo(t, e, "misc.1@example.org")
	if n != 1 {
		t.Fatalf("%d answers to the author", n)
	}
	for _, want := range []string{
		"> #autosel frobnicate\nUnknown command: \"#autosel frobnicate\" is none of mine.",
		"> #autosel help\nThe commands I know:\n    #autosel test [tree ...]",
		"> #autosel explain " + idB + "\n[risk] sleep-in-atomic: drivers/misc/foo.c:20 foo_b()\n    Finding id: " + idB,
		"> #autosel test v9.9\nI know no stable tree v9.9 (mine: none); nothing was run.",
	} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("answer lacks %q:\n%s", want, r.Body)
		}
	}
	if r.References[0] != "v1.foo@example.org" || r.InReplyTo != "misc.1@example.org" {
		t.Errorf("answer threading: %s %v", r.InReplyTo, r.References)
	}
	for _, l := range strings.Split(r.Body, "\n") {
		if strings.HasPrefix(l, "#autosel") {
			t.Errorf("the answer has a command line %q", l)
		}
	}
	// Again: nothing new.
	before := len(outboxMails(t, filepath.Join(e.dir, "outbox")))
	if _, err := e.d.Replay(ctx, []string{v1, rest}); err != nil {
		t.Fatal(err)
	}
	if after := len(outboxMails(t, filepath.Join(e.dir, "outbox"))); after != before {
		t.Errorf("replaying again made %d replies more", after-before)
	}
	os.RemoveAll(dir)
}
