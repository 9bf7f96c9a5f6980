package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/testtree"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// fakeBackend returns canned results per label and counts calls.
type fakeBackend struct {
	results map[string]*KernelResult
	errs    map[string][]error
	calls   map[string]int
	// name is the backend's name ("fake" when empty); reqs the requests.
	name string
	reqs []*Request
}

func (f *fakeBackend) Name() string {
	if f.name != "" {
		return f.name
	}
	return "fake"
}

func (f *fakeBackend) Run(ctx context.Context, req *Request) (*KernelResult, error) {
	f.calls[req.Label]++
	f.reqs = append(f.reqs, req)
	if errs := f.errs[req.Label]; len(errs) > 0 {
		err := errs[0]
		f.errs[req.Label] = errs[1:]
		return nil, err
	}
	return f.results[req.Label], nil
}

// gitRepo makes a throwaway repo with one commit.
func gitRepo(t *testing.T) string {
	t.Helper()
	return testtree.Repo(t, nil)
}

func kernel(label string, tests ...TestResult) *KernelResult {
	return &KernelResult{Label: label, Build: BuildResult{Status: BuildOK}, Boot: "ok", Accel: "tcg", VMTime: 5 * time.Second, Tests: tests}
}

func TestCompareRegression(t *testing.T) {
	repo := gitRepo(t)
	metric := func(v ...float64) []MetricSeries {
		return []MetricSeries{{Name: "ctxsw", Unit: "switches", Better: "lower", Values: v}}
	}
	fb := &fakeBackend{
		results: map[string]*KernelResult{
			"baseline": kernel("baseline",
				TestResult{Name: "pipe_two_readers", Verdict: Pass},
				TestResult{Name: "pipe_token_ring", Verdict: Pass, Metrics: metric(1, 1.1, 1.05)},
				TestResult{Name: "syscall_exercise", Verdict: Pass}),
			"patched": kernel("patched",
				TestResult{Name: "pipe_two_readers", Verdict: Hang, Reason: "1 of 2 readers still blocked"},
				TestResult{Name: "pipe_token_ring", Verdict: Pass, Metrics: metric(9, 10, 11)},
				TestResult{Name: "syscall_exercise", Verdict: Crash, Reason: "kernel: BUG: sleeping function called from invalid context",
					Splats: []Splat{{Kind: "sleep-in-atomic", Title: "BUG: sleeping function called from invalid context", Text: "BUG: sleeping function called from invalid context\nCall Trace:"}}}),
		},
		errs:  map[string][]error{"patched": {errors.New("qemu: transient")}},
		calls: map[string]int{},
	}
	r := New(Options{Retries: 1}, fb)
	vm, err := r.Compare(context.Background(), repo, "HEAD", []Patch{{Name: "p", Diff: []byte("x")}})
	if err != nil {
		t.Fatal(err)
	}
	if fb.calls["patched"] != 2 {
		t.Errorf("infra error not retried once: %d calls", fb.calls["patched"])
	}
	if vm.Status != report.VMRegression || vm.Regressions != 2 {
		t.Fatalf("status %s regressions %d: %s", vm.Status, vm.Regressions, vm.Summary)
	}
	byName := map[string]report.VMTest{}
	for _, tt := range vm.Tests {
		byName[tt.Name] = tt
	}
	if tt := byName["pipe_two_readers"]; !tt.Regression || tt.Patched != "hang" || tt.Baseline != "pass" {
		t.Errorf("two readers: %+v", tt)
	}
	if tt := byName["syscall_exercise"]; !strings.Contains(tt.Splat, "sleeping function") {
		t.Errorf("splat missing: %+v", tt)
	}
	if tt := byName["pipe_token_ring"]; len(tt.Metrics) != 1 || tt.Metrics[0].Verdict != "worse" || tt.Regression {
		t.Errorf("token ring: %+v", tt)
	}
	text := vm.Text()
	for _, want := range []string{"REGRESSION", "BUG: sleeping function", "ctxsw: 1.05 [1.00..1.10] -> 10.00 [9.00..11.00]", "worse"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	// The baseline is cached: a second comparison does not rerun it.
	if _, err := r.Compare(context.Background(), repo, "HEAD", nil); err != nil {
		t.Fatal(err)
	}
	if fb.calls["baseline"] != 1 {
		t.Errorf("baseline ran %d times", fb.calls["baseline"])
	}
}

func TestCompareBuildFailedRunsNoVM(t *testing.T) {
	repo := gitRepo(t)
	fb := &fakeBackend{
		results: map[string]*KernelResult{"patched": {Label: "patched", Build: BuildResult{Status: BuildFailed,
			Errors: []string{"fs/pipe.c:1:1: error: expected ';'"}}}},
		calls: map[string]int{},
	}
	vm, err := New(Options{}, fb).Compare(context.Background(), repo, "HEAD", []Patch{{Diff: []byte("x")}})
	if err != nil {
		t.Fatal(err)
	}
	if vm.Status != report.VMBuildFailed || fb.calls["baseline"] != 0 {
		t.Fatalf("status %s, baseline calls %d", vm.Status, fb.calls["baseline"])
	}
	if text := vm.Text(); !strings.Contains(text, "Build failed!") || !strings.Contains(text, "expected ';'") {
		t.Errorf("text:\n%s", text)
	}
}

func TestCompareInfraError(t *testing.T) {
	repo := gitRepo(t)
	fb := &fakeBackend{errs: map[string][]error{"patched": {errors.New("a"), errors.New("b")}}, calls: map[string]int{}}
	vm, err := New(Options{Retries: 1}, fb).Compare(context.Background(), repo, "HEAD", nil)
	if err != nil {
		t.Fatal(err)
	}
	if vm.Status != report.VMInfraError || fb.calls["patched"] != 2 {
		t.Fatalf("status %s after %d calls", vm.Status, fb.calls["patched"])
	}
}

func TestCompareBadRef(t *testing.T) {
	repo := gitRepo(t)
	_, err := New(Options{}, &fakeBackend{calls: map[string]int{}}).Compare(context.Background(), repo, "--output=/tmp/x", nil)
	if err == nil {
		t.Fatal("bad ref accepted")
	}
}

func TestStageSkipsWhenDisabled(t *testing.T) {
	var opts Options
	st := NewStage(opts, nil)
	r := &report.Report{}
	if err := st.Run(context.Background(), &series.Series{Patches: []*series.Patch{{Msg: &mail.Message{Diff: "x"}}}}, r); err != nil || r.VM != nil {
		t.Fatalf("disabled stage ran: %v %+v", err, r.VM)
	}
	if st.Name() != "vm" {
		t.Errorf("name %q", st.Name())
	}
	opts.Enabled, opts.Tree = true, t.TempDir()
	r = &report.Report{}
	if err := NewStage(opts, nil).Run(context.Background(), &series.Series{Incomplete: "missing 2/2"}, r); err != nil || r.VM != nil || len(r.Notes) != 1 {
		t.Fatalf("incomplete series: %v %+v %q", err, r.VM, r.Notes)
	}
}

func TestSeriesPatches(t *testing.T) {
	s := &series.Series{
		Patches: []*series.Patch{
			{Number: 1, Msg: &mail.Message{Diff: "diff 1", Subject: mail.Subject{Raw: "[PATCH 1/2] a"}}},
			{Number: 2, Msg: &mail.Message{}},
		},
		Review: []*series.Patch{{Msg: &mail.Message{Diff: "quick fix"}}},
	}
	got := SeriesPatches(s)
	if len(got) != 1 || string(got[0].Diff) != "diff 1" || got[0].Name != "[PATCH 1/2] a" {
		t.Fatalf("%+v", got)
	}
}

// TestSeriesPatchesRepaired: a diff a mail client wrapped is built as the
// analysis read it, re-joined.
func TestSeriesPatchesRepaired(t *testing.T) {
	wrapped := "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n a\n-b\n+call_something_long(argument_one,\nargument_two);\n"
	s := &series.Series{Patches: []*series.Patch{{Number: 1, Msg: &mail.Message{Diff: wrapped}}}}
	got := SeriesPatches(s)
	if len(got) != 1 || !strings.Contains(string(got[0].Diff), "+call_something_long(argument_one, argument_two);\n") {
		t.Fatalf("diff not repaired: %q", got)
	}
}
