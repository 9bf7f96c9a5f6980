package eval

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

func TestMissShape(t *testing.T) {
	risk := Hit{Func: "other", Severity: report.SeverityRisk}
	note := Hit{Func: "other", Severity: report.SeverityNote}
	for _, tc := range []struct {
		name string
		r    CaseResult
		want string
	}{
		{"error", CaseResult{Err: "patch does not apply"}, "error"},
		{"note on the function", CaseResult{Got: LevelNote, Family: []Hit{note}}, "note on it"},
		{"nothing", CaseResult{}, "no finding of the family"},
		{"risk on another function", CaseResult{Family: []Hit{note, risk}}, "risk elsewhere"},
		{"notes on another function", CaseResult{Family: []Hit{note}}, "notes elsewhere"},
		{"error but findings", CaseResult{Err: "fix: x", Family: []Hit{risk}}, "risk elsewhere"},
	} {
		if got := missShape(&tc.r); got != tc.want {
			t.Errorf("%s: missShape = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestWriteTestMissesByShape(t *testing.T) {
	c := func(mech string) *Case {
		return &Case{Split: SplitTest, Manifest: Manifest{Mechanism: mech}, Family: &Family{Rule: "wakeup"}}
	}
	res := &Results{Bugs: []*CaseResult{
		{Case: c("barrier")},
		{Case: c("barrier"), Family: []Hit{{Func: "f", Severity: report.SeverityRisk}}},
		{Case: c("barrier"), Got: LevelRisk},
	}}
	var b strings.Builder
	res.writeTestMisses(&b)
	want := "  miss  wakeup/barrier: 2 (no finding of the family 1, risk elsewhere 1)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("writeTestMisses:\n%s\nwant a line %q", b.String(), want)
	}
}
