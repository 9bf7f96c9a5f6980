package github

import (
	"fmt"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// TestBuildReviewPlacement: findings of an earlier patch are carried
// through later patches' hunks to the PR's final lines; lines the PR diff
// does not show are annotated only; a line a later patch rewrote is
// annotated where it was found; comments are capped.
func TestBuildReviewPlacement(t *testing.T) {
	p1 := "diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -10,2 +10,3 @@\n x\n+new1\n y\n"
	p2 := "diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1,1 +1,3 @@\n top\n+ins1\n+ins2\n@@ -20,1 +22,1 @@\n-old\n+rewritten\n"
	s := &series.Series{Patches: []*series.Patch{{Number: 1, Msg: &mail.Message{Diff: p1}}, {Number: 2, Msg: &mail.Message{Diff: p2}}}}
	r := &report.Report{Patches: []report.PatchReport{
		{Number: 1, Subject: "[PATCH 1/2] a", Findings: []report.Finding{
			{Rule: "r", Severity: report.SeverityRisk, File: "a.c", Func: "f", Line: 11, Message: "added line"},
			{Rule: "r", Severity: report.SeverityRisk, File: "a.c", Func: "f", Line: 20, Message: "rewritten later"},
			{Rule: "r", Severity: report.SeverityNote, File: "a.c", Func: "f", Line: 11, Message: "a note"},
		}},
		{Number: 2, Subject: "[PATCH 2/2] b", Findings: []report.Finding{
			{Rule: "r", Severity: report.SeverityRisk, File: "b.c", Func: "g", Line: 5, Message: "not in the diff"},
		}},
	}}
	// The PR diff: a.c lines 1-3 and 10-14 (after both patches) and 22.
	files := fileHunks("diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1,1 +1,3 @@\n top\n+ins1\n+ins2\n@@ -10,2 +12,3 @@\n x\n+new1\n y\n@@ -20,1 +23,1 @@\n-old\n+rewritten\n", "")
	rv := BuildReview(PullRequest{HeadSHA: "abc"}, r, s, files, false)
	if len(rv.Comments) != 1 || rv.Comments[0].GetPath() != "a.c" || rv.Comments[0].GetLine() != 13 {
		t.Fatalf("comments %+v", rv.Comments)
	}
	if strings.Contains(rv.Comments[0].GetBody(), "a note") {
		t.Error("a note became a line comment without notes")
	}
	var got []string
	for _, a := range rv.Annotations {
		got = append(got, fmt.Sprintf("%s:%d:%s", a.GetPath(), a.GetStartLine(), a.GetAnnotationLevel()))
	}
	if want := "a.c:13:failure a.c:20:failure b.c:5:failure"; strings.Join(got, " ") != want {
		t.Errorf("annotations %v, want %s", got, want)
	}
	if rv.Conclusion != "failure" || rv.Title != "3 risks, 1 note" || !strings.Contains(rv.Body, "not in the diff") || !strings.HasSuffix(rv.Body, marker("abc")+"\n") {
		t.Errorf("conclusion %s title %q body:\n%s", rv.Conclusion, rv.Title, rv.Body)
	}

	// More comment-worthy findings than one review takes.
	var many []report.Finding
	var hunk strings.Builder
	hunk.WriteString("@@ -1,0 +1,80 @@\n")
	for i := 1; i <= 80; i++ {
		many = append(many, report.Finding{Rule: "r", Severity: report.SeverityRisk, File: "c.c", Line: i, Message: fmt.Sprint("m", i)})
		hunk.WriteString("+x\n")
	}
	s2 := &series.Series{Patches: []*series.Patch{{Number: 1, Msg: &mail.Message{Diff: ""}}}}
	r2 := &report.Report{Patches: []report.PatchReport{{Number: 1, Findings: many}}}
	rv = BuildReview(PullRequest{HeadSHA: "def"}, r2, s2, fileHunks(hunk.String(), "c.c"), false)
	if len(rv.Comments) != maxComments || len(rv.Annotations) != 80 || !strings.Contains(rv.Body, "m1 (see the line comment)") || !strings.Contains(rv.Body, "m80") || strings.Contains(rv.Body, "m80 (see") {
		t.Errorf("%d comments, %d annotations", len(rv.Comments), len(rv.Annotations))
	}
}
