package github

import (
	"fmt"
	"sort"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/autosel-bot/autosel-bot/internal/textfmt"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// GitHub's limits on what one review or check run update may carry.
const (
	maxBody             = 60000 // review body and check summary (GitHub: 65536)
	maxAnnotationsPerOp = 50
	// maxComments caps the line comments of one review; further findings
	// are written out in the body (and still annotated).
	maxComments = 50
)

// Review is everything the bot posts for one pull-request head, computed
// once from the report and kept in the store so a restart posts exactly
// the same thing.
type Review struct {
	// Body is the review body (Markdown, ends with the head marker).
	Body string `json:"body"`
	// Comments are the line comments (path, line, side RIGHT).
	Comments []*gh.DraftReviewComment `json:"comments,omitempty"`
	// Conclusion is the check run's: success, neutral or failure.
	Conclusion string `json:"conclusion"`
	// Title and Summary are the check run output.
	Title   string `json:"title"`
	Summary string `json:"summary"`
	// Annotations are the check run annotations.
	Annotations []*gh.CheckRunAnnotation `json:"annotations,omitempty"`
}

// marker is the hidden line that ties a review to its head commit; a
// restart looks for it before posting again.
func marker(head string) string { return "<!-- autosel-bot head=" + head + " -->" }

// place is where a finding lands in the pull request's diff.
type place struct {
	path string
	line int
	// inDiff is set when line is on a changed or context line of the PR
	// diff (a review comment may go there).
	inDiff bool
}

// BuildReview renders the report of a pull-request head as a review and
// a check run. Findings are placed on the PR's final files: the line of a
// finding of patch k (in the file after patch k) is carried through the
// later patches' hunks; findings landing on a line of the PR diff become
// line comments, all located findings become annotations. prFiles are the
// PR diff's per-file hunks (from the pull request's files); notes selects
// note-level findings as well as risks.
func BuildReview(pr PullRequest, r *report.Report, s *series.Series, prFiles map[string][]hunk, notes bool) *Review {
	return buildReview(pr, r, s, prFiles, notes, nil)
}

// buildReview is BuildReview with each finding linked to its web page
// (link may be nil).
func buildReview(pr PullRequest, r *report.Report, s *series.Series, prFiles map[string][]hunk, notes bool, link func(id string) string) *Review {
	patchHunks := make([]map[string][]hunk, len(s.Patches))
	for i, p := range s.Patches {
		if p != nil && p.Msg != nil {
			patchHunks[i] = fileHunks(p.Msg.Diff, "")
		}
	}
	type group struct {
		place
		findings []*report.Finding
	}
	groups := map[place]*group{}
	var order []place
	inline := map[*report.Finding]bool{}
	for pi := range r.Patches {
		p := &r.Patches[pi]
		for fi := range p.Findings {
			f := &p.Findings[fi]
			if f.Severity != report.SeverityRisk && !notes {
				continue
			}
			pl, ok := locate(f, pi, patchHunks, prFiles)
			if !ok {
				continue
			}
			g := groups[pl]
			if g == nil {
				g = &group{place: pl}
				groups[pl] = g
				order = append(order, pl)
			}
			g.findings = append(g.findings, f)
			inline[f] = pl.inDiff
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].path != order[j].path {
			return order[i].path < order[j].path
		}
		return order[i].line < order[j].line
	})
	rv := &Review{}
	risky := false
	for _, pl := range order {
		g := groups[pl]
		if pl.inDiff && len(rv.Comments) >= maxComments {
			pl.inDiff = false
			for _, f := range g.findings {
				inline[f] = false
			}
		}
		var bodies, msgs, details []string
		level, title := "warning", ""
		for _, f := range g.findings {
			body := report.FindingMarkdown(f)
			if l := report.PageLink(f, link); l != "" {
				body += "\n\n  " + l
			}
			bodies = append(bodies, body)
			msgs = append(msgs, fmt.Sprintf("%s: %s", f.Rule, f.Message))
			details = append(details, plainDetails(f))
			if f.Severity == report.SeverityRisk {
				level, risky = "failure", true
			}
			if title == "" {
				title = fmt.Sprintf("%s %s: %s()", f.Severity, f.Rule, f.Func)
			}
		}
		if pl.inDiff {
			rv.Comments = append(rv.Comments, &gh.DraftReviewComment{
				Path: gh.String(pl.path), Line: gh.Int(pl.line), Side: gh.String("RIGHT"),
				Body: gh.String(truncate(strings.Join(bodies, "\n\n---\n\n"), maxBody)),
			})
		}
		if len(g.findings) > 1 {
			title = fmt.Sprintf("%s (%d findings)", title, len(g.findings))
		}
		rv.Annotations = append(rv.Annotations, &gh.CheckRunAnnotation{
			Path: gh.String(pl.path), StartLine: gh.Int(pl.line), EndLine: gh.Int(pl.line),
			AnnotationLevel: gh.String(level), Title: gh.String(truncate(title, 255)),
			Message:    gh.String(truncate(strings.Join(msgs, "\n"), 64000)),
			RawDetails: gh.String(truncate(strings.Join(details, "\n\n"), 64000)),
		})
	}
	var body strings.Builder
	heading := fmt.Sprintf("autosel-bot: lock and wakeup analysis of %.12s", pr.HeadSHA)
	report.WriteMarkdown(&body, r, report.MarkdownOptions{Heading: heading, Notes: notes, ForAuthor: true,
		Inline: func(f *report.Finding) bool { return inline[f] }, FindingURL: link})
	summary := body.String()
	rv.Body = truncate(summary, maxBody) + "\n" + marker(pr.HeadSHA) + "\n"
	rv.Summary = truncate(summary, maxBody)
	risks, allNotes := 0, 0
	for _, p := range r.Patches {
		for _, f := range p.Findings {
			if f.Severity == report.SeverityRisk {
				risks++
			} else {
				allNotes++
			}
		}
	}
	vmBad := r.VM != nil && (r.VM.Status == report.VMRegression || r.VM.Status == report.VMBootFailure || r.VM.Status == report.VMBuildFailed)
	switch {
	case risky || risks > 0 || vmBad:
		rv.Conclusion = "failure"
	case len(r.Errors) > 0 || r.VM != nil && r.VM.Status == report.VMInfraError:
		rv.Conclusion = "neutral"
	default:
		rv.Conclusion = "success"
	}
	rv.Title = textfmt.Plural(risks, "risk", "risks") + ", " + textfmt.Plural(allNotes, "note", "notes")
	if vmBad {
		rv.Title += "; VM: " + r.VM.Status
	}
	return rv
}

// locate finds where finding f of report patch pi lands in the PR's final
// files.
func locate(f *report.Finding, pi int, patchHunks []map[string][]hunk, prFiles map[string][]hunk) (place, bool) {
	if f.File == "" || f.Line <= 0 {
		return place{}, false
	}
	line, ok := f.Line, true
	for j := pi + 1; j < len(patchHunks) && ok; j++ {
		if hs := patchHunks[j][f.File]; len(hs) > 0 {
			line, ok = translate(hs, line)
		}
	}
	if !ok {
		// Changed again by a later patch: annotate where it was found.
		return place{path: f.File, line: f.Line}, true
	}
	return place{path: f.File, line: line, inDiff: rightLines(prFiles[f.File])[line]}, true
}

// plainDetails is a finding's chain and evidence as plain text.
func plainDetails(f *report.Finding) string {
	var l []string
	for _, s := range f.Chain {
		l = append(l, fmt.Sprintf("%s:%d %s(): %s", s.File, s.Line, s.Func, s.What))
	}
	l = append(l, f.Evidence...)
	return strings.Join(l, "\n")
}

// supersededBody is the body an older review gets once the PR moved on.
func supersededBody(old, oldHead, newHead string) string {
	old = strings.ReplaceAll(old, marker(oldHead), "")
	return truncate(fmt.Sprintf("**Outdated:** this review is about %.12s; the pull request was updated to %.12s (see the newer review and check run).\n\n<details><summary>previous review</summary>\n\n%s\n</details>\n",
		oldHead, newHead, strings.TrimSpace(old)), maxBody) + "\n" + marker(oldHead) + "\n"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 40
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut-- // keep UTF-8 whole
	}
	return s[:cut] + "\n\n(truncated)"
}
