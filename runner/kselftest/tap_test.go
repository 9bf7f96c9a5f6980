package kselftest

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseTAP(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string // "status name [directive]"
		planned int
		bailed  string
		ids     string // "stream.number" of each point
	}{
		{name: "ksft program", in: `TAP version 13
1..3
# futex_wait_timeout: Test futex_wait
ok 1 futex_wait relative succeeds
not ok 2 futex_wait_bitset absolute
ok 3 futex_waitv # SKIP waitv not supported
# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0`,
			want:    []string{"pass futex_wait relative succeeds", "fail futex_wait_bitset absolute", "skip futex_waitv [SKIP waitv not supported]"},
			planned: 3, ids: "1.1 1.2 1.3"},
		{name: "several streams with repeats", in: `TAP version 13
1..1
ok 1 futex-requeue-pi
TAP version 13
1..1
ok 1 futex-requeue-pi
TAP version 13
1..1
not ok 1 futex-requeue-pi`,
			want:    []string{"pass futex-requeue-pi", "pass futex-requeue-pi (2)", "fail futex-requeue-pi (3)"},
			planned: 3, ids: "1.1 2.1 3.1"},
		{name: "streams without version lines", in: "1..2\nok 1 a\nok 2 b\n1..1\nnot ok 1 c\nok d",
			want: []string{"pass a", "pass b", "fail c", "pass d"}, planned: 3, ids: "1.1 1.2 2.1 2.2"},
		{name: "nested runner output", in: `TAP version 13
1..1
# selftests: futex: run.sh
# TAP version 13
# 1..2
# ok 1 global.wait
# not ok 2 global.wake # TODO known
# # ok, this is only a comment
ok 1 selftests: futex: run.sh`,
			want:    []string{"pass global.wait", "skip global.wake [TODO known]", "pass selftests: futex: run.sh"},
			planned: 3},
		{name: "harness", in: `TAP version 13
1..2
# Starting 2 tests from 1 test cases.
#  RUN           global.basic ...
#            OK  global.basic
ok 1 global.basic
#  RUN           global.nested ...
# nested: SKIP no CONFIG
#      SKIP      no CONFIG
#            OK  global.nested
ok 2 global.nested # SKIP no CONFIG
# PASSED: 2 / 2 tests passed.`,
			want: []string{"pass global.basic", "skip global.nested [SKIP no CONFIG]"}, planned: 2},
		{name: "dash, hash in description, no number", in: "ok - first\nnot ok 2 - issue #12 again\nok",
			want: []string{"pass first", "fail issue #12 again", "pass test 3"}, ids: "1.1 1.2 1.3"},
		{name: "repeat of a renamed one", in: "ok 1 a (2)\nok 2 a\nok 3 a\nok 4 a",
			want: []string{"pass a (2)", "pass a", "pass a (3)", "pass a (4)"}},
		{name: "bail out", in: "1..4\nok 1 a\nBail out! no futex\n", want: []string{"pass a"}, planned: 4, bailed: "no futex"},
		{name: "not TAP", in: "okay\nnot okay\nok1\nhello\n# 1..x\n", want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseTAP(strings.Split(tc.in, "\n"))
			var s []string
			for _, p := range got.Points {
				e := string(p.Status) + " " + p.Name
				if p.Directive != "" {
					e += " [" + p.Directive + "]"
				}
				s = append(s, e)
			}
			if fmt.Sprint(s) != fmt.Sprint(tc.want) {
				t.Errorf("points\n got %q\nwant %q", s, tc.want)
			}
			if tc.ids != "" {
				var ids []string
				for _, p := range got.Points {
					ids = append(ids, fmt.Sprintf("%d.%d", p.Stream, p.Number))
				}
				if strings.Join(ids, " ") != tc.ids {
					t.Errorf("ids %q, want %q", strings.Join(ids, " "), tc.ids)
				}
			}
			if got.Planned != tc.planned || got.Bailed != tc.bailed {
				t.Errorf("planned %d bailed %q, want %d %q", got.Planned, got.Bailed, tc.planned, tc.bailed)
			}
		})
	}
}

func TestExitStatus(t *testing.T) {
	for code, want := range map[int]Status{0: Pass, 4: Skip, 1: Fail, 127: Fail, -1: Fail} {
		if got := ExitStatus(code); got != want {
			t.Errorf("ExitStatus(%d) = %s, want %s", code, got, want)
		}
	}
}

func FuzzParseTAP(f *testing.F) {
	f.Add("TAP version 13\n1..2\nok 1 a\nnot ok 2 b # SKIP c\n")
	f.Add("# # ok 3 x # TODO y\nBail out!\n")
	f.Add("ok\nnot ok -\n1..99999999999999999999\n")
	f.Fuzz(func(t *testing.T, in string) {
		lines := strings.Split(in, "\n")
		got := ParseTAP(lines)
		if len(got.Points) > len(lines) {
			t.Fatalf("%d points from %d lines", len(got.Points), len(lines))
		}
		names := map[string]bool{}
		for _, p := range got.Points {
			if p.Status != Pass && p.Status != Fail && p.Status != Skip {
				t.Fatalf("status %q", p.Status)
			}
			if p.Name == "" || names[p.Name] {
				t.Fatalf("empty or repeated name %q", p.Name)
			}
			names[p.Name] = true
		}
	})
}
