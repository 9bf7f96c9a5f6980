package reply

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/stable/stabletest"
)

// TestComposeCutsCodeLines: evidence and removed lines wider than 100
// columns are cut in the reply, other lines are not.
func TestComposeCutsCodeLines(t *testing.T) {
	s, _, _, _ := testSeries(t)
	r := testReport(s)
	long := "+\tret = wait_event_interruptible_exclusive(pipe->rd_wait, pipe_readable(pipe) || pipe_has_watch_queue(pipe) || signal_pending(current));"
	r.Patches[1].Findings[0].Evidence = []string{long}
	r.Patches[1].Findings[0].Old = []string{"-" + long[1:]}
	mails, err := Compose(r, s, sashaOptions())
	if err != nil {
		t.Fatal(err)
	}
	var body string
	for _, m := range mails {
		if strings.Contains(m.Body, "Evidence:") {
			body = m.Body
		}
	}
	if body == "" {
		t.Fatal("no reply has the finding")
	}
	if strings.Contains(body, "signal_pending(current));") {
		t.Errorf("long code line quoted whole:\n%s", body)
	}
	for _, prefix := range []string{"        +\tret = wait_event", "        -\tret = wait_event"} {
		found := false
		for _, l := range strings.Split(body, "\n") {
			if strings.HasPrefix(l, prefix) {
				found = true
				if !strings.HasSuffix(l, report.CodeCutMarker) || report.CodeColumns(l, 0) > report.MaxCodeColumns {
					t.Errorf("line not cut at %d columns: %q (%d)", report.MaxCodeColumns, l, report.CodeColumns(l, 0))
				}
			}
		}
		if !found {
			t.Errorf("no line %q in:\n%s", prefix, body)
		}
	}
}

// TestLinkOnlyForPublicIDs: the Link: line is written for a patch with a
// Message-ID of its own, not for one the bot made up (a local file, a
// commit of a range), and neither is a Closes: for such an ID.
func TestLinkOnlyForPublicIDs(t *testing.T) {
	tests := []struct {
		id   string
		link bool
	}{
		{"<p2.v2@example.org>", true},
		{"<0123abcd@autosel-bot.invalid>", false},
		{"<0123abcd@unknown.autosel-bot.invalid>", false},
		{"<deadbeef@git.autosel-bot.invalid>", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			if got := publicID(tt.id); got != tt.link {
				t.Errorf("publicID(%q) = %v, want %v", tt.id, got, tt.link)
			}
			var b strings.Builder
			opts := sashaOptions()
			opts.LoreURL = "https://lore.kernel.org/r/"
			writeTail(&b, &report.Report{}, tt.id, tt.id, true, true, opts)
			if got := strings.Contains(b.String(), "\nLink: "); got != tt.link {
				t.Errorf("Link: written %v, want %v:\n%s", got, tt.link, b.String())
			}
			if got := strings.Contains(b.String(), "| Closes: "); got != tt.link {
				t.Errorf("Closes: written %v, want %v:\n%s", got, tt.link, b.String())
			}
		})
	}
}

// TestComposeNoLinkForLocalFile: a patch read from a file without a
// Message-ID gets a made-up one, and its reply no Link: line.
func TestComposeNoLinkForLocalFile(t *testing.T) {
	s, _, _, p2 := testSeries(t)
	local := stabletest.ParseMail(t, strings.Replace(patch2Mail, "Message-Id: <p2.v2@example.org>\n", "", 1))
	if publicID(local.MessageID) {
		t.Fatalf("message without Message-ID got a public one: %q", local.MessageID)
	}
	s.Cover, s.ID = nil, local.MessageID
	s.Patches = []*series.Patch{{Msg: local, Number: 1}}
	s.Total = 1
	r := &report.Report{SeriesID: s.ID, Title: s.Title, Version: 2, Total: 1,
		Patches: []report.PatchReport{{Number: 1, Subject: p2.Subject.Raw, MessageID: local.MessageID, Findings: []report.Finding{riskFinding}}}}
	r.Patches[0].Findings[0].Patch = 1
	mails, err := Compose(r, s, sashaOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(mails) == 0 {
		t.Fatal("no reply")
	}
	for _, m := range mails {
		if strings.Contains(m.Body, "\nLink: ") || strings.Contains(m.Body, "autosel-bot.invalid") {
			t.Errorf("reply links a made-up Message-ID:\n%s", m.Body)
		}
	}
}
