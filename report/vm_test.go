package report

import (
	"fmt"
	"strings"
	"testing"
)

func TestVMText(t *testing.T) {
	many := make([]string, 25)
	for i := range many {
		many[i] = fmt.Sprintf("fs/pipe.c:%d: error: x", i+1)
	}
	ok := &VMReport{Tree: "v6.1.192", Build: "ok", Status: VMRegression, Summary: "1 regression", Accel: "tcg",
		BaseCommit: "0123456789abcdef0123", BaseRef: "base",
		Tests: []VMTest{
			{Name: "pipe_two_readers", Baseline: "pass", Patched: "hang", Regression: true, Reason: "no progress\nfor 10 s", Splat: "INFO: task blocked\nCall Trace:\n"},
			{Name: "pipe_token_ring", Baseline: "pass", Patched: "pass", Detail: "1.02 -> 1.01"},
			{Name: "epoll_basic", Baseline: "pass", Patched: "pass"},
			{Name: "splice\nbasic", Baseline: "pass", Patched: "pass"},
		}}
	tests := []struct {
		name      string
		v         *VMReport
		brief     bool
		want, not []string
	}{
		{name: "full", v: ok,
			want: []string{"VM regression suite: 1 regression\n", "Tree: v6.1.192 at 0123456789ab (base)\n", "Build OK! QEMU tcg\n",
				"    pipe_two_readers  pass          hang          <-- REGRESSION\n", "no progress for 10 s\n",
				"    epoll_basic       pass          pass\n", "    splice basic      pass          pass\n",
				"Kernel report while pipe_two_readers ran (patched kernel):\n    INFO: task blocked\n    Call Trace:\n"},
			not: []string{"unchanged", " \n"}},
		{name: "brief", v: ok, brief: true,
			want: []string{"pipe_two_readers", "pipe_token_ring", "                      1.02 -> 1.01\n", "    2 tests unchanged (same result before and after the patch)\n"},
			not:  []string{"epoll_basic", "splice", " \n"}},
		{name: "no status: from build", v: &VMReport{Tree: "t", Build: "failed", BuildErrors: many}, brief: true,
			want: []string{"VM regression suite: build failed\n", "Build failed! Errors:\n", "fs/pipe.c:20: error", "    ... (5 more)\n"},
			not:  []string{"fs/pipe.c:21:", "Build OK"}},
		{name: "all errors when not brief", v: &VMReport{Tree: "t", Build: "failed", BuildErrors: many},
			want: []string{"fs/pipe.c:25: error"}, not: []string{"more)"}},
		{name: "refused", v: &VMReport{Status: VMRefused, Build: "refused", Summary: "refused", Refusals: []string{"Makefile: host code"}},
			want: []string{"Not built: the patch changes code that would run on the build host:\n    Makefile: host code\n"}},
		{name: "infra", v: &VMReport{Status: VMInfraError, Summary: "runner failed", Notes: []string{"qemu\nmissing"}},
			want: []string{"VM regression suite: runner failed\n    qemu missing\n"}, not: []string{"Build OK"}},
	}
	for _, tt := range tests {
		got := tt.v.TextWith(VMTextOptions{Brief: tt.brief})
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: lacks %q:\n%s", tt.name, w, got)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: has %q:\n%s", tt.name, n, got)
			}
		}
	}
	if ok.Text() != ok.TextWith(VMTextOptions{}) {
		t.Errorf("Text is not TextWith of the defaults")
	}
}
