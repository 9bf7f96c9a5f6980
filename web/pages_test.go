package web

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

// svgFuncs returns the function names of a page's chain picture, in
// document order.
func svgFuncs(page string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<text class="fn"[^>]*>([^<]*)\(\)</text>`).FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// chainFuncs is a chain's functions with consecutive repeats folded,
// the boxes the picture must show.
func chainFuncs(f *report.Finding) []string {
	var out []string
	for _, s := range f.Chain {
		if len(out) == 0 || out[len(out)-1] != s.Func {
			out = append(out, s.Func)
		}
	}
	return out
}

// TestSeedPages: every seed series is listed, its page and the page of
// each of its findings answer, and a finding page's picture shows the
// chain's functions in order (seed 002's post_one_notification() ->
// __pipe_lock() -> the sleeping mutex among them).
func TestSeedPages(t *testing.T) {
	reports := seedReports(t)
	srv := serve(t, recordReports(t, reports))
	code, index := get(t, srv, "/")
	if code != 200 {
		t.Fatalf("index: %d\n%s", code, index)
	}
	pages := 0
	for _, r := range reports {
		if !strings.Contains(index, escape(r.Title)) {
			t.Errorf("index lacks %q", r.Title)
		}
		path := "/" + seriesPath(seriesKey(r))
		code, body := get(t, srv, path)
		if code != 200 || !strings.Contains(body, escape(r.Title)) {
			t.Errorf("%s: %d", path, code)
		}
		for _, p := range r.Patches {
			for i := range p.Findings {
				f := &p.Findings[i]
				if !strings.Contains(body, "../finding/"+f.ID) {
					t.Errorf("%s does not link finding %s", path, f.ID)
				}
				code, fp := get(t, srv, "/finding/"+f.ID)
				if code != 200 || !strings.Contains(fp, escape(f.Message)) {
					t.Errorf("finding %s: %d", f.ID, code)
					continue
				}
				pages++
				if want, got := chainFuncs(f), svgFuncs(fp); strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("finding %s: picture shows %v, chain is %v", f.ID, got, want)
				}
			}
		}
	}
	if pages == 0 {
		t.Fatal("the seeds have no findings")
	}
	f := withChain(seedReport(t, seed002))
	if f == nil {
		t.Fatal("seed 002 has no finding with a chain")
	}
	_, fp := get(t, srv, "/finding/"+f.ID)
	got := strings.Join(svgFuncs(fp), " ")
	if !strings.Contains(got, "post_one_notification __pipe_lock") || !strings.Contains(fp, `class="step sleep"`) {
		t.Errorf("seed 002 picture: %s", got)
	}
	for _, tc := range []struct{ path, want string }{
		{"/finding/0123456789ab", "No recorded series holds finding"},
		{"/finding/nothex", "Not a finding id"},
		{"/series/" + url.PathEscape("nope#v1"), "No series"},
		{"/nothing/here", "No such page"},
	} {
		code, body := get(t, srv, tc.path)
		if code != 404 || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d, want 404 with %q", tc.path, code, tc.want)
		}
	}
}

// escape is what html/template makes of text.
func escape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;")
	return r.Replace(s)
}

// TestXSS: markup in a subject, an author, a function name, a chain step,
// evidence and an interleaving is shown as text on every page.
func TestXSS(t *testing.T) {
	probe := `<script>alert(1)</script><img src=x onerror=alert(2)>"'`
	f := report.Finding{Rule: "sleep-in-atomic", Severity: report.SeverityRisk, File: "x.c" + probe, Func: "f" + probe, Line: 3,
		Message: "m" + probe, Explanation: probe, Key: probe, Evidence: []string{"+" + probe,
			pad("CPU 0: "+probe) + "| CPU 1: " + probe, pad(probe) + "| " + probe},
		Chain: []report.Step{{Func: probe, File: probe, Line: 1, What: "rcu_read_lock()" + probe}, {Func: "g" + probe, File: "y.c", Line: 2, What: probe}}}
	r := &report.Report{SeriesID: "id" + probe, Title: "t" + probe, Subject: probe, Author: probe, Version: 1, Total: 1,
		Notes: []string{probe},
		Patches: []report.PatchReport{{Number: 1, Subject: "s" + probe, MessageID: probe, Files: []string{probe}, Findings: []report.Finding{f},
			Stable: &report.StableReport{Trees: []report.TreeResult{{Name: probe, ApplyError: probe}}}}}}
	report.AssignIDs(r)
	srv := serve(t, recordReports(t, []*report.Report{r}))
	for _, path := range []string{"/", "/" + seriesPath(seriesKey(r)), "/finding/" + r.Patches[0].Findings[0].ID} {
		code, body := get(t, srv, path)
		if code != 200 {
			t.Fatalf("%s: %d", path, code)
		}
		if strings.Contains(body, "<script") || strings.Contains(body, "<img") {
			t.Errorf("%s holds markup from the report", path)
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;") {
			t.Errorf("%s does not show the probe as text", path)
		}
	}
}

// TestEvalPatchPage: a wakeup finding of an eval patch shows its
// interleaving as a two-column table, one row per moment, next to its
// chain picture.
func TestEvalPatchPage(t *testing.T) {
	r := evalReport(t)
	f := withTimeline(r)
	if f == nil {
		t.Fatalf("%s: no finding with an interleaving", evalPatch)
	}
	srv := serve(t, recordReports(t, []*report.Report{r}))
	code, body := get(t, srv, "/finding/"+f.ID)
	if code != 200 {
		t.Fatalf("%d", code)
	}
	tls, _ := ParseTimelines(f.Evidence)
	tables := strings.Count(body, `<table class="timeline">`)
	rows := regexp.MustCompile(`<tr><td class="n">`).FindAllString(body, -1)
	if tables != len(tls) || len(rows) != len(tls[0].Rows) && len(tls) == 1 {
		t.Errorf("%d timeline tables with %d rows; evidence has %d with %d rows", tables, len(rows), len(tls), len(tls[0].Rows))
	}
	if !strings.Contains(body, "CPU 0: "+escape(tls[0].CPU0)) || !strings.Contains(body, "CPU 1: "+escape(tls[0].CPU1)) {
		t.Errorf("timeline heads missing")
	}
	if got, want := svgFuncs(body), chainFuncs(f); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("picture %v, chain %v", got, want)
	}
}
