package botcmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/mailcmd"
	"github.com/autosel-bot/autosel-bot/reply"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

func finding(fn string) report.Finding {
	return report.Finding{Rule: "sleep-in-atomic", Category: "sleep-in-atomic", Severity: report.SeverityRisk, File: "lib/x.c", Line: 10,
		Func: fn, Message: fn + "() may sleep", Evidence: []string{"+\tmsleep(1);"}, Chain: []report.Step{{Func: fn, File: "lib/x.c", Line: 10, What: "msleep(1)"}}}
}

func TestApply(t *testing.T) {
	prev := &report.Report{SeriesID: "v1@x", Version: 1, Patches: []report.PatchReport{{Number: 1, Findings: []report.Finding{finding("a"), finding("b")}}}}
	report.AssignIDs(prev)
	js, _ := json.Marshal(prev)
	cur := &report.Report{SeriesID: "v2@x", Version: 2, Patches: []report.PatchReport{{Number: 1, Findings: []report.Finding{finding("a"), finding("c")}}}}
	report.AssignIDs(cur)
	idA := cur.Patches[0].Findings[0].ID
	h := &History{PrevKey: "v1@x#v1", PrevReport: js, Ignored: []store.Ignore{{FindingID: idA, By: "M <m@x>", Reason: "fine"}}}
	if err := Apply(cur, h); err != nil {
		t.Fatal(err)
	}
	if n := cur.CountSuppressed(); n != 1 || cur.Patches[0].Suppressed[0].By != "#autosel ignore by M <m@x>" || cur.Patches[0].Suppressed[0].Reason != "fine" {
		t.Errorf("suppressed %+v", cur.Patches[0].Suppressed)
	}
	if c := cur.Changes; c == nil || c.Summary() != "1 fixed, 1 new, 0 unchanged" {
		t.Errorf("changes %+v", c)
	}
	if err := Apply(cur, &History{PrevReport: []byte("{")}); err == nil {
		t.Error("a broken previous report gives no error")
	}
	if err := Apply(cur, nil); err != nil {
		t.Error(err)
	}
}

func TestHandle(t *testing.T) {
	rep := &report.Report{SeriesID: "s@x", Version: 2, Patches: []report.PatchReport{{Number: 1, Findings: []report.Finding{finding("a")},
		Suppressed: []report.Suppressed{{Finding: finding("b"), By: "#autosel ignore by M <m@x>"}}}}}
	report.AssignIDs(rep)
	js, _ := json.Marshal(rep)
	idA, idB := rep.Patches[0].Findings[0].ID, rep.Patches[0].Suppressed[0].ID
	msg := &mail.Message{MessageID: "cmd@x", Subject: mail.Subject{Raw: "Re: [PATCH] x"}, From: mail.Address{Name: "M", Addr: "m@x.org"},
		To: []mail.Address{{Addr: "list@x.org"}}, InReplyTo: "bot@x", References: []string{"s@x", "bot@x"}}
	tested := ""
	h := &Handler{Reply: reply.DefaultOptions(), Trees: []string{"v6.1"}, TestCommand: "autosel-bot test --tree linux --patch",
		Test: func(ctx context.Context, s *series.Series, trees []string) (*report.Report, error) {
			tested = strings.Join(trees, ",")
			return &report.Report{SeriesID: s.ID, VM: &report.VMReport{Tree: "linux", Build: "ok"}}, nil
		}}
	body := "#autosel ignore " + strings.ToUpper(idA) + " safe here\n#autosel ignore " + idB + "\n#autosel unignore " + idB +
		"\n#autosel unignore " + idA + "\n#autosel ignore " + idA + " safe after all\n#autosel explain 000000000000\n#autosel ignore\n#autosel explain nothex\n#autosel test v6.1\n#autosel help me\n"
	j := &Job{Msg: msg, Commands: mailcmd.Parse(body), SeriesKey: "s@x#v2", Lineage: "s@x#v1", Version: 2, Report: js,
		Ignored: []store.Ignore{{FindingID: idB, By: "M <m@x>"}},
		Series:  func(context.Context) (*series.Series, error) { return &series.Series{ID: "s@x"}, nil }}
	res, err := h.Handle(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	b := res.Reply.Body
	for _, want := range []string{
		"> #autosel ignore " + strings.ToUpper(idA) + " safe here\nFinding " + idA + " (sleep-in-atomic: lib/x.c:10 a()) will not be reported again",
		"> #autosel ignore " + idB + "\nFinding " + idB + " was already ignored (by M <m@x>)",
		"> #autosel unignore " + idB + "\nFinding " + idB + " (sleep-in-atomic: lib/x.c:10 b()) will be reported again",
		"> #autosel unignore " + idA + "\nFinding " + idA + " (sleep-in-atomic: lib/x.c:10 a()) will be reported again",
		"> #autosel explain 000000000000\nThis series (v2) has no finding 000000000000. Its findings: " + idA + ", " + idB + ".",
		"> #autosel ignore\n\"#autosel ignore\" needs the id of a finding",
		"> #autosel explain nothex\n\"nothex\" is not a finding id",
		"> #autosel test v6.1\nVM regression suite: build ok",
		"    command: autosel-bot test --tree linux --patch s@x\n",
		"> #autosel help me\nThe commands I know:",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("answer lacks %q:\n%s", want, b)
		}
	}
	if tested != "v6.1" {
		t.Errorf("tested on %q", tested)
	}
	// The last word on each finding: A ignored (again), B unignored.
	if len(res.Ignore) != 1 || res.Ignore[0].FindingID != idA || res.Ignore[0].Reason != "safe after all" || res.Ignore[0].By != "M <m@x.org>" ||
		len(res.Unignore) != 1 || res.Unignore[0] != idB {
		t.Errorf("effects: ignore %+v unignore %v", res.Ignore, res.Unignore)
	}
	if res.Reply.InReplyTo != "cmd@x" || res.Reply.References[len(res.Reply.References)-1] != "cmd@x" || len(res.Reply.Cc) != 1 {
		t.Errorf("threading %q %v, cc %v", res.Reply.InReplyTo, res.Reply.References, res.Reply.Cc)
	}
	if res.Reply.MessageID != reply.CommandMessageID("cmd@x", "localhost") {
		t.Errorf("message id %s", res.Reply.MessageID)
	}
	// A refusal goes to the sender alone and runs nothing.
	res, err = h.Handle(context.Background(), &Job{Msg: msg, Commands: j.Commands, Refuse: true, List: "list@x.org"})
	if err != nil || len(res.Ignore) != 0 || len(res.Reply.Cc) != 0 || !strings.Contains(res.Reply.Body, "on list@x.org only") {
		t.Errorf("refusal %v %+v", err, res.Reply)
	}
}
