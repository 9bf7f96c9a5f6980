package reply

import (
	"net/mail"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/stable/stabletest"
)

// bareAddrs is the bare addresses of as, comma-separated.
func bareAddrs(as []*mail.Address) string {
	var out []string
	for _, a := range as {
		out = append(out, a.Address)
	}
	return strings.Join(out, ",")
}

// TestComposeRecipients: replies go reply-all to the patch mail (To its
// sender, Cc its To and Cc) plus the stable list when stable trees were
// tested; the trailers' people only with TrailerRecipients; never the bot
// (a Cc: trailer) nor the archive-obfuscated address.
func TestComposeRecipients(t *testing.T) {
	lists := "maint@example.org,linux-fsdevel@vger.kernel.org,linux-kernel@vger.kernel.org"
	tests := []struct {
		name     string
		trailers bool
		mail     int
		to, cc   string
	}{
		{"series", false, 0, "jane@example.org", lists + ",stable@vger.kernel.org"},
		{"patch 1", false, 1, "jane@example.org", lists + ",stable@vger.kernel.org"},
		// Patch 2 was not tested on stable trees, nor posted to stable@.
		{"patch 2", false, 2, "jane@example.org", "maint@example.org,linux-fsdevel@vger.kernel.org"},
		{"series with trailers", true, 0, "jane@example.org,avagin@example.com,rev@example.net,acker@example.com", lists + ",stable@vger.kernel.org"},
		{"patch 1 with trailers", true, 1, "jane@example.org,avagin@example.com,rev@example.net", lists + ",stable@vger.kernel.org"},
		{"patch 2 with trailers", true, 2, "jane@example.org,acker@example.com", "maint@example.org,linux-fsdevel@vger.kernel.org"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, _, _ := testSeries(t)
			opts := sashaOptions()
			opts.TrailerRecipients = tt.trailers
			mails, err := Compose(testReport(s), s, opts)
			if err != nil {
				t.Fatal(err)
			}
			m := mails[tt.mail]
			if got := bareAddrs(m.To); got != tt.to {
				t.Errorf("To: %s\nwant %s", got, tt.to)
			}
			if got := bareAddrs(m.Cc); got != tt.cc {
				t.Errorf("Cc: %s\nwant %s", got, tt.cc)
			}
		})
	}
}

// autoselMail is an AUTOSEL posting: sent by the stable maintainer To
// stable@ and the original lists, the patch's author in an in-body From:.
const autoselMail = `From: Sasha Levin <sashal@kernel.org>
To: linux-kernel@vger.kernel.org, stable@vger.kernel.org
Cc: Jane Dev <jane@example.org>, linux-fsdevel@vger.kernel.org
Subject: [PATCH AUTOSEL 5.10 03/12] pipe: wake all readers on release
Date: Mon, 2 Mar 2020 10:00:01 +0000
Message-Id: <autosel-3@kernel.org>

From: Author Person <author@example.com>

[ Upstream commit 0123456789abcdef0123456789abcdef01234567 ]

Readers waiting exclusively must all see EOF.

Reviewed-by: Rev Iewer <rev@example.net>
Signed-off-by: Author Person <author@example.com>
Signed-off-by: Sasha Levin <sashal@kernel.org>
---
diff --git a/fs/pipe.c b/fs/pipe.c
--- a/fs/pipe.c
+++ b/fs/pipe.c
@@ -1,3 +1,3 @@
 a
-b
+c
 d
`

// TestComposeRecipientsAutosel: the reply to an AUTOSEL posting goes to
// its sender and the patch author, and keeps stable@ (the posting went
// there) without stable trees tested.
func TestComposeRecipientsAutosel(t *testing.T) {
	msg := stabletest.ParseMail(t, autoselMail)
	if msg.Author.Addr != "author@example.com" {
		t.Fatalf("Author = %+v, want the in-body From", msg.Author)
	}
	s := &series.Series{ID: msg.MessageID, Title: "pipe: wake all readers on release", Author: msg.From, Version: 1, Total: 1,
		Patches: []*series.Patch{{Msg: msg, Number: 1}}}
	r := &report.Report{SeriesID: s.ID, Title: s.Title, Version: 1, Total: 1,
		Patches: []report.PatchReport{{Number: 1, Subject: msg.Subject.Raw, MessageID: msg.MessageID, Findings: []report.Finding{riskFinding}}}}
	r.Patches[0].Findings[0].Patch = 1
	mails, err := Compose(r, s, sashaOptions())
	if err != nil || len(mails) != 1 {
		t.Fatalf("Compose: %v, %d mails", err, len(mails))
	}
	m := mails[0]
	if got, want := bareAddrs(m.To), "sashal@kernel.org,author@example.com"; got != want {
		t.Errorf("To: %s\nwant %s", got, want)
	}
	if got, want := bareAddrs(m.Cc), "linux-kernel@vger.kernel.org,stable@vger.kernel.org,jane@example.org,linux-fsdevel@vger.kernel.org"; got != want {
		t.Errorf("Cc: %s\nwant %s", got, want)
	}
}

// TestComposeAlwaysTo: a patch whose sender has no deliverable address
// gets a reply To the first of its other recipients, never one with Cc
// only.
func TestComposeAlwaysTo(t *testing.T) {
	raw := strings.Replace(patch2Mail, "From: Jane Dev <jane@example.org>", "From: Stephen M. Cameron <StephenM.Cameron>", 1)
	msg := stabletest.ParseMail(t, raw)
	s := &series.Series{ID: msg.MessageID, Title: "t", Author: msg.From, Version: 1, Total: 1,
		Patches: []*series.Patch{{Msg: msg, Number: 1}}}
	r := &report.Report{SeriesID: s.ID, Title: s.Title, Version: 1, Total: 1,
		Patches: []report.PatchReport{{Number: 1, Subject: msg.Subject.Raw, MessageID: msg.MessageID, Findings: []report.Finding{riskFinding}}}}
	r.Patches[0].Findings[0].Patch = 1
	for _, trailers := range []bool{false, true} {
		opts := sashaOptions()
		opts.TrailerRecipients = trailers
		mails, err := Compose(r, s, opts)
		if err != nil || len(mails) != 1 {
			t.Fatalf("Compose: %v, %d mails", err, len(mails))
		}
		m := mails[0]
		want := "maint@example.org"
		if trailers {
			want = "jane@example.org,acker@example.com" // Signed-off-by, Acked-by
		}
		if got := bareAddrs(m.To); got != want {
			t.Errorf("trailers %v: To %q, want %q (Cc %s)", trailers, got, want, bareAddrs(m.Cc))
		}
		if !strings.Contains(m.String(), "\nTo: ") {
			t.Errorf("trailers %v: no To header:\n%s", trailers, m.String())
		}
	}
}
