package reply

import (
	"context"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/stable/stabletest"
)

const reviewMail = `From: Rev Iewer <rev@example.net>
To: Jane Dev <jane@example.org>
Cc: linux-fsdevel@vger.kernel.org
Subject: Re: [PATCH v2 2/2] pipe: take the mutex in post_one_notification()
Date: Mon, 2 Mar 2020 11:00:00 +0000
Message-Id: <review.v2@example.net>
In-Reply-To: <p2.v2@example.org>
References: <cover.v1@example.org> <cover.v2@example.org> <p2.v2@example.org>

Something like this:

diff --git a/kernel/watch_queue.c b/kernel/watch_queue.c
--- a/kernel/watch_queue.c
+++ b/kernel/watch_queue.c
@@ -1,3 +1,3 @@
 a
-b
+c
 d
`

// reviewRisk is the message of the finding on the review's diff.
const reviewRisk = "the reviewer's mutex_lock() may sleep under a spinlock"

// reviewSeries is testSeries with a review reply to patch 2 that
// proposes a diff, and a report with a risk on that diff.
func reviewSeries(t *testing.T) (*series.Series, *report.Report) {
	s, _, _, _ := testSeries(t)
	rv := stabletest.ParseMail(t, reviewMail)
	s.Review = []*series.Patch{{Msg: rv, Number: 2, InReview: true}}
	r := testReport(s)
	f := riskFinding
	f.Message = reviewRisk
	r.Patches = append(r.Patches, report.PatchReport{Number: 2, InReview: true, Subject: rv.Subject.Raw,
		MessageID: rv.MessageID, Findings: []report.Finding{f}})
	return s, r
}

// TestComposeReviewDiffUnderReview: the findings on a diff proposed in a
// review reply are answered under that review (In-Reply-To and the end of
// References, to the reviewer), not under the patch or cover letter;
// beyond max_patch_replies they fold into the series reply.
func TestComposeReviewDiffUnderReview(t *testing.T) {
	const reviewID = "review.v2@example.net"
	tests := []struct {
		name  string
		edit  func(s *series.Series, r *report.Report, o *Options)
		mails int
		// inSeries: the review's findings are in full in the series reply.
		inSeries bool
	}{
		{name: "cover, per patch", mails: 4},
		{name: "cover, no per-patch replies", edit: func(s *series.Series, r *report.Report, o *Options) { o.PerPatch = false }, mails: 2},
		{name: "one patch, no cover", edit: func(s *series.Series, r *report.Report, o *Options) {
			s.Cover, s.ID, s.Patches = nil, s.Patches[1].Msg.MessageID, s.Patches[1:]
			r.Patches = r.Patches[1:]
		}, mails: 2},
		{name: "cap reached by the patches", edit: func(s *series.Series, r *report.Report, o *Options) { o.MaxPatchReplies = 2 }, mails: 3, inSeries: true},
		{name: "only the review has findings", edit: func(s *series.Series, r *report.Report, o *Options) {
			r.Patches[0].Findings, r.Patches[0].Stable, r.Patches[1].Findings, r.VM = nil, nil, nil, nil
			o.SkipEmpty = true
		}, mails: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := reviewSeries(t)
			opts := sashaOptions()
			opts.Notes = true
			if tt.edit != nil {
				tt.edit(s, r, &opts)
			}
			mails, err := Compose(r, s, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(mails) != tt.mails {
				t.Fatalf("%d mails, want %d", len(mails), tt.mails)
			}
			var under []*Mail
			for i, m := range mails {
				switch {
				case m.InReplyTo == reviewID:
					under = append(under, m)
				case strings.Contains(m.Body, reviewRisk) != (tt.inSeries && i == 0):
					t.Errorf("reply %d to %s: review findings in full %v, want %v:\n%s", i, m.InReplyTo, !tt.inSeries, tt.inSeries, m.Body)
				}
			}
			if tt.inSeries {
				if len(under) != 0 {
					t.Errorf("a reply under the review beyond the cap")
				}
				return
			}
			if len(under) != 1 {
				t.Fatalf("%d replies under the review, want 1", len(under))
			}
			m := under[0]
			if got := strings.Join(m.References, " "); got != "cover.v1@example.org cover.v2@example.org p2.v2@example.org "+reviewID {
				t.Errorf("References %q", got)
			}
			if len(m.To) == 0 || m.To[0].Address != "rev@example.net" {
				t.Errorf("To %v, want the reviewer first", m.To)
			}
			if !strings.Contains(m.Body, "proposed in review <"+reviewID+">") || !strings.Contains(m.Body, reviewRisk) {
				t.Errorf("review reply lacks the findings:\n%s", m.Body)
			}
			if m.MessageID != ReviewMessageID(s.ID, s.Version, reviewID, opts.idDomain()) {
				t.Errorf("Message-ID %s", m.MessageID)
			}
			for _, o := range mails {
				if o != m && o.MessageID == m.MessageID {
					t.Errorf("review reply shares Message-ID %s", m.MessageID)
				}
			}
		})
	}
}

// TestReviewDiffRepliedUnderReview follows check --format email and
// watch: seed 000 and a review reply proposing a diff with a
// sleep-in-atomic risk, assembled, analysed without a tree and composed.
// The risk on the review's diff is answered under the review; the reply to
// the patch does not carry it.
func TestReviewDiffRepliedUnderReview(t *testing.T) {
	const reviewID = "review-diff-1@example.com"
	msgs, errs := mail.Load(context.Background(), []string{"../testdata/seeds/000-pipe-exclusive-autosel.mbox", "../testdata/review/000-review-diff.mbox"}, nil)
	if len(errs) > 0 {
		t.Fatalf("load: %v", errs[0])
	}
	ss := series.Assemble(msgs, series.Options{})
	var s *series.Series
	for _, c := range ss {
		for _, p := range c.Review {
			if p.Msg.MessageID == reviewID {
				s = c
			}
		}
	}
	if s == nil {
		t.Fatal("the review diff is in no series")
	}
	an, err := pipeline.NewAnalysis(pipeline.AnalysisOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := (&pipeline.Pipeline{Stages: []pipeline.Stage{an}}).Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	mails, err := Compose(r, s, sashaOptions())
	if err != nil {
		t.Fatal(err)
	}
	const risk = "[risk] sleep-in-atomic: fs/pipe.c:723 pipe_release()"
	found := false
	for _, m := range mails {
		if m.InReplyTo != reviewID {
			if strings.Contains(m.Body, risk) {
				t.Errorf("the review diff's risk is in the reply to <%s>", m.InReplyTo)
			}
			continue
		}
		found = true
		refs := strings.Join(m.References, " ")
		if refs != "20200214154854.6746-1-sashal@kernel.org 20200214154854.6746-542-sashal@kernel.org "+reviewID {
			t.Errorf("References %q", refs)
		}
		if !strings.Contains(m.Body, risk) {
			t.Errorf("reply under the review lacks %q:\n%s", risk, m.Body)
		}
		if len(m.To) == 0 || m.To[0].Address != "reviewer@example.com" {
			t.Errorf("To %v, want the reviewer", m.To)
		}
	}
	if !found {
		t.Fatalf("no reply under the review among %d", len(mails))
	}
}
