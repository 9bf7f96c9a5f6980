package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/configtest"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/all"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// seeds holds the reports of the seed threads, analysed once per test
// binary (patch-only, the default rules, as `replay` does without a tree).
var seeds struct {
	once    sync.Once
	reports []*report.Report
	err     error
}

// seedReports returns the seed threads' reports, in series-id order.
func seedReports(tb testing.TB) []*report.Report {
	tb.Helper()
	seeds.once.Do(func() {
		paths, _ := filepath.Glob(filepath.Join("..", "testdata", "seeds", "*.mbox"))
		seeds.reports, seeds.err = analyse(paths)
	})
	if seeds.err != nil {
		tb.Fatal(seeds.err)
	}
	if len(seeds.reports) < 4 {
		tb.Fatalf("%d seed reports", len(seeds.reports))
	}
	return seeds.reports
}

// analyse runs the patch-only pipeline over the mail in paths.
func analyse(paths []string) ([]*report.Report, error) {
	ctx := context.Background()
	msgs, errs := mail.LoadWith(ctx, paths, nil, mail.LoadOptions{Thin: true})
	if len(errs) > 0 {
		return nil, errs[0]
	}
	ss := series.Assemble(msgs, series.Options{})
	sort.Slice(ss, func(i, j int) bool { return ss[i].ID < ss[j].ID })
	var ro rules.Options
	if err := configtest.Section("rules", &ro); err != nil {
		return nil, err
	}
	rs, err := all.Rules(ro)
	if err != nil {
		return nil, err
	}
	an, err := pipeline.NewAnalysis(pipeline.AnalysisOptions{Rules: rs, RuleOptions: ro}, nil)
	if err != nil {
		return nil, err
	}
	p := &pipeline.Pipeline{Stages: []pipeline.Stage{an}}
	return p.RunAll(ctx, ss, 1)
}

// seed002 matches the report of seed 002 (watch_queue v5, whose patch
// 2/2 makes post_one_notification() take the pipe mutex).
func seed002(r *report.Report) bool {
	for _, p := range r.Patches {
		if strings.Contains(p.Subject, "pipe: use __pipe_{lock,unlock} instead of spinlock") && r.Version == 5 {
			return true
		}
	}
	return false
}

// seedReport returns the first seed report match accepts.
func seedReport(tb testing.TB, match func(r *report.Report) bool) *report.Report {
	tb.Helper()
	for _, r := range seedReports(tb) {
		if match(r) {
			return r
		}
	}
	tb.Fatal("no such seed report")
	return nil
}

// withChain returns the first sleep-in-atomic finding of r with a call
// chain: seed 002's pictures are of that finding (its patch 2/2 also has a
// wakeup finding with a chain, the _locked wake-up left without the queue
// lock).
func withChain(r *report.Report) *report.Finding {
	for i := range r.Patches {
		for j := range r.Patches[i].Findings {
			if f := &r.Patches[i].Findings[j]; len(f.Chain) > 0 && f.Rule == "sleep-in-atomic" {
				return f
			}
		}
	}
	return nil
}

// recordReports writes reports into a new state database as finished
// series, the way the daemon records them, and returns it open.
func recordReports(tb testing.TB, reports []*report.Report) *store.Store {
	tb.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(tb.TempDir(), "state.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	for _, r := range reports {
		key := seriesKey(r)
		if _, err := st.BeginSeries(ctx, &store.Series{Key: key, SeriesID: r.SeriesID, Version: r.Version, Title: r.Title,
			Author: r.Author, Total: r.Total}); err != nil {
			tb.Fatal(err)
		}
		js, err := json.Marshal(r)
		if err != nil {
			tb.Fatal(err)
		}
		if err := st.FinishSeries(ctx, key, store.SeriesDone, "", string(js), nil, nil); err != nil {
			tb.Fatal(err)
		}
	}
	return st
}

// seriesKey is the daemon's key of a report's series.
func seriesKey(r *report.Report) string {
	v := r.Version
	if v == 0 {
		v = 1
	}
	return fmt.Sprintf("%s#v%d", r.SeriesID, v)
}

// serve starts the handler over st on loopback.
func serve(tb testing.TB, st *store.Store) *httptest.Server {
	tb.Helper()
	h, err := New(st, nil)
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv
}

// get fetches path from srv and returns the status and body.
func get(tb testing.TB, srv *httptest.Server, path string) (int, string) {
	tb.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// evalPatch is a patch of the evaluation corpus whose wakeup findings
// carry a call chain and a CPU 0 / CPU 1 interleaving.
const evalPatch = "../eval/bugs/wakeup/fuse-drop-waiting-abort-barrier/bug.patch"

// evalReport returns the report of evalPatch.
func evalReport(tb testing.TB) *report.Report {
	tb.Helper()
	rs, err := analyse([]string{evalPatch})
	if err != nil {
		tb.Fatal(err)
	}
	if len(rs) != 1 {
		tb.Fatalf("%d reports of %s", len(rs), evalPatch)
	}
	return rs[0]
}

// withTimeline returns the first finding of r with an interleaving.
func withTimeline(r *report.Report) *report.Finding {
	for i := range r.Patches {
		for j := range r.Patches[i].Findings {
			if f := &r.Patches[i].Findings[j]; len(f.Chain) > 0 {
				if tls, _ := ParseTimelines(f.Evidence); len(tls) > 0 {
					return f
				}
			}
		}
	}
	return nil
}

// seed002TreeChain is the chain `check --tree` reports for seed 002 on
// Linux 6.1 (README), for tests that run without the kernel tree.
func seed002TreeChain() []report.Step {
	return []report.Step{
		{Func: "__post_watch_notification", File: "kernel/watch_queue.c", Line: 211, What: "rcu_read_lock()"},
		{Func: "__post_watch_notification", File: "kernel/watch_queue.c", Line: 227, What: "calls lock_wqueue()"},
		{Func: "lock_wqueue", File: "kernel/watch_queue.c", Line: 45, What: "spin_lock_bh(&wqueue->lock)"},
		{Func: "__post_watch_notification", File: "kernel/watch_queue.c", Line: 228, What: "calls post_one_notification()"},
		{Func: "post_one_notification", File: "kernel/watch_queue.c", Line: 128, What: "calls __pipe_lock()"},
		{Func: "__pipe_lock", File: "include/linux/pipe_fs_i.h", Line: 246, What: "mutex_lock_nested(&pipe->mutex, I_MUTEX_PARENT)"},
	}
}

// seed002Tree is seed 002's report with its finding as `check --tree`
// reports it (README): a risk whose chain runs from RCU and a spinlock
// to the pipe mutex, as a series of its own.
func seed002Tree(tb testing.TB) *report.Report {
	tb.Helper()
	src := seedReport(tb, seed002)
	js, err := json.Marshal(src)
	if err != nil {
		tb.Fatal(err)
	}
	r := &report.Report{}
	if err := json.Unmarshal(js, r); err != nil {
		tb.Fatal(err)
	}
	r.SeriesID, r.Title = "tree."+r.SeriesID, r.Title+" (with the tree)"
	f := withChain(r)
	if f == nil {
		tb.Fatal("seed 002 has no finding with a chain")
	}
	f.ID, f.Rule, f.Category, f.Severity, f.NeedsTree = "", "sleep-in-atomic", "", report.SeverityRisk, false
	f.Chain = seed002TreeChain()
	report.AssignIDs(r)
	return r
}
