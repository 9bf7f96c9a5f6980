package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

// BenchmarkSeriesPage is the page of a series with 20 findings, each
// with a call chain and an interleaving, read from a state database and
// rendered (target <= 50 ms per page).
func BenchmarkSeriesPage(b *testing.B) {
	base := withTimeline(evalReport(b))
	if base == nil {
		b.Fatal("no finding with an interleaving")
	}
	r := &report.Report{SeriesID: "bench@example.org", Title: "20 findings", Version: 1, Total: 4}
	for p := 1; p <= 4; p++ {
		pr := report.PatchReport{Number: p, Subject: fmt.Sprintf("[PATCH %d/4] part %d", p, p), Files: []string{base.File}}
		for i := 0; i < 5; i++ {
			f := *base
			f.ID, f.Line = "", base.Line+10*(p*5+i)
			f.Message = fmt.Sprintf("%s (%d)", base.Message, p*5+i)
			pr.Findings = append(pr.Findings, f)
		}
		r.Patches = append(r.Patches, pr)
	}
	report.AssignIDs(r)
	st := recordReports(b, []*report.Report{r})
	h, err := New(st, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"series", "/" + seriesPath(seriesKey(r))},
		{"finding", "/" + findingPath(r.Patches[3].Findings[4].ID)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tc.path, nil))
				if w.Code != http.StatusOK {
					b.Fatalf("%s: %d", tc.path, w.Code)
				}
			}
		})
	}
}
