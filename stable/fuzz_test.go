package stable

import (
	"strings"
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

func FuzzBuildErrors(f *testing.F) {
	f.Add("foo.c:1:2: error: bad\nmake: *** [x] Error 1\n", "/tmp/wt")
	f.Add("\x1b[31mfoo.c:1: error: x\x1b[0m\r\n", "")
	f.Add(strings.Repeat("a.c:1:1: error: y\n", 50), "/w")
	f.Add("", "/w")
	f.Fuzz(func(t *testing.T, log, dir string) {
		errs := buildErrors([]byte(log), dir, 20)
		if len(errs) > 20 {
			t.Fatalf("%d lines", len(errs))
		}
		for _, e := range errs {
			if len(e) > 303 || strings.Contains(e, "\n") {
				t.Fatalf("bad line %q", e)
			}
		}
	})
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name, log string
		want      []string
	}{
		{"gcc", "  CC foo.o\n/w/foo.c:3:5: error: 'x' undeclared\n/w/foo.c:3:5: error: 'x' undeclared\nmake[1]: *** [foo.o] Error 1\n",
			[]string{"foo.c:3:5: error: 'x' undeclared"}},
		{"make only", "make: *** No rule to make target 'bar'.  Stop.\n", []string{"make: *** No rule to make target 'bar'.  Stop."}},
		{"linker", "ld: foo.o: in function `f':\nfoo.c:(.text+0x5): undefined reference to `g'\n", []string{"foo.c:(.text+0x5): undefined reference to `g'"}},
		{"no error line", "1\n2\n3\n", []string{"1", "2", "3"}},
		{"modpost", "ERROR: modpost: \"sym\" [m.ko] undefined!\n", []string{"ERROR: modpost: \"sym\" [m.ko] undefined!"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := buildErrors([]byte(tt.log), "/w", 20)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	many := strings.Repeat("", 0)
	for i := 0; i < 30; i++ {
		many += "f.c:" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + ": error: e\n"
	}
	if got := buildErrors([]byte(many), "", 20); len(got) != 20 || !strings.HasPrefix(got[19], "... (11 more") {
		t.Errorf("trim: %d lines, last %q", len(got), got[len(got)-1])
	}
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
