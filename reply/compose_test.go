package reply

import (
	"bytes"
	"net/mail"
	"strings"
	"testing"

	amail "github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/stable/stabletest"
)

const coverMail = `From: Jane Dev <jane@example.org>
To: Maintainer <maint@example.org>
Cc: linux-fsdevel@vger.kernel.org, LKML <linux-kernel@vger.kernel.org>
Subject: [PATCH v2 0/2] pipe: wake-up fixes
Date: Mon, 2 Mar 2020 10:00:00 +0000
Message-Id: <cover.v2@example.org>
In-Reply-To: <cover.v1@example.org>
References: <cover.v1@example.org>

Two fixes.
`

const patch1Mail = `From: Jane Dev <jane@example.org>
To: Maintainer <maint@example.org>
Cc: linux-fsdevel@vger.kernel.org, LKML <linux-kernel@vger.kernel.org>, Linus <torvalds@xxxxxxxxxxxxxxxxxxxx>
Subject: [PATCH v2 1/2] pipe: wake all readers on release
Date: Mon, 2 Mar 2020 10:00:01 +0000
Message-Id: <p1.v2@example.org>
In-Reply-To: <cover.v2@example.org>
References: <cover.v1@example.org> <cover.v2@example.org>

Readers waiting exclusively must all see EOF.

Fixes: 0ddad21d3e99 ("pipe: use exclusive waits when reading or writing")
Reported-by: Andrei Vagin <avagin@example.com>
Reviewed-by: Rev Iewer <rev@example.net>
Signed-off-by: Jane Dev <jane@example.org>
Cc: stable@vger.kernel.org # 5.5+
Cc: autosel-bot <autosel-bot@example.org>
---
 fs/pipe.c | 2 +-

diff --git a/fs/pipe.c b/fs/pipe.c
--- a/fs/pipe.c
+++ b/fs/pipe.c
@@ -1,3 +1,3 @@
 a
-b
+c
 d
`

const patch2Mail = `From: Jane Dev <jane@example.org>
To: Maintainer <maint@example.org>
Cc: linux-fsdevel@vger.kernel.org
Subject: [PATCH v2 2/2] pipe: take the mutex in post_one_notification()
Date: Mon, 2 Mar 2020 10:00:02 +0000
Message-Id: <p2.v2@example.org>
In-Reply-To: <cover.v2@example.org>
References: <cover.v1@example.org> <cover.v2@example.org>

Use the pipe mutex.

Signed-off-by: Jane Dev <jane@example.org>
Acked-by: Ack Er <acker@example.com>
---
diff --git a/kernel/watch_queue.c b/kernel/watch_queue.c
--- a/kernel/watch_queue.c
+++ b/kernel/watch_queue.c
@@ -1,3 +1,3 @@
 a
-b
+c
 d
`

func testSeries(t testing.TB) (*series.Series, *amail.Message, *amail.Message, *amail.Message) {
	cover := stabletest.ParseMail(t, coverMail)
	p1 := stabletest.ParseMail(t, patch1Mail)
	p2 := stabletest.ParseMail(t, patch2Mail)
	s := &series.Series{ID: cover.MessageID, Title: "pipe: wake-up fixes", Author: cover.From, Version: 2, Total: 2,
		Cover: cover, Patches: []*series.Patch{{Msg: p1, Number: 1}, {Msg: p2, Number: 2}}}
	return s, cover, p1, p2
}

var riskFinding = report.Finding{
	Rule: "sleep-in-atomic", Severity: report.SeverityRisk, Patch: 2,
	File: "kernel/watch_queue.c", Func: "post_one_notification", Line: 99,
	Key:         "pipe->mutex",
	Message:     "__pipe_lock() may sleep (mutex_lock_nested) but callers hold a spinlock and rcu_read_lock()",
	Explanation: "post_one_notification() is called from __post_watch_notification() under rcu_read_lock() and from remove_watch_from_object() inside an RCU read-side critical section; a mutex cannot be taken there.",
	Evidence:    []string{"+\t__pipe_lock(pipe);"},
	Old:         []string{"-\tspin_lock_irq(&pipe->rd_wait.lock);"},
	Chain: []report.Step{
		{Func: "__post_watch_notification", File: "kernel/watch_queue.c", Line: 210, What: "rcu_read_lock()"},
		{Func: "__post_watch_notification", File: "kernel/watch_queue.c", Line: 224, What: "calls post_one_notification()"},
		{Func: "post_one_notification", File: "kernel/watch_queue.c", Line: 99, What: "calls __pipe_lock()"},
		{Func: "__pipe_lock", File: "fs/pipe.c", Line: 88, What: "mutex_lock_nested() may sleep"},
	},
}

var noteFinding = report.Finding{
	Rule: "wakeup-exclusive", Severity: report.SeverityNote, File: "fs/pipe.c", Func: "pipe_read", Line: 412,
	Key: "pipe_inode_info.rd_wait", Message: "readers now wait exclusively on rd_wait",
	Evidence: []string{"+\t\tif (wait_event_interruptible_exclusive(pipe->rd_wait, pipe_readable(pipe)) < 0)"},
}

func testReport(s *series.Series) *report.Report {
	p1, p2 := s.Patches[0].Msg, s.Patches[1].Msg
	return &report.Report{
		SeriesID: s.ID, Title: s.Title, Version: 2, Total: 2,
		Patches: []report.PatchReport{
			{Number: 1, Subject: p1.Subject.Raw, MessageID: p1.MessageID, Findings: []report.Finding{noteFinding},
				Stable: &report.StableReport{
					Reason:   "This commit has been processed because it contains a -stable tag.\nThe stable tag indicates that it's relevant for the following trees: 5.5+",
					Relevant: "5.5+", Kind: "stable-tag",
					Trees: []report.TreeResult{
						{Name: "v6.1.192", Applied: true, Build: "ok"},
						{Name: "v5.15.90", Applied: true, Build: "failed", BuildErrors: []string{"fs/pipe.c:412:9: error: implicit declaration of function 'pipe_readable'"}},
						{Name: "v5.10.200", Dependencies: []report.Commit{{SHA: "0ddad21d3e99c743a3aa473121dc5561679e26bb", Subject: "pipe: use exclusive waits when reading or writing"}},
							Prerequisites: []report.Commit{{SHA: "0ddad21d3e99c743a3aa473121dc5561679e26bb", Subject: "pipe: use exclusive waits when reading or writing"}},
							FailedHunks:   []string{"fs/pipe.c:412"}},
						{Name: "v5.5.19", Present: &report.Commit{SHA: "1234567890abcdef1234", Subject: "pipe: wake all readers on release"}},
						{Name: "v5.4.290", DepsUnknown: true, Backports: []report.Backport{{Tree: "v5.5.19", Commit: report.Commit{SHA: "1234567890abcdef1234", Subject: "pipe: wake all readers on release"}}}},
					},
				}},
			{Number: 2, Subject: p2.Subject.Raw, MessageID: p2.MessageID, Findings: []report.Finding{riskFinding}},
		},
		VM: &report.VMReport{Tree: "v6.1.192", Build: "ok", Tests: []report.VMTest{
			{Name: "pipe-eof-two-readers", Baseline: "pass", Patched: "hang", Regression: true, Splat: "INFO: task reader:123 blocked for more than 120 seconds."},
			{Name: "pipe-throughput", Baseline: "pass", Patched: "pass", Detail: "1.2 GB/s -> 1.3 GB/s"},
			{Name: "epoll-basic", Baseline: "pass", Patched: "pass"},
			{Name: "splice-basic", Baseline: "pass", Patched: "pass"},
		}},
	}
}

func TestComposeSeriesWithCover(t *testing.T) {
	s, cover, _, p2 := testSeries(t)
	r := testReport(s)
	opts := sashaOptions()
	mails, err := Compose(r, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Series reply to the cover letter, plus one reply to each patch with
	// findings (both here).
	if len(mails) != 3 {
		t.Fatalf("%d mails, want 3", len(mails))
	}
	m := mails[0]
	if m.InReplyTo != cover.MessageID || strings.Join(m.References, " ") != "cover.v1@example.org cover.v2@example.org" {
		t.Errorf("threading: in-reply-to %q references %q", m.InReplyTo, m.References)
	}
	if mails[2].InReplyTo != p2.MessageID || strings.Join(mails[2].References, " ") != "cover.v1@example.org cover.v2@example.org p2.v2@example.org" {
		t.Errorf("patch 2 threading: %q %q", mails[2].InReplyTo, mails[2].References)
	}
	ids := map[string]bool{}
	for _, m := range mails {
		ids[m.MessageID] = true
	}
	if len(ids) != 3 {
		t.Errorf("message ids not distinct: %v", ids)
	}
	again, _ := Compose(r, s, opts)
	for i := range mails {
		if again[i].MessageID != mails[i].MessageID {
			t.Errorf("message id not deterministic: %s vs %s", again[i].MessageID, mails[i].MessageID)
		}
	}
	golden(t, "series-cover.golden", mails[0].String())
	golden(t, "series-patch1.golden", mails[1].Body)
	golden(t, "series-patch2.golden", mails[2].String())
}

func TestMailBytes(t *testing.T) {
	s, _, _, _ := testSeries(t)
	s.Cover.Subject.Raw = "[PATCH v2 0/2] pipe: wäke-up fixes\r\nBcc: victim@example.com"
	mails, err := Compose(testReport(s), s, sashaOptions())
	if err != nil {
		t.Fatal(err)
	}
	raw := mails[0].Bytes()
	if bytes.Contains(bytes.ReplaceAll(raw, []byte("\r\n"), nil), []byte("\n")) {
		t.Error("bare LF in a CRLF message")
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if msg.Header.Get("Bcc") != "" {
		t.Error("header injection through the subject")
	}
	dec := new(mimeDecoder)
	if subj, _ := dec.decode(msg.Header.Get("Subject")); !strings.HasPrefix(subj, "Re: [PATCH v2 0/2] pipe: wäke-up fixes") {
		t.Errorf("subject %q", subj)
	}
	for _, h := range []string{"Message-ID", "In-Reply-To", "References", "Date", "From", "To", "Cc"} {
		if msg.Header.Get(h) == "" {
			t.Errorf("missing %s", h)
		}
	}
	if msg.Header.Get("Auto-Submitted") != "auto-generated" || !strings.HasPrefix(msg.Header.Get("X-Autosel-Bot"), "autosel-bot") {
		t.Errorf("bot headers: %q %q", msg.Header.Get("Auto-Submitted"), msg.Header.Get("X-Autosel-Bot"))
	}
	for _, l := range strings.Split(string(raw), "\r\n") {
		if len(l) > 998 {
			t.Errorf("line over 998 octets")
		}
	}
	if _, err := msg.Header.AddressList("Cc"); err != nil {
		t.Errorf("Cc does not parse: %v", err)
	}
}

func TestNoStableTagAnalysisOnly(t *testing.T) {
	p2 := stabletest.ParseMail(t, patch2Mail)
	s := &series.Series{ID: p2.MessageID, Version: 2, Total: 1, Patches: []*series.Patch{{Msg: p2, Number: 1}}}
	r := &report.Report{SeriesID: s.ID, Total: 1, Patches: []report.PatchReport{{Number: 1, Subject: p2.Subject.Raw, MessageID: p2.MessageID, Findings: []report.Finding{riskFinding}}}}
	mails, err := Compose(r, s, sashaOptions())
	if err != nil || len(mails) != 1 {
		t.Fatalf("%v, %d mails", err, len(mails))
	}
	body := mails[0].Body
	for _, no := range []string{"stable tag", "The bot has tested", "NOTE:", proceed} {
		if strings.Contains(body, no) {
			t.Errorf("analysis-only reply contains %q", no)
		}
	}
	golden(t, "analysis-only.golden", body)
}

func TestNothingToSay(t *testing.T) {
	p2 := stabletest.ParseMail(t, patch2Mail)
	s := &series.Series{ID: p2.MessageID, Version: 1, Total: 1, Patches: []*series.Patch{{Msg: p2, Number: 1}}}
	r := &report.Report{SeriesID: s.ID, Total: 1, Patches: []report.PatchReport{{Number: 1, Subject: p2.Subject.Raw, MessageID: p2.MessageID,
		Findings: []report.Finding{noteFinding}}}}
	opts := sashaOptions()
	opts.Notes = false // only notes: nothing to say
	mails, err := Compose(r, s, opts)
	if err != nil || len(mails) != 0 {
		t.Fatalf("%v, %d mails, want none", err, len(mails))
	}
	var b bytes.Buffer
	if err := Render(&b, r, s, opts); err != nil || b.Len() != 0 {
		t.Errorf("Render wrote %q (%v)", b.String(), err)
	}
	opts.SkipEmpty = false
	if mails, _ := Compose(r, s, opts); len(mails) != 1 {
		t.Errorf("SkipEmpty off: %d mails, want 1", len(mails))
	}
}

func TestPerPatchOff(t *testing.T) {
	s, _, _, _ := testSeries(t)
	opts := sashaOptions()
	opts.PerPatch = false
	mails, err := Compose(testReport(s), s, opts)
	if err != nil || len(mails) != 1 {
		t.Fatalf("%v, %d mails, want 1", err, len(mails))
	}
	if !strings.Contains(mails[0].Body, "Call chain:") {
		t.Error("series reply lacks the findings in full when per-patch replies are off")
	}
}

func TestMessageID(t *testing.T) {
	a := MessageID("x@y", 1, 0, "d")
	for _, b := range []string{MessageID("x@y", 2, 0, "d"), MessageID("x@y", 1, 1, "d"), MessageID("x@z", 1, 0, "d")} {
		if a == b {
			t.Errorf("collision %s", a)
		}
	}
	if a != MessageID("<x@y>", 1, 0, "d") {
		t.Error("angle brackets change the id")
	}
	if _, err := mail.ParseAddress("<" + a + ">"); err != nil {
		t.Errorf("id %s is not addr-spec shaped: %v", a, err)
	}
}

// TestComposeNoCover: without a cover letter the series reply goes to
// patch 1 and carries its findings in full; patch 2 gets its own reply.
func TestComposeNoCover(t *testing.T) {
	s, _, p1, p2 := testSeries(t)
	s.Cover = nil
	s.ID = p1.MessageID
	r := testReport(s)
	mails, err := Compose(r, s, sashaOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(mails) != 2 || mails[0].InReplyTo != p1.MessageID || mails[1].InReplyTo != p2.MessageID {
		t.Fatalf("%d mails: %+v", len(mails), mails)
	}
	body := mails[0].Body
	for _, want := range []string{"Stable trees (patch x tree):", "[note] wakeup-exclusive: fs/pipe.c:412 pipe_read()",
		"    [PATCH v2 2/2] pipe: take the mutex in post_one_notification(): 1 risk"} {
		if !strings.Contains(body, want) {
			t.Errorf("series reply lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "Call chain:") {
		t.Error("patch 2's findings in full in the series reply; they belong to its own reply")
	}
	if !strings.Contains(mails[1].Body, "Call chain:") {
		t.Error("patch 2's reply lacks its findings")
	}
}

func TestComposeRecipientCap(t *testing.T) {
	s, _, _, _ := testSeries(t)
	r := testReport(s)
	opts := sashaOptions()
	opts.MaxRecipients = 4
	opts.TrailerRecipients = true // enough recipients to cap
	opts.KeepLists = []string{"<linux-kernel.vger.kernel.org>"}
	mails, err := Compose(r, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	m := mails[0]
	var to, cc []string
	for _, a := range m.To {
		to = append(to, a.Address)
	}
	for _, a := range m.Cc {
		cc = append(cc, a.Address)
	}
	// The author, the kept list and stable first; then the first other.
	if got, want := strings.Join(to, ","), "jane@example.org,avagin@example.com"; got != want {
		t.Errorf("To %s, want %s", got, want)
	}
	if got, want := strings.Join(cc, ","), "linux-kernel@vger.kernel.org,stable@vger.kernel.org"; got != want {
		t.Errorf("Cc %s, want %s", got, want)
	}
	if got, want := strings.Join(m.Dropped, ","), "rev@example.net,acker@example.com,maint@example.org,linux-fsdevel@vger.kernel.org"; got != want {
		t.Errorf("Dropped %s, want %s", got, want)
	}
	if raw := m.Bytes(); bytes.Contains(raw, []byte("maint@example.org")) || !bytes.Contains(raw, []byte("linux-kernel@vger.kernel.org")) {
		t.Errorf("mail headers do not carry the capped recipients:\n%s", raw)
	}
}

func TestComposePatchReplyCap(t *testing.T) {
	s, _, _, _ := testSeries(t)
	r := testReport(s)
	all, err := Compose(r, s, sashaOptions())
	if err != nil {
		t.Fatal(err)
	}
	opts := sashaOptions()
	opts.MaxPatchReplies = 1
	capped, err := Compose(r, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 3 || len(capped) != 2 {
		t.Fatalf("%d replies uncapped, %d capped; want at least 3 and 2", len(all), len(capped))
	}
	// The patch beyond the cap is reported in full in the series reply.
	if len(capped[0].Body) <= len(all[0].Body) {
		t.Errorf("series reply (%d bytes) does not carry the folded patch (uncapped: %d bytes)", len(capped[0].Body), len(all[0].Body))
	}
}

// TestTableCells checks the summary cell of each stable outcome, and that
// the REFUSED legend appears only when a cell uses it.
func TestTableCells(t *testing.T) {
	tests := []struct {
		tree report.TreeResult
		want string
	}{
		{report.TreeResult{Name: "t", Applied: true, Build: "ok"}, cellOK},
		{report.TreeResult{Name: "t", Applied: true}, cellApplied},
		{report.TreeResult{Name: "t", Applied: true, Build: "failed"}, cellBuild},
		{report.TreeResult{Name: "t", Applied: true, Build: "refused", BuildErrors: []string{"refused", "scripts/x.c: host code"}}, cellRefused},
		{report.TreeResult{Name: "t"}, cellFail},
		{report.TreeResult{Name: "t", Prerequisites: []report.Commit{{SHA: "abc"}}}, cellPrereq},
		{report.TreeResult{Name: "t", Present: &report.Commit{SHA: "abc"}}, cellPresent},
		{report.TreeResult{Name: "t", Error: "bad ref"}, cellError},
	}
	for _, tc := range tests {
		p := &report.PatchReport{Number: 1, Stable: &report.StableReport{Trees: []report.TreeResult{tc.tree}}}
		if got := cell(p, "t"); got != tc.want {
			t.Errorf("%+v: cell %q, want %q", tc.tree, got, tc.want)
		}
		var b strings.Builder
		writeTable(&b, &report.Report{Total: 1}, []*report.PatchReport{p})
		if legend := strings.Contains(b.String(), cellRefused+": "); legend != (tc.want == cellRefused) {
			t.Errorf("%+v: REFUSED legend shown %v in\n%s", tc.tree, legend, b.String())
		}
	}
}

// TestComposeUnknownSender: a patch whose author has no address (git
// format-patch of a commit without one) gets its reply, to the lists and
// the trailers' people, never to the stand-in address or another one in
// .invalid.
func TestComposeUnknownSender(t *testing.T) {
	raw := strings.Replace(patch1Mail, "From: Jane Dev <jane@example.org>", "From: Stephen M. Cameron <StephenM.Cameron>", 1)
	raw = strings.Replace(raw, "Reviewed-by: Rev Iewer <rev@example.net>", "Reviewed-by: Rev Iewer <rev@example.net>\nTested-by: Nobody <nobody@test.invalid>", 1)
	p1 := stabletest.ParseMail(t, raw)
	if p1.From.Name != "Stephen M. Cameron" || !strings.HasSuffix(p1.From.Addr, ".invalid") {
		t.Fatalf("From = %+v, want the name and a stand-in address", p1.From)
	}
	s := &series.Series{ID: p1.MessageID, Title: "pipe: wake all readers on release", Author: p1.From, Version: 2, Total: 1,
		Patches: []*series.Patch{{Msg: p1, Number: 1}}}
	r := &report.Report{SeriesID: s.ID, Title: s.Title, Version: 2, Total: 1,
		Patches: []report.PatchReport{{Number: 1, Subject: p1.Subject.Raw, MessageID: p1.MessageID, Findings: []report.Finding{riskFinding}}}}
	mails, err := Compose(r, s, sashaOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(mails) == 0 {
		t.Fatal("no reply")
	}
	for _, m := range mails {
		for _, a := range append(append([]*mail.Address(nil), m.To...), m.Cc...) {
			if strings.HasSuffix(a.Address, ".invalid") {
				t.Errorf("reply %s is addressed to %s", m.Subject, a.Address)
			}
		}
		if len(m.To)+len(m.Cc) == 0 {
			t.Errorf("reply %s has no recipient", m.Subject)
		}
	}
}

func TestUndeliverable(t *testing.T) {
	for addr, want := range map[string]bool{
		amail.UnknownSender:         true,
		"x@invalid":                 true,
		"x@git.autosel-bot.invalid": true,
		"jane@example.org":          false,
		"x@invalid.example.org":     false,
		"x@notinvalid":              false,
	} {
		if got := undeliverable(addr); got != want {
			t.Errorf("undeliverable(%q) = %v, want %v", addr, got, want)
		}
	}
}
