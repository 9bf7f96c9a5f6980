package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/series"
)

func msg(id, subject, diff string, diffLine int) *mail.Message {
	return &mail.Message{
		MessageID: id,
		Subject:   mail.Subject{Raw: subject, Patch: true},
		From:      mail.Address{Name: "A U Thor", Addr: "author@example.org"},
		Diff:      diff,
		DiffLine:  diffLine,
	}
}

func readDiff(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "diffcheck", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mutexRule flags every touched function whose new side calls mutex_lock;
// it also records what it saw so tests can check the Pass.
type seen struct {
	indexed []bool
	partial []bool
	// before holds lib/x.c as the pass's pre-patch index view shows it.
	before []string
}

func mutexRule(s *seen) *rules.Rule {
	return &rules.Rule{
		Name: "test-mutex",
		Doc:  "flags mutex_lock in changed functions",
		Run: func(p *rules.Pass) error {
			s.indexed = append(s.indexed, p.Index != nil)
			if p.Index != nil {
				b, _ := p.Index.Base().ReadFile("lib/x.c")
				s.before = append(s.before, string(b))
			}
			for _, f := range p.Change.Funcs {
				s.partial = append(s.partial, f.New.Partial || f.Deleted)
				for i, l := range strings.Split(f.New.Text, "\n") {
					if strings.Contains(l, "mutex_lock") && f.New.Changed[i] {
						p.Report(report.Finding{Severity: report.SeverityNote, File: f.File, Func: f.Name,
							Line: f.New.Lines[i], Message: "takes a mutex", Evidence: []string{"+" + l}})
					}
				}
			}
			p.Note("test-mutex looked at " + p.Change.Files[0].Path())
			return nil
		},
	}
}

func TestAnalysisPatchOnly(t *testing.T) {
	s := &series.Series{
		ID: "p1@x", Title: "watch_queue: refactor", Version: 5, Total: 2,
		Author: mail.Address{Name: "Hongchen Zhang", Addr: "zhanghongchen@loongson.cn"},
		Date:   time.Date(2023, 1, 10, 0, 0, 0, 0, time.UTC),
		Patches: []*series.Patch{
			{Number: 1, Msg: msg("p1@x", "[PATCH v5 1/2] watch_queue: refactor", readDiff(t, "watch-queue-1.diff"), 20)},
			{Number: 2, Msg: msg("p2@x", "[PATCH v5 2/2] pipe: use __pipe_lock", readDiff(t, "watch-queue-2.diff"), 20)},
		},
		Review: []*series.Patch{
			{Number: 2, InReview: true, Msg: msg("r1@x", "Re: [PATCH v5 2/2] pipe", "diff --git a/fs/pipe.c b/fs/pipe.c\n--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n\tbroken\n d\n", 12)},
		},
	}
	var sn seen
	an, err := NewAnalysis(AnalysisOptions{Rules: []*rules.Rule{mutexRule(&sn)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &Pipeline{Stages: []Stage{an}}
	r, err := p.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if r.SeriesID != "p1@x" || r.Author != "Hongchen Zhang <zhanghongchen@loongson.cn>" || r.Version != 5 || r.Total != 2 ||
		r.Subject != "[PATCH v5 1/2] watch_queue: refactor" {
		t.Errorf("header %+v", r)
	}
	if len(r.Patches) != 3 || !r.Patches[2].InReview {
		t.Fatalf("patches %+v", r.Patches)
	}
	if want := []string{"fs/pipe.c", "include/linux/pipe_fs_i.h", "kernel/watch_queue.c"}; !reflect.DeepEqual(r.Patches[1].Files, want) {
		t.Errorf("files %v", r.Patches[1].Files)
	}
	for _, fn := range []string{"fs/pipe.c:pipe_read", "fs/pipe.c:pipe_write", "fs/pipe.c:pipe_resize_ring", "kernel/watch_queue.c:post_one_notification"} {
		if !contains(r.Patches[1].Funcs, fn) {
			t.Errorf("patch 2 funcs %v lack %s", r.Patches[1].Funcs, fn)
		}
	}
	// The inline __pipe_lock in pipe_fs_i.h calls mutex_lock_nested.
	f := r.Patches[1].Findings
	if len(f) != 1 || f[0].Patch != 2 || f[0].Rule != "test-mutex" || f[0].File != "include/linux/pipe_fs_i.h" || f[0].Func != "__pipe_lock" {
		t.Errorf("findings %+v", f)
	}
	if !contains(r.Patches[0].Notes, "test-mutex looked at fs/pipe.c") {
		t.Errorf("pass notes not copied: %v", r.Patches[0].Notes)
	}
	if !contains(r.Notes, NotePatchOnly) {
		t.Errorf("series notes %v", r.Notes)
	}
	for _, pa := range sn.partial {
		if !pa {
			t.Error("patch-only sides must be partial")
		}
	}
	// The review patch is malformed: named by Message-ID and body line
	// (diff line 8 + diff start 12 - 1).
	rv := r.Patches[2]
	if !strings.Contains(rv.Error, "<r1@x>") || !strings.Contains(rv.Error, "body line 19") {
		t.Errorf("review error %q", rv.Error)
	}
	if len(r.Errors) != 1 || r.Errors[0].MessageID != "r1@x" || r.Errors[0].Line != 19 {
		t.Errorf("report errors %+v", r.Errors)
	}
}

type failStage struct {
	name  string
	err   error
	panic bool
	ran   *[]string
}

func (f failStage) Name() string { return f.name }
func (f failStage) Run(ctx context.Context, s *series.Series, r *report.Report) error {
	*f.ran = append(*f.ran, f.name)
	if f.panic {
		panic("boom")
	}
	return f.err
}

func TestPipelineStageErrors(t *testing.T) {
	var ran []string
	p := &Pipeline{Stages: []Stage{
		failStage{name: "a", err: errors.New("tree gone"), ran: &ran},
		failStage{name: "b", panic: true, ran: &ran},
		Func("c", func(ctx context.Context, s *series.Series, r *report.Report) error {
			ran = append(ran, "c")
			r.Notes = append(r.Notes, "c ran")
			return nil
		}),
	}}
	s := &series.Series{ID: "x@y", Patches: []*series.Patch{{Number: 1, Msg: msg("x@y", "[PATCH] x", "", 0)}}}
	r, err := p.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ran, []string{"a", "b", "c"}) {
		t.Errorf("stages ran %v", ran)
	}
	if len(r.Errors) != 2 || r.Errors[0].Source != "stage a" || r.Errors[0].Err != "tree gone" ||
		r.Errors[1].Source != "stage b" || !strings.Contains(r.Errors[1].Err, "panic: boom") {
		t.Errorf("errors %+v", r.Errors)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Run(ctx, s); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
}

func TestAnalysisRuleFailures(t *testing.T) {
	bad := &rules.Rule{Name: "bad", Doc: "d", Run: func(*rules.Pass) error { panic("nil map") }}
	errRule := &rules.Rule{Name: "err", Doc: "d", Run: func(*rules.Pass) error { return errors.New("no tables") }}
	good := &rules.Rule{Name: "good", Doc: "d", Run: func(p *rules.Pass) error {
		p.Report(report.Finding{Severity: report.SeverityNote, Message: "n"})
		p.Report(report.Finding{Severity: report.SeverityRisk, Message: "r"})
		return nil
	}}
	an, err := NewAnalysis(AnalysisOptions{Rules: []*rules.Rule{bad, errRule, good}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &series.Series{ID: "x@y", Patches: []*series.Patch{{Number: 1, Msg: msg("x@y", "[PATCH] x", readDiff(t, "watch-queue-1.diff"), 1)}}}
	r, err := (&Pipeline{Stages: []Stage{an}}).Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	pr := r.Patches[0]
	if len(pr.Findings) != 2 || pr.Findings[0].Severity != report.SeverityRisk || pr.Findings[0].Rule != "good" || pr.Findings[0].Patch != 1 {
		t.Errorf("findings %+v", pr.Findings)
	}
	var notes string = strings.Join(pr.Notes, "\n")
	if !strings.Contains(notes, "rule bad failed: panic: nil map") || !strings.Contains(notes, "rule err failed: no tables") {
		t.Errorf("notes %q", notes)
	}
}

const treeC = `static DEFINE_SPINLOCK(lock);

static void helper(void)
{
	udelay(1);
}

void caller(void)
{
	spin_lock(&lock);
	helper();
	spin_unlock(&lock);
}
`

// treeDir returns a temporary tree holding treeC as lib/x.c.
func treeDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lib/x.c"), []byte(treeC), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAnalysisTreeStacks(t *testing.T) {
	dir := treeDir(t)
	// Patch 2 only applies on top of patch 1, patch 3 nowhere; a review
	// reply's fix applies on top of the whole series (1 and 2).
	s := stackedSeries("")[0]
	var sn seen
	an, err := NewAnalysis(AnalysisOptions{Rules: []*rules.Rule{mutexRule(&sn)}, Tree: dir, IndexOptions: index.Options{CacheDir: "-"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := (&Pipeline{Stages: []Stage{an}}).Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if contains(r.Notes, NotePatchOnly) {
		t.Error("tree mode noted as patch-only")
	}
	for i, pr := range r.Patches[:2] {
		if len(pr.Notes) > 1 || pr.Error != "" {
			t.Errorf("patch %d: notes %v error %q", i+1, pr.Notes, pr.Error)
		}
		if !reflect.DeepEqual(pr.Funcs, []string{"lib/x.c:helper"}) {
			t.Errorf("patch %d funcs %v", i+1, pr.Funcs)
		}
	}
	if f := r.Patches[0].Findings; len(f) != 1 || f[0].Line != 5 || f[0].Func != "helper" {
		t.Errorf("patch 1 findings %+v", f)
	}
	if rvr := r.Patches[3]; len(rvr.Notes) > 1 || len(rvr.Findings) != 1 || rvr.Findings[0].Line != 5 {
		t.Errorf("review patch on top of the series: notes %v findings %+v", rvr.Notes, rvr.Findings)
	}
	if !reflect.DeepEqual(sn.indexed, []bool{true, true, true, true}) {
		t.Errorf("rules saw an index: %v", sn.indexed)
	}
	// Each patch is compared with the tree as the earlier patches left it:
	// patch 2's pre-patch view has patch 1's mutex_lock, the review fix's
	// has patch 2's mutex_unlock.
	if len(sn.before) != 4 || strings.Contains(sn.before[0], "mutex_lock") ||
		!strings.Contains(sn.before[1], "mutex_lock(&m)") || strings.Contains(sn.before[1], "mutex_unlock") ||
		!strings.Contains(sn.before[3], "mutex_unlock(&m)") {
		t.Errorf("pre-patch index views do not stack: %q", sn.before)
	}
	if sn.partial[0] || sn.partial[1] {
		t.Errorf("tree sides partial: %v", sn.partial)
	}
	n3 := strings.Join(r.Patches[2].Notes, "\n")
	if !strings.Contains(n3, "does not apply") || !strings.Contains(n3, "spin_lock(&other)") {
		t.Errorf("patch 3 notes %q", n3)
	}
	if _, err := NewAnalysis(AnalysisOptions{Tree: filepath.Join(dir, "lib/x.c"), Rules: []*rules.Rule{}}, nil); err == nil {
		t.Error("a file accepted as --tree")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var _ = diffcheck.Parse
