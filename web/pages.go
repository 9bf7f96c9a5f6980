package web

import (
	"fmt"
	"time"

	"github.com/autosel-bot/autosel-bot/report"
)

// page is what every template gets: the path back to the root (relative
// links work under any prefix) and the page's own data.
type page struct {
	Root  string
	Title string
	Data  any
}

// IndexPage lists the recent series.
type IndexPage struct {
	Rows []IndexRow
}

// IndexRow is one series in the list.
type IndexRow struct {
	URL, Title, Author, State, When string
	Version                         int
	// Verdict is risk, note, clean, failed or pending; Counts says
	// "2 risks, 1 note".
	Verdict, Counts string
}

// SeriesPage is one series with everything recorded about it.
type SeriesPage struct {
	Entry   *Entry
	When    string
	Verdict string
	Counts  string
	Patches []PatchView
	Matrix  *Matrix
	Changes string
	Report  *report.Report
}

// PatchView is one patch of a series page.
type PatchView struct {
	Patch      *report.PatchReport
	Findings   []FindingRow
	Suppressed []FindingRow
}

// FindingRow is one finding in a list, linking to its page.
type FindingRow struct {
	F            *report.Finding
	URL, Loc     string
	SuppressedBy string
}

// FindingPage is one finding in full.
type FindingPage struct {
	F            *report.Finding
	Loc          string
	Entry        *Entry
	EntryURL     string
	Patch        *report.PatchReport
	SuppressedBy string
	Chain        *ChainSVG
	Timelines    []*Timeline
	Evidence     []string
	// Others are the other series (versions) holding the finding.
	Others []IndexRow
}

// when formats a time for the pages (UTC, minutes).
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// verdict sums up an entry: its worst finding, or its state.
func verdict(e *Entry) (v, counts string) {
	switch {
	case e.State == "failed":
		return "failed", ""
	case e.Report == nil:
		return "pending", ""
	}
	risks, notes := 0, 0
	for _, p := range e.Report.Patches {
		for _, f := range p.Findings {
			if f.Severity == report.SeverityRisk {
				risks++
			} else {
				notes++
			}
		}
	}
	counts = fmt.Sprintf("%s, %s", plural(risks, "risk"), plural(notes, "note"))
	switch {
	case risks > 0:
		return "risk", counts
	case notes > 0:
		return "note", counts
	}
	return "clean", counts
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// indexRow makes the list row of e; root is the path to the root.
func indexRow(e *Entry, root string) IndexRow {
	v, c := verdict(e)
	return IndexRow{URL: root + seriesPath(e.Key), Title: e.Title, Author: e.Author, State: e.State,
		When: when(e.When), Version: e.Version, Verdict: v, Counts: c}
}

// location is "file:line func()".
func location(f *report.Finding) string {
	loc := f.File
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, f.Line)
	}
	if f.Func != "" {
		loc += " " + f.Func + "()"
	}
	return loc
}

// buildSeriesPage makes the page of e.
func buildSeriesPage(e *Entry) *SeriesPage {
	sp := &SeriesPage{Entry: e, When: when(e.When), Report: e.Report}
	sp.Verdict, sp.Counts = verdict(e)
	r := e.Report
	if r == nil {
		return sp
	}
	report.AssignIDs(r)
	for i := range r.Patches {
		p := &r.Patches[i]
		pv := PatchView{Patch: p}
		for j := range p.Findings {
			f := &p.Findings[j]
			pv.Findings = append(pv.Findings, FindingRow{F: f, URL: "../" + findingPath(f.ID), Loc: location(f)})
		}
		for j := range p.Suppressed {
			sp := &p.Suppressed[j]
			pv.Suppressed = append(pv.Suppressed, FindingRow{F: &sp.Finding, URL: "../" + findingPath(sp.ID), Loc: location(&sp.Finding), SuppressedBy: sp.By})
		}
		sp.Patches = append(sp.Patches, pv)
	}
	sp.Matrix = BuildMatrix(r)
	if c := r.Changes; c != nil {
		sp.Changes = fmt.Sprintf("Changes since v%d: %s.", c.PreviousVersion, c.Summary())
	}
	return sp
}

// buildFindingPage makes the page of the finding at, found in e (the
// newest entry holding it); others are every entry holding it.
func buildFindingPage(e *Entry, at *located, others []*Entry) *FindingPage {
	f := at.Finding
	fp := &FindingPage{F: f, Loc: location(f), Entry: e, EntryURL: "../" + seriesPath(e.Key), Patch: at.Patch,
		SuppressedBy: at.SuppressedBy, Chain: LayoutChain(f)}
	fp.Timelines, fp.Evidence = ParseTimelines(f.Evidence)
	for _, o := range others {
		if o.Key != e.Key {
			fp.Others = append(fp.Others, indexRow(o, "../"))
		}
	}
	return fp
}
