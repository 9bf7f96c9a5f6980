package stable

import (
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"v6.1.192", "5.4", "linux-5.10.y", "4.19.x-", "v5.4.x", "# 3.8+: 1234567 foo", "", "v10.2", "2.6.32", "99999999999999999999.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseVersion(s)
		if !ok {
			return
		}
		if v.Major <= 0 || v.Minor < 0 {
			t.Fatalf("%q -> %+v", s, v)
		}
		if w, ok := ParseVersion(v.String()); !ok || w != v {
			t.Fatalf("%q -> %v does not round-trip (%v)", s, v, w)
		}
	})
}

func TestTagRange(t *testing.T) {
	v := func(s string) Version { x, _ := ParseVersion(s); return x }
	tests := []struct {
		r    TagRange
		tree string
		in   bool
		str  string
	}{
		{TagRange{}, "4.4", true, "all"},
		{TagRange{From: v("5.4")}, "5.4", true, "5.4+"},
		{TagRange{From: v("5.4")}, "4.19", false, "5.4+"},
		{TagRange{From: v("5.4")}, "6.1", true, "5.4+"},
		{TagRange{From: v("5.4"), Only: true}, "5.10", false, "5.4"},
		{TagRange{From: v("4.19"), Until: v("5.4")}, "5.10", false, "4.19-5.4"},
		{TagRange{From: v("4.19"), Until: v("5.4")}, "5.4", true, "4.19-5.4"},
		{TagRange{From: v("5.4")}, "", false, "5.4+"},
	}
	for _, tt := range tests {
		if got := tt.r.Contains(v(tt.tree)); got != tt.in {
			t.Errorf("%s contains %s: %v", tt.r, tt.tree, got)
		}
		if tt.r.String() != tt.str {
			t.Errorf("%+v String %q, want %q", tt.r, tt.r.String(), tt.str)
		}
	}
}

func TestFindBlock(t *testing.T) {
	lines := []string{"a", "b", "c", "a", "b", "d"}
	tests := []struct {
		block []string
		hint  int
		want  int
	}{
		{[]string{"a", "b"}, 0, 0},
		{[]string{"a", "b"}, 4, 3},
		{[]string{"b", "d"}, 0, 4},
		{[]string{"x"}, 2, -1},
		{[]string{"a", "b", "c", "a", "b", "d", "e"}, 0, -1},
		{nil, 3, 3},
	}
	for _, tt := range tests {
		if got := findBlock(lines, tt.block, tt.hint); got != tt.want {
			t.Errorf("findBlock(%v, %d) = %d, want %d", tt.block, tt.hint, got, tt.want)
		}
	}
}

func TestSortDeps(t *testing.T) {
	ds := []dep{{Commit: commit("bbb"), time: 1}, {Commit: commit("aaa"), time: 3}, {Commit: commit("ccc"), time: 2}}
	sortDeps(ds, "date")
	if got := ds[0].SHA + ds[1].SHA + ds[2].SHA; got != "bbbcccaaa" {
		t.Errorf("date order %s", got)
	}
	sortDeps(ds, "sha")
	if got := ds[0].SHA + ds[1].SHA + ds[2].SHA; got != "aaabbbccc" {
		t.Errorf("sha order %s", got)
	}
}

func commit(sha string) report.Commit { return report.Commit{SHA: sha} }
