package report

import (
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	f := func(fn, msg string) Finding {
		return Finding{Rule: "sleep-in-atomic", Severity: SeverityRisk, File: "lib/x.c", Func: fn, Message: msg, Evidence: []string{"+\tmsleep(1);"}}
	}
	prev := &Report{SeriesID: "v1@x", Version: 1, Patches: []PatchReport{
		{Number: 1, Subject: "[PATCH 1/3] lib: a", PatchID: "aaaa1111", Findings: []Finding{f("a", "a sleeps"), f("b", "b sleeps")}},
		{Number: 2, Subject: "[PATCH 1/3] lib: b", PatchID: "bbbb2222", Findings: []Finding{f("c", "c sleeps")}},
		{Number: 3, Subject: "[PATCH 3/3] lib: dropped", PatchID: "cccc3333"},
	}}
	cur := &Report{SeriesID: "v2@x", Version: 2, Patches: []PatchReport{
		{Number: 1, Subject: "[PATCH v2 1/3] lib: a", PatchID: "aaaa1111", Findings: []Finding{f("a", "a sleeps, reworded")}},
		{Number: 2, Subject: "[PATCH v2 2/3] LIB: b", PatchID: "dddd4444", Findings: []Finding{f("d", "d sleeps")}},
		{Number: 3, Subject: "[PATCH v2 3/3] lib: new", PatchID: "eeee5555"},
	}}
	// c is ignored in v2: neither fixed nor new.
	cur.Patches[1].Suppressed = []Suppressed{{Finding: f("c", "c sleeps"), By: "#autosel ignore"}}
	AssignIDs(cur)
	c := Compare(prev, cur)
	names := func(rs []FindingRef) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Func)
		}
		return strings.Join(out, " ")
	}
	if got := names(c.Fixed); got != "b" {
		t.Errorf("fixed %q, want b", got)
	}
	if got := names(c.New); got != "d" {
		t.Errorf("new %q, want d", got)
	}
	if got := names(c.Unchanged); got != "a" {
		t.Errorf("unchanged %q, want a", got)
	}
	if c.Summary() != "1 fixed, 1 new, 1 unchanged" || c.PreviousVersion != 1 || c.PreviousID != "v1@x" {
		t.Errorf("summary %q, previous v%d %s", c.Summary(), c.PreviousVersion, c.PreviousID)
	}
	want := []string{
		"1:  aaaa111 = 1:  aaaa111 lib: a",
		"2:  bbbb222 ! 2:  dddd444 lib: b",
		"-:  ------- > 3:  eeee555 lib: new",
		"3:  cccc333 < -:  ------- lib: dropped",
	}
	if got := c.RangeDiffLines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("range-diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !c.HasUnchanged(cur.Patches[0].Findings[0].ID) || c.HasUnchanged(cur.Patches[1].Findings[0].ID) {
		t.Error("HasUnchanged")
	}
}
