package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/all"
	"github.com/autosel-bot/autosel-bot/series"
)

// stackedSeries are two series over treeDir, under ids prefixed with id:
// three stacked patches (patch 2 applies only on top of patch 1, patch 3
// nowhere) with a review reply's fix on top of the series, and a
// one-patch series.
func stackedSeries(id string) []*series.Series {
	p1 := "diff --git a/lib/x.c b/lib/x.c\n--- a/lib/x.c\n+++ b/lib/x.c\n@@ -3,4 +3,4 @@ static DEFINE_SPINLOCK(lock);\n static void helper(void)\n {\n-\tudelay(1);\n+\tmutex_lock(&m);\n }\n"
	p2 := "diff --git a/lib/x.c b/lib/x.c\n--- a/lib/x.c\n+++ b/lib/x.c\n@@ -4,3 +4,4 @@ static void helper(void)\n {\n \tmutex_lock(&m);\n+\tmutex_unlock(&m);\n }\n"
	p3 := "diff --git a/lib/x.c b/lib/x.c\n--- a/lib/x.c\n+++ b/lib/x.c\n@@ -9,3 +9,3 @@ void caller(void)\n {\n-\tspin_lock(&other);\n+\tmutex_lock(&other);\n \thelper();\n"
	rv := "diff --git a/lib/x.c b/lib/x.c\n--- a/lib/x.c\n+++ b/lib/x.c\n@@ -4,4 +4,4 @@ static void helper(void)\n {\n-\tmutex_lock(&m);\n+\tmutex_lock_nested(&m, 1);\n \tmutex_unlock(&m);\n }\n"
	// caller() sleeps under its spinlock only once patch 1 of the first
	// series is in; this one makes helper() sleep another way.
	q1 := "diff --git a/lib/x.c b/lib/x.c\n--- a/lib/x.c\n+++ b/lib/x.c\n@@ -3,4 +3,4 @@ static DEFINE_SPINLOCK(lock);\n static void helper(void)\n {\n-\tudelay(1);\n+\tmsleep(1);\n }\n"
	return []*series.Series{
		{ID: id + "a@x", Total: 3, Patches: []*series.Patch{
			{Number: 1, Msg: msg(id+"a@x", "[PATCH 1/3] a", p1, 1)},
			{Number: 2, Msg: msg(id+"b@x", "[PATCH 2/3] b", p2, 1)},
			{Number: 3, Msg: msg(id+"c@x", "[PATCH 3/3] c", p3, 1)},
		}, Review: []*series.Patch{
			{Number: 2, InReview: true, Msg: msg(id+"r@x", "Re: [PATCH 2/3] b", rv, 1)},
		}},
		{ID: id + "q@x", Total: 1, Patches: []*series.Patch{{Number: 1, Msg: msg(id+"q@x", "[PATCH] q", q1, 1)}}},
	}
}

// runAllJSON runs every rule over ss with the given workers (0: the
// analysis' own default, series one at a time) and returns the reports
// as JSON.
func runAllJSON(t *testing.T, opts AnalysisOptions, ss []*series.Series, workers int) string {
	t.Helper()
	opts.Workers = workers
	an, err := NewAnalysis(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := (&Pipeline{Stages: []Stage{an}}).RunAll(context.Background(), ss, workers)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		if r == nil || r.SeriesID != ss[i].ID {
			t.Fatalf("report %d is not series %s's: %+v", i, ss[i].ID, r)
		}
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, rs); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestAnalysisWorkersSameReports: the rules of several patches running at
// once (within a series, whose patches still stack, and across series)
// give the reports of one patch at a time, in the input's order.
func TestAnalysisWorkersSameReports(t *testing.T) {
	dir := treeDir(t)
	var ss []*series.Series
	for i := range 3 {
		ss = append(ss, stackedSeries(fmt.Sprint(i))...)
	}
	opts := AnalysisOptions{Tree: dir, IndexOptions: index.Options{CacheDir: filepath.Join(t.TempDir(), "cache")}, Prepare: true}
	one := runAllJSON(t, opts, ss, 0)
	for _, w := range []int{1, 2, 4} {
		if got := runAllJSON(t, opts, ss, w); got != one {
			t.Errorf("workers=%d: reports differ from one at a time:\n%s\nwant\n%s", w, got, one)
		}
	}
	if !bytes.Contains([]byte(one), []byte("msleep")) || !bytes.Contains([]byte(one), []byte("does not apply")) {
		t.Errorf("the reports miss the findings or notes the series should give:\n%s", one)
	}
}

// TestAnalysisWorkersBound: with Workers n, the rules of at most n
// patches run at once, over every series run at once, and with n > 1
// they do overlap.
func TestAnalysisWorkersBound(t *testing.T) {
	dir := treeDir(t)
	var mu sync.Mutex
	running, most := 0, 0
	var ran []string
	met := make(chan struct{})
	var once sync.Once
	rule := &rules.Rule{Name: "test-overlap", Doc: "counts the rules running at once",
		Run: func(p *rules.Pass) error {
			mu.Lock()
			running++
			most = max(most, running)
			ran = append(ran, p.Change.Files[0].Path())
			if running == 2 {
				once.Do(func() { close(met) })
			}
			mu.Unlock()
			// Hold the slot until a second rule runs (or long after
			// it should have), so a bound above 1 is seen used.
			select {
			case <-met:
			case <-time.After(10 * time.Second):
			}
			time.Sleep(10 * time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
			return nil
		}}
	var ss []*series.Series
	for i := range 3 {
		ss = append(ss, stackedSeries(fmt.Sprint(i))...)
	}
	an, err := NewAnalysis(AnalysisOptions{Rules: []*rules.Rule{rule}, Tree: dir, IndexOptions: index.Options{CacheDir: "-"}, Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := (&Pipeline{Stages: []Stage{an}}).RunAll(context.Background(), ss, 3); err != nil {
		t.Fatal(err)
	}
	// Every patch's rules ran once, the patch that does not apply too
	// (on the view without it).
	if len(ran) != 15 {
		t.Errorf("rules ran for %d patches, want 15: %v", len(ran), ran)
	}
	if most != 2 {
		t.Errorf("at most %d patches' rules ran at once, want 2 (Workers)", most)
	}
	if time.Since(start) > 9*time.Second {
		t.Error("no two patches' rules ever ran at once")
	}
}

// TestAnalysisWorkersKernel: over Linux 6.1, patches from the evaluation
// corpus and a real multi-patch series give the same reports with their
// rules running two and three at once as one at a time.
func TestAnalysisWorkersKernel(t *testing.T) {
	dir := testkernel.Dir(t)
	var ss []*series.Series
	for _, name := range []string{"e1000e-hw-semaphore-usleep", "nci-uart-recv-buf-gfp", "qede-get-stats64-ptt-sleep", "grgpio-irq-map-request-irq"} {
		d, err := os.ReadFile(filepath.Join("..", "eval", "bugs", "sleep", name, "bug.patch"))
		if err != nil {
			t.Fatal(err)
		}
		id := name + "@eval"
		ss = append(ss, &series.Series{ID: id, Total: 1, Patches: []*series.Patch{{Number: 1, Msg: msg(id, "[PATCH] "+name, string(d), 1)}}})
	}
	msgs, errs := mail.LoadWith(context.Background(), []string{filepath.Join("..", "testdata", "seeds", "002-watch-queue-v5.mbox")}, nil, mail.LoadOptions{Thin: true})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	seed := series.Assemble(msgs, series.Options{})
	sort.Slice(seed, func(i, j int) bool { return seed[i].ID < seed[j].ID })
	stacked := 0
	for _, s := range seed {
		stacked = max(stacked, len(s.Patches))
	}
	if stacked < 2 {
		t.Fatalf("seed 002 has no series of several patches")
	}
	ss = append(ss, seed...)
	rs, err := all.Rules(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := AnalysisOptions{Rules: rs, Tree: dir, IndexOptions: index.Options{CacheDir: filepath.Join(filepath.Dir(dir), "index-cache")}}
	one := runAllJSON(t, opts, ss, 0)
	for _, w := range []int{2, 3} {
		if got := runAllJSON(t, opts, ss, w); got != one {
			t.Errorf("workers=%d: reports differ from one at a time", w)
		}
	}
}

// TestAnalysisPanicPerPatch: a panic in a patch's analysis outside any
// one rule (here a rule that drops the notes an earlier rule made) is
// that patch's error, whatever the workers: every other patch and series
// is analysed, and no slot is lost (one worker would hang for ever).
func TestAnalysisPanicPerPatch(t *testing.T) {
	dir := treeDir(t)
	note := &rules.Rule{Name: "note", Doc: "notes", Run: func(p *rules.Pass) error { p.Note("x"); return nil }}
	drop := &rules.Rule{Name: "drop", Doc: "drops the notes", Run: func(p *rules.Pass) error { p.Notes = nil; return nil }}
	var ss []*series.Series
	for i := range 2 {
		ss = append(ss, stackedSeries(fmt.Sprint(i))...)
	}
	var outs []string
	for _, w := range []int{0, 1, 2} {
		opts := AnalysisOptions{Rules: []*rules.Rule{note, drop}, Tree: dir, IndexOptions: index.Options{CacheDir: "-"}}
		done := make(chan string, 1)
		go func() { done <- runAllJSON(t, opts, ss, w) }()
		select {
		case out := <-done:
			outs = append(outs, out)
		case <-time.After(30 * time.Second):
			t.Fatalf("workers=%d: the analysis hangs", w)
		}
	}
	for i, w := range []int{1, 2} {
		if outs[i+1] != outs[0] {
			t.Errorf("workers=%d: reports differ from one at a time:\n%s\nwant\n%s", w, outs[i+1], outs[0])
		}
	}
	if n := strings.Count(outs[0], "analysis failed: panic"); n != 10 {
		t.Errorf("%d patches failed, want all 10, each on its own:\n%s", n, outs[0])
	}
}

// TestRunAllCancelled: a cancelled context ends RunAll with its error,
// and the series never started have no report.
func TestRunAllCancelled(t *testing.T) {
	dir := treeDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	ran := 0
	var mu sync.Mutex
	rule := &rules.Rule{Name: "cancel", Doc: "cancels", Run: func(p *rules.Pass) error {
		mu.Lock()
		ran++
		mu.Unlock()
		cancel()
		return nil
	}}
	an, err := NewAnalysis(AnalysisOptions{Rules: []*rules.Rule{rule}, Tree: dir, IndexOptions: index.Options{CacheDir: "-"}, Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ss := stackedSeries("c")
	reports, err := (&Pipeline{Stages: []Stage{an}}).RunAll(ctx, append(ss, stackedSeries("d")...), 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunAll: %v, want context.Canceled", err)
	}
	if ran != 1 || reports[len(reports)-1] != nil {
		t.Errorf("rules ran %d times after the cancel; last report %+v", ran, reports[len(reports)-1])
	}
}
