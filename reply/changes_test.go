package reply

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/mailcmd"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/stable/stabletest"
)

// TestComposeVersionChanges: the reply to v2 says what changed since v1
// (1 fixed, 0 new, 1 unchanged), names the unchanged finding in one line
// instead of repeating it, counts the ignored one, says how to
// reproduce, and offers no trailers when no risk is mailed in full.
func TestComposeVersionChanges(t *testing.T) {
	p2 := stabletest.ParseMail(t, patch2Mail)
	s := &series.Series{ID: p2.MessageID, Version: 2, Total: 1, Patches: []*series.Patch{{Msg: p2, Number: 1}}}
	fixed, kept, ignored := riskFinding, riskFinding, riskFinding
	fixed.Func, kept.Func, ignored.Func = "fixed_fn", "kept_fn", "ignored_fn"
	prev := &report.Report{SeriesID: "v1@example.org", Version: 1, Total: 1, Patches: []report.PatchReport{{Number: 1,
		Subject: "[PATCH] pipe: take the mutex in post_one_notification()", PatchID: "0123456789",
		Findings: []report.Finding{fixed, kept, ignored}}}}
	r := &report.Report{SeriesID: s.ID, Version: 2, Total: 1, Patches: []report.PatchReport{{Number: 1, Subject: p2.Subject.Raw,
		MessageID: p2.MessageID, PatchID: "abcdef0123", Findings: []report.Finding{kept, ignored}}},
		Reproduce: &report.Reproduce{Base: "bb395d982449ad00d2227d13923176133477f6e2", BaseFrom: report.BaseHead, Tree: "linux-6.1",
			Version: "v1.2.3", Command: "autosel-bot check p2.v2@example.org --tree linux-6.1"}}
	report.AssignIDs(r)
	report.Suppress(r, func(f *report.Finding, _ *report.PatchReport) (string, string, bool, bool) {
		return "#autosel ignore by Maint <maint@example.org>", "known", false, f.Func == "ignored_fn"
	})
	r.Changes = report.Compare(prev, r)
	mails, err := Compose(r, s, sashaOptions())
	if err != nil || len(mails) != 1 {
		t.Fatalf("%v, %d mails", err, len(mails))
	}
	body := mails[0].Body
	keptID := r.Patches[0].Findings[0].ID
	for _, want := range []string{
		"Changes since v1 <v1@example.org>:\n    1 fixed, 0 new, 1 unchanged (findings matched by id)\n",
		"    fixed: " + r.Changes.Fixed[0].ID + " sleep-in-atomic: kernel/watch_queue.c fixed_fn():",
		"    unchanged: " + keptID + " sleep-in-atomic:",
		"(not repeated; see the",
		"        1:  0123456 ! 1:  abcdef0 pipe: take the mutex in post_one_notification()\n",
		"No findings reported; 1 finding suppressed, not reported (by #autosel\n    ignore by Maint <maint@example.org>)",
		"How to reproduce:\n    base: the tree's HEAD at bb395d982449 (linux-6.1)\n    bot: autosel-bot v1.2.3\n    command: autosel-bot check p2.v2@example.org --tree linux-6.1\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("reply lacks %q:\n%s", want, body)
		}
	}
	for _, no := range []string{"[risk] sleep-in-atomic: kernel/watch_queue.c:99 kept_fn()", "ignored_fn", "Reported-by:"} {
		if strings.Contains(body, no) {
			t.Errorf("reply has %q:\n%s", no, body)
		}
	}
	// With nothing else to say, the changes alone make a reply.
	r.Patches[0].Findings, r.Patches[0].Suppressed = nil, nil
	r.Changes = report.Compare(prev, r)
	if mails, err := Compose(r, s, sashaOptions()); err != nil || len(mails) != 1 || !strings.Contains(mails[0].Body, "3 fixed, 0 new, 0 unchanged") {
		t.Errorf("all fixed: %v, %d mails", err, len(mails))
	}
}

// TestComposeTrailers: a risk mailed in full comes with the tags the
// author of a fix may add; the Closes link names the reply itself.
func TestComposeTrailers(t *testing.T) {
	p2 := stabletest.ParseMail(t, patch2Mail)
	s := &series.Series{ID: p2.MessageID, Version: 2, Total: 1, Patches: []*series.Patch{{Msg: p2, Number: 1}}}
	r := &report.Report{SeriesID: s.ID, Total: 1, Patches: []report.PatchReport{{Number: 1, Subject: p2.Subject.Raw, MessageID: p2.MessageID,
		Findings: []report.Finding{riskFinding}}}}
	opts := sashaOptions()
	opts.Commands = true
	mails, err := Compose(r, s, opts)
	if err != nil || len(mails) != 1 {
		t.Fatalf("%v, %d mails", err, len(mails))
	}
	want := "| Reported-by: autosel-bot <autosel-bot@example.org>\n| Closes: https://lore.kernel.org/r/" + mails[0].MessageID + "/\n"
	if !strings.Contains(mails[0].Body, want) {
		t.Errorf("reply lacks %q:\n%s", want, mails[0].Body)
	}
	// With commands on, how to ignore a finding; never a command itself.
	if !strings.Contains(mails[0].Body, "Reply with \"#autosel ignore <finding id> [reason]\" at the start of a line") {
		t.Errorf("reply lacks the commands hint:\n%s", mails[0].Body)
	}
	if cs := mailcmd.Parse(mails[0].Body); len(cs) != 0 {
		t.Errorf("the reply holds commands: %+v", cs)
	}
}
