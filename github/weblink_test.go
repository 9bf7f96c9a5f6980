package github

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// TestReviewWebLinks: with a finding URL, the line comment and the
// summary link each finding's page; without, nothing links.
func TestReviewWebLinks(t *testing.T) {
	p1 := "diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -10,2 +10,3 @@\n x\n+new1\n y\n"
	s := &series.Series{Patches: []*series.Patch{{Number: 1, Msg: &mail.Message{Diff: p1}}}}
	files := fileHunks(p1, "")
	link := func(id string) string { return "https://autosel.example.org/finding/" + id }
	for _, tc := range []struct {
		name string
		link func(string) string
		want bool
	}{
		{"no base url", nil, false},
		{"base url", link, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &report.Report{Patches: []report.PatchReport{{Number: 1, Subject: "[PATCH] a", Findings: []report.Finding{
				{Rule: "r", Severity: report.SeverityRisk, File: "a.c", Func: "f", Line: 11, Message: "in the diff"},
				{Rule: "r", Severity: report.SeverityRisk, File: "b.c", Func: "g", Line: 5, Message: "not in the diff"},
			}}}}
			report.AssignIDs(r)
			rv := buildReview(PullRequest{HeadSHA: "abc"}, r, s, files, false, tc.link)
			if len(rv.Comments) != 1 {
				t.Fatalf("%d comments", len(rv.Comments))
			}
			for i, f := range r.Patches[0].Findings {
				want := "[finding page](<" + link(f.ID) + ">)"
				if got := strings.Contains(rv.Body, want); got != tc.want {
					t.Errorf("finding %d: link in the body %v, want %v:\n%s", i, got, tc.want, rv.Body)
				}
				if i == 0 && strings.Contains(rv.Comments[0].GetBody(), want) != tc.want {
					t.Errorf("line comment link: %s", rv.Comments[0].GetBody())
				}
			}
		})
	}
}
