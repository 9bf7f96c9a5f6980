package runner

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cavaliergopher/cpio"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/runner/kselftest"
)

// fakeInstall writes an installed-selftests tree like buildKselftests
// leaves it.
func fakeInstall(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		kselftestList:                 "futex:run.sh\nmqueue:mq_open_tests\nmqueue:mq_perf_tests\nbad line\nx:../y\n",
		"kselftest-list.txt":          "mqueue:mq_open_tests\n",
		"run_kselftest.sh":            "#!/bin/sh\n",
		"futex/run.sh":                "#!/bin/sh\n(cd functional; ./run.sh)\n",
		"futex/functional/futex_wait": "ELF",
		"mqueue/mq_open_tests":        "ELF",
		"mqueue/mq_perf_tests":        "ELF",
		"mqueue/settings":             "timeout=180\n",
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("futex_wait", filepath.Join(dir, "futex/functional/link"))
	return dir
}

// fakeBusybox is a script answering --list like busybox.
func fakeBusybox(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "busybox")
	os.WriteFile(p, []byte("#!/bin/sh\nprintf 'cat\\nsh\\nls\\n'\n"), 0o755)
	return p
}

func TestKselftestGuest(t *testing.T) {
	dir := fakeInstall(t)
	targets := []kselftest.Target{
		{Name: "futex", Seconds: 60, Doc: "futex"},
		{Name: "mqueue", Seconds: 60, Programs: []string{"mq_open_tests"}},
		{Name: "splice", Seconds: 10},
	}
	tests, files, notes, err := kselftestGuest(context.Background(), dir, targets, fakeBusybox(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tt := range tests {
		names = append(names, tt.Name)
		if !tt.Kselftest || tt.Path != "/bin/sh" || len(tt.Args) != 1 {
			t.Errorf("%s: %+v", tt.Name, tt)
		}
	}
	if got := strings.Join(names, " "); got != "kselftest/futex/run.sh kselftest/mqueue/mq_open_tests" {
		t.Errorf("tests %q", got)
	}
	if tests[0].Timeout != defaultKselftestTimeout || tests[1].Timeout != 180*time.Second {
		t.Errorf("timeouts %v %v", tests[0].Timeout, tests[1].Timeout)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "splice: no installed test") {
		t.Errorf("notes %q", notes)
	}
	byName := map[string]initramfsFile{}
	for _, f := range files {
		byName[f.Name] = f
	}
	if w := byName[strings.TrimPrefix(tests[1].Args[0], "/")]; string(w.Data) != "cd /kselftest/mqueue || exit 127\nexec ./mq_open_tests\n" {
		t.Errorf("wrapper %q", w.Data)
	}
	if byName["kselftest/futex/functional/link"].Link != "futex_wait" || string(byName["kselftest/futex/functional/futex_wait"].Data) != "ELF" {
		t.Errorf("install tree not packed: %+v", byName["kselftest/futex/functional/link"])
	}
	for _, n := range []string{"bin/sh", "bin/bash", "bin/cat", "bin/ls"} {
		if byName[n].Link != "busybox" {
			t.Errorf("%s: %+v", n, byName[n])
		}
	}
	if len(byName["bin/busybox"].Data) == 0 {
		t.Error("no bin/busybox")
	}

	// Without busybox nothing runs (every test starts through /bin/sh),
	// and the note says why.
	tests, _, notes, err = kselftestGuest(context.Background(), dir, targets, "/nonexistent/busybox")
	if err != nil || len(tests) != 0 || !strings.Contains(strings.Join(notes, "\n"), "install busybox-static") {
		t.Errorf("no busybox: tests %v notes %q err %v", tests, notes, err)
	}
}

func TestInitramfsSymlink(t *testing.T) {
	img, err := writeInitramfs([]initramfsFile{{Name: "bin/busybox", Mode: 0o755, Data: []byte("bb")}, {Name: "bin/sh", Link: "busybox"}})
	if err != nil {
		t.Fatal(err)
	}
	r := cpio.NewReader(bytes.NewReader(img))
	found := false
	for {
		h, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == "bin/sh" {
			found = h.Mode&^cpio.ModePerm == cpio.TypeSymlink && h.Linkname == "busybox"
		}
	}
	if !found {
		t.Fatal("bin/sh is not a symlink to busybox")
	}
}

func TestCollectionTimeout(t *testing.T) {
	tests := []struct {
		settings string
		want     time.Duration
	}{
		{"", defaultKselftestTimeout},
		{"timeout=5\n", 5 * time.Second},
		{"# x\ntimeout=0\n", 10 * time.Minute},
		{"timeout=abc\n", defaultKselftestTimeout},
	}
	for _, tc := range tests {
		dir := t.TempDir()
		if tc.settings != "" {
			os.WriteFile(filepath.Join(dir, "settings"), []byte(tc.settings), 0o644)
		}
		if got := collectionTimeout(dir); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.settings, got, tc.want)
		}
	}
}

func TestEvalKselftest(t *testing.T) {
	tap := []string{"TAP version 13", "1..3", "ok 1 futex_wait private", "not ok 2 futex_wait shared", "ok 3 futex_waitv # SKIP no waitv"}
	splat := []KmsgLine{{1, "BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580"}, {2, "Call Trace:"}}
	tests := []struct {
		name   string
		f      Frame
		want   Verdict
		reason string
	}{
		{"pass", Frame{Out: tap[:3]}, Pass, ""},
		{"fail with points", Frame{Out: tap, Exit: 1}, Fail, "exited with status 1; not ok: futex_wait shared"},
		{"skip", Frame{Out: []string{"ok 1 x # SKIP y"}, Exit: 4}, Skip, "skipped"},
		{"timeout", Frame{Timeout: true, Exit: -1, Signal: 9}, Hang, "timeout: killed after 45s"},
		{"splat", Frame{Out: tap[:3], Kmsg: splat}, Crash, "kernel: BUG: sleeping function"},
		{"exec", Frame{Exit: 127}, Fail, "could not execute"},
		{"bail", Frame{Out: []string{"Bail out! no futex"}, Exit: 1}, Fail, "bail out: no futex"},
	}
	for _, tc := range tests {
		rr, _, _ := evalKselftest(&tc.f, 45*time.Second, nil)
		if rr.Verdict != tc.want || !strings.Contains(rr.Reason, tc.reason) {
			t.Errorf("%s: %s %q, want %s %q", tc.name, rr.Verdict, rr.Reason, tc.want, tc.reason)
		}
	}
	_, _, points := evalKselftest(&Frame{Out: tap, Exit: 1}, time.Second, nil)
	var got []string
	for _, p := range points {
		got = append(got, p.Name+"="+string(p.Verdict))
	}
	if s := strings.Join(got, ","); s != "1.1=pass,1.2=fail,1.3=skip" {
		t.Errorf("points %s", s)
	}
}

// TestKselftestCompare: a selftest's TAP points are compared per test
// between the kernels, and a point that passes on the baseline and fails
// on the patched kernel is a regression.
func TestKselftestCompare(t *testing.T) {
	tests := []Test{{Name: "pipe_two_readers", Timeout: time.Second}, {Name: "kselftest/futex/run.sh", Timeout: time.Second, Kselftest: true}}
	one := func(t Test) int { return 1 }
	boot := func(futexBody, futexStatus string) *KernelResult {
		results := "@@AUTOSEL-HELLO 1\n" + mkFrame("pipe_two_readers", 0, "o {\"result\":\"pass\"}\n", "exit=0 sig=0 timeout=0 unreaped=0 ms=5") +
			mkFrame("kselftest/futex/run.sh", 0, futexBody, futexStatus) + "@@AUTOSEL-DONE\n"
		kr := &KernelResult{Boot: "ok", Accel: "tcg"}
		kr.Tests = evalSuite(parseChannel([]byte(results)), nil, tests, one, 1, vmEnd{})
		return kr
	}
	// The failing point's description differs (kselftests add the error):
	// its stream and number match it with the baseline's.
	base := boot("o TAP version 13\no 1..2\no ok 1 futex_wait private\no ok 2 futex_wait shared\n", "exit=0 sig=0 timeout=0 unreaped=0 ms=5")
	patched := boot("o TAP version 13\no 1..2\no ok 1 futex_wait private\no not ok 2 futex_wait shared returned: -1 Invalid argument\n", "exit=1 sig=0 timeout=0 unreaped=0 ms=5")
	vm := &report.VMReport{}
	compareKernels(vm, base, patched)
	byName := map[string]report.VMTest{}
	for _, tt := range vm.Tests {
		byName[tt.Name] = tt
	}
	if vm.Status != report.VMRegression || vm.Regressions != 2 {
		t.Fatalf("status %s, %d regressions: %s", vm.Status, vm.Regressions, vm.Summary)
	}
	shared := byName["kselftest/futex/run.sh: 1.2"]
	if !shared.Regression || shared.Suite != "kselftest" || shared.Baseline != "pass" || shared.Patched != "fail" ||
		shared.Reason != "not ok: futex_wait shared returned: -1 Invalid argument" || shared.BaselineReason != "ok: futex_wait shared" {
		t.Errorf("shared: %+v", shared)
	}
	if p := byName["kselftest/futex/run.sh: 1.1"]; p.Regression || p.Patched != "pass" {
		t.Errorf("private: %+v", p)
	}
	if s := byName["pipe_two_readers"]; s.Suite != "" || s.Regression {
		t.Errorf("suite test: %+v", s)
	}
	// Skips never regress.
	skipped := boot("o ok 1 futex_wait private # SKIP no\n", "exit=4 sig=0 timeout=0 unreaped=0 ms=5")
	vm = &report.VMReport{}
	compareKernels(vm, base, skipped)
	if vm.Regressions != 0 {
		t.Errorf("skip counted as regression: %s", vm.Summary)
	}
}

// TestCompareKselftestPlan: Compare asks both kernels for the selftest
// targets the patch's files call for and reports why; a remote backend
// gets none and the report says so.
func TestCompareKselftestPlan(t *testing.T) {
	futex := []Patch{{Name: "p", Diff: []byte("--- a/kernel/futex/core.c\n+++ b/kernel/futex/core.c\n@@ -1 +1 @@\n-a\n+b\n")}}
	for _, tc := range []struct {
		backend string
		want    string // the targets of both requests
		line    string // a line of vm.Kselftests
	}{
		{"local", "futex", "futex: kernel/futex/core.c: the futex syscalls are implemented here (table)"},
		{"lava", "", "note: the kernel selftests run on the local backend only (backend lava)"},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			fb := &fakeBackend{name: tc.backend, calls: map[string]int{}, results: map[string]*KernelResult{
				"baseline": kernel("baseline"), "patched": kernel("patched")}}
			vm, err := New(Options{}, fb).Compare(context.Background(), gitRepo(t), "HEAD", futex)
			if err != nil {
				t.Fatal(err)
			}
			if len(fb.reqs) != 2 {
				t.Fatalf("%d requests", len(fb.reqs))
			}
			for _, req := range fb.reqs {
				var names []string
				for _, tg := range req.Kselftests {
					names = append(names, tg.Name)
				}
				if got := strings.Join(names, ","); got != tc.want {
					t.Errorf("%s request: targets %q, want %q", req.Label, got, tc.want)
				}
			}
			if !strings.Contains(strings.Join(vm.Kselftests, "\n"), tc.line) {
				t.Errorf("kselftest lines %q, want %q", vm.Kselftests, tc.line)
			}
		})
	}
}

// TestKselftestFlaky: a TAP point the table knows to fail at random
// under TCG is reported but is no regression, and neither is its
// program's failing exit when it is the only failure.
func TestKselftestFlaky(t *testing.T) {
	futex := kselftest.Target{Name: "futex", Seconds: 1, Flaky: []string{"futex_requeue many"}}
	tests := []Test{{Name: "kselftest/futex/run.sh", Timeout: time.Second, Kselftest: true, flaky: futex.IsFlaky}}
	boot := func(body, status string) *KernelResult {
		results := "@@AUTOSEL-HELLO 1\n" + mkFrame("kselftest/futex/run.sh", 0, body, status) + "@@AUTOSEL-DONE\n"
		kr := &KernelResult{Boot: "ok", Accel: "tcg"}
		kr.Tests = evalSuite(parseChannel([]byte(results)), nil, tests, func(Test) int { return 1 }, 1, vmEnd{})
		return kr
	}
	ok := "exit=0 sig=0 timeout=0 unreaped=0 ms=5"
	failed := "exit=1 sig=0 timeout=0 unreaped=0 ms=5"
	base := boot("o 1..2\no ok 1 futex_requeue simple succeeds\no ok 2 futex_requeue many succeeds\n", ok)
	for _, tc := range []struct {
		name, body, status string
		regressions        int
	}{
		{"flaky point only", "o 1..2\no ok 1 futex_requeue simple succeeds\no not ok 2 futex_requeue many returned: 11 Resource temporarily unavailable\n", failed, 0},
		{"a real failure too", "o 1..2\no not ok 1 futex_requeue simple returned: 22\no not ok 2 futex_requeue many returned: 0\n", failed, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm := &report.VMReport{}
			compareKernels(vm, base, boot(tc.body, tc.status))
			if vm.Regressions != tc.regressions {
				t.Fatalf("%d regressions, want %d: %s", vm.Regressions, tc.regressions, vm.Summary)
			}
			for _, tt := range vm.Tests {
				if tt.Name == "kselftest/futex/run.sh: 1.2" && !strings.Contains(tt.Detail, "known to fail at random") {
					t.Errorf("flaky point: %+v", tt)
				}
			}
		})
	}
}
