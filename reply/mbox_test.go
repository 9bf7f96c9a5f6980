package reply

import (
	"bytes"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/report"
)

func TestWriteMbox(t *testing.T) {
	date := time.Date(2020, 5, 1, 2, 55, 29, 0, time.UTC)
	m := func(id, body string) *Mail {
		return &Mail{
			From: &mail.Address{Name: "bot", Address: "bot@example.org"}, To: []*mail.Address{{Address: "a@example.org"}},
			Subject: "Re: [PATCH] x", Date: date, MessageID: id, InReplyTo: "p@example.org", References: []string{"p@example.org"}, Body: body,
		}
	}
	var buf bytes.Buffer
	if err := WriteMbox(&buf, []*Mail{m("r1@example.org", "Hi\nFrom here on\n>From there\n"), m("r2@example.org", "no newline")}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"From bot@example.org Fri May  1 02:55:29 2020\nFrom: \"bot\" <bot@example.org>\n",
		"Message-ID: <r1@example.org>\nIn-Reply-To: <p@example.org>\nReferences: <p@example.org>\n",
		"\n\nHi\n>From here on\n>>From there\n\nFrom bot@example.org ",
		"\n\nno newline\n\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("mbox lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\r") {
		t.Error("CR in mbox")
	}
	if n := strings.Count(out, "\nFrom bot@") + 1; n != 2 {
		t.Errorf("%d messages", n)
	}
}

// TestRecoveredNoteInReply: a reply with findings on a repaired diff says
// so above them.
func TestRecoveredNoteInReply(t *testing.T) {
	r := &report.Report{SeriesID: "p@example.org", Subject: "[PATCH] x", Version: 1, Total: 1, Patches: []report.PatchReport{{
		Number: 1, Subject: "[PATCH] x", MessageID: "p@example.org",
		Findings: []report.Finding{{Rule: "lost-wakeup", Severity: report.SeverityRisk, File: "fs/pipe.c", Func: "f", Line: 3, Message: "m"}},
		Notes:    []string{diffcheck.RecoveredNote + ": re-joined 2 line-wrapped lines (diff lines 7, 13)", "other note"},
	}}}
	var b strings.Builder
	writeOwn(&b, r, []*report.PatchReport{&r.Patches[0]}, false, true, DefaultOptions())
	out := b.String()
	if !strings.Contains(out, "    Note: recovered a mail-damaged diff: re-joined 2 line-wrapped lines\n      (diff lines 7, 13)\n") || strings.Contains(out, "other note") {
		t.Errorf("reply section:\n%s", out)
	}
	if strings.Index(out, "Note:") > strings.Index(out, "[risk]") {
		t.Errorf("note after the findings:\n%s", out)
	}
}
