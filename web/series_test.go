package web

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/store"
)

// TestSeriesPage: a series page shows the stable matrix in words and the
// VM results with the console excerpt; a pull-request head is listed and
// has its page; a finding page shows the version asked for with ?in=;
// a report that does not decode is shown as an error, not a failure.
func TestSeriesPage(t *testing.T) {
	ctx := context.Background()
	f := report.Finding{Rule: "wakeup", Severity: report.SeverityRisk, File: "fs/pipe.c", Func: "pipe_read", Line: 3, Message: "lost wake-up"}
	mk := func(id string, v int, title string) *report.Report {
		return &report.Report{SeriesID: id, Title: title, Version: v, Total: 1, Patches: []report.PatchReport{{Number: 1, Subject: "[PATCH] " + title,
			Findings: []report.Finding{f},
			Stable: &report.StableReport{Trees: []report.TreeResult{
				{Name: "v6.1.2", Applied: true, Build: "ok"},
				{Name: "v5.15.3", ApplyError: "error: patch failed: fs/pipe.c:12"},
			}}}},
			VM: &report.VMReport{Status: report.VMRegression, Summary: "1 regression", Tests: []report.VMTest{
				{Name: "pipe-eof", Baseline: "pass", Patched: "hang", Regression: true, Splat: "INFO: task reader:123 blocked for more than 120 seconds."},
			}}}
	}
	v1, v2 := mk("s@example.org", 1, "pipe: first"), mk("s@example.org", 2, "pipe: second")
	odd := mk("a/b?c%2F d#x@example.org", 1, "odd message id") // a Message-ID may hold any of these
	report.AssignIDs(v1)
	report.AssignIDs(v2)
	report.AssignIDs(odd)
	st := recordReports(t, []*report.Report{v1, v2, odd})
	if _, err := st.BeginSeries(ctx, &store.Series{Key: "bad#v1", SeriesID: "bad", Version: 1, Title: "broken"}); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishSeries(ctx, "bad#v1", store.SeriesDone, "", "{not json", nil, nil); err != nil {
		t.Fatal(err)
	}
	js := `{"title":"gh: a pull request","patches":[{"number":1,"subject":"x","findings":[{"id":"` + v1.Patches[0].Findings[0].ID + `","rule":"wakeup","severity":"note","file":"a.c","func":"f","line":1,"message":"pr finding"}]}]}`
	if err := st.PutPullRequest(ctx, &store.PullRequest{Repo: "o/r", Number: 7, HeadSHA: "abc123", State: store.PRDone, Report: js}); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, st)
	id := v2.Patches[0].Findings[0].ID
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"index", "/", []string{"pipe: second", "pipe: first", "o/r#7: gh: a pull request", "broken", `class="tag v-risk"`}},
		{"series", "/" + seriesPath(seriesKey(v2)), []string{
			`<td class="m-ok"><span class="sym" aria-hidden="true">✓</span>applies, builds`,
			`<td class="m-fail"><span class="sym" aria-hidden="true">✗</span>does not apply`,
			"error: patch failed: fs/pipe.c:12",
			"✗ regression: hang", "<summary>console excerpt</summary><pre>INFO: task reader:123 blocked for more than 120 seconds.</pre>",
			"../finding/" + id,
		}},
		{"pull request", "/series/" + url.PathEscape("github:o/r#7@abc123"), []string{"o/r#7: gh: a pull request", "pr finding"}},
		{"newest version", "/finding/" + id, []string{"pipe: second</a> (v2)", "Also in", "pipe: first</a> (v1)", "o/r#7: gh: a pull request"}},
		{"version asked for", "/finding/" + id + "?in=" + url.QueryEscape(seriesKey(v1)), []string{"pipe: first</a> (v1)", "pipe: second</a> (v2)"}},
		{"odd key", "/" + seriesPath(seriesKey(odd)), []string{"odd message id", "a/b?c%2F d#x@example.org#v1"}},
		{"broken report", "/series/" + url.PathEscape("bad#v1"), []string{"broken", "report of bad#v1"}},
	} {
		code, body := get(t, srv, tc.path)
		if code != 200 {
			t.Errorf("%s: %d", tc.name, code)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: no %q in\n%s", tc.name, w, body)
			}
		}
	}
	// ?in= shows that version first.
	_, body := get(t, srv, "/finding/"+id+"?in="+url.QueryEscape(seriesKey(v1)))
	if i, j := strings.Index(body, "pipe: first</a> (v1)"), strings.Index(body, "pipe: second</a> (v2)"); i < 0 || j < 0 || i > j {
		t.Errorf("?in= does not show v1 as the series")
	}
}
