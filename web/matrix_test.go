package web

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

func TestBuildMatrix(t *testing.T) {
	if BuildMatrix(&report.Report{Patches: []report.PatchReport{{Number: 1}}}) != nil {
		t.Errorf("a matrix without stable results")
	}
	r := &report.Report{
		Stable: &report.StableReport{Trees: []report.TreeResult{{Name: "v6.6.1"}, {Name: "v6.1.2"}}},
		Patches: []report.PatchReport{
			{Number: 1, Subject: "a", Stable: &report.StableReport{Trees: []report.TreeResult{
				{Name: "v6.6.1", Applied: true, Build: "ok"},
				{Name: "v6.1.2", ApplyError: "patch does not apply", FailedHunks: []string{"fs/pipe.c:12"}},
			}}},
			{Number: 2, Subject: "b", Stable: &report.StableReport{Trees: []report.TreeResult{
				{Name: "v6.1.2", Present: &report.Commit{SHA: "0123456789abcdef", Subject: "b"}},
				{Name: "v5.15.3", Error: "bad ref"},
			}}},
			{Number: 3, Subject: "c"},
			{Number: 4, Subject: "d", Stable: &report.StableReport{Trees: []report.TreeResult{
				{Name: "v6.6.1", Applied: true, Build: "failed", BuildErrors: []string{"x.c:1: error: y"}},
				{Name: "v6.1.2", Prerequisites: []report.Commit{{SHA: "fedcba9876543210", Subject: "dep"}}},
			}}},
		},
	}
	m := BuildMatrix(r)
	if got := m.Trees; len(got) != 3 || got[0] != "v6.6.1" || got[1] != "v6.1.2" || got[2] != "v5.15.3" {
		t.Fatalf("trees %v", got)
	}
	for _, tc := range []struct {
		row, col     int
		class, text  string
		detailWanted bool
	}{
		{0, 0, "ok", "applies, builds", false},
		{0, 1, "fail", "does not apply", true},
		{0, 2, "none", "not relevant", false},
		{1, 0, "none", "not relevant", false},
		{1, 1, "present", "already in 0123456789ab", true},
		{1, 2, "error", "error", true},
		{2, 1, "none", "not relevant", false},
		{3, 0, "fail", "applies, build fails", true},
		{3, 1, "warn", `applies after fedcba987654 ("dep")`, false},
	} {
		c := m.Rows[tc.row].Cells[tc.col]
		if c.Class != tc.class || c.Text != tc.text || (c.Detail != "") != tc.detailWanted || c.Symbol == "" {
			t.Errorf("patch %d tree %s: %+v, want %s %q", tc.row+1, m.Trees[tc.col], c, tc.class, tc.text)
		}
	}
}
