package github

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/analysistest"
	"github.com/autosel-bot/autosel-bot/internal/ghfake"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// treePipeline is the analysis stage on the shared 6.1 tree with the
// default rule options, as `check --tree` and `watch` run it.
func treePipeline(t *testing.T, tree string) AnalyzeFunc {
	t.Helper()
	p := &pipeline.Pipeline{Stages: []pipeline.Stage{analysistest.TreeStage(t, tree)}}
	return func(ctx context.Context, s *series.Series) (*report.Report, error) { return p.Run(ctx, s) }
}

// TestSeed002PullRequest is the acceptance test: seed 002 as a two-commit
// pull request gets one review whose line comment is the sleep-in-atomic
// finding at the __pipe_lock line of kernel/watch_queue.c, and a check run
// with the same annotation; running again (and after a restart) posts
// nothing; a force-push with a fix gets a successful check run and the old
// review is marked outdated.
func TestSeed002PullRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the kernel tree index")
	}
	tree := testkernel.Dir(t)
	mbox, _ := filepath.Glob("../testdata/seeds/002-*.mbox")
	if len(mbox) != 1 {
		t.Fatalf("seed 002: %v", mbox)
	}
	commits := seedCommits(t, mbox[0], nil)
	if len(commits) != 2 {
		t.Fatalf("%d commits in seed 002", len(commits))
	}
	srv := ghfake.New(t)
	files, head := prRepo(t, commits)
	pr := &ghfake.PR{Repo: "torvalds/linux", Number: 7, Title: "pipe: use __pipe_{lock,unlock} instead of spinlock",
		Body: "Use a mutex in post_one_notification() so that pipe reads and writes can sleep.", Author: "zhanghongchen",
		HeadSHA: commits[1].SHA, BaseSHA: strings.Repeat("b", 40), Commits: commits, Files: files}
	srv.AddPR(pr)
	db := filepath.Join(t.TempDir(), "state.db")
	analyze := treePipeline(t, tree)
	w, _, c := newTestWatcher(t, srv, db, analyze)
	ctx := context.Background()
	w.PollOnce(ctx)
	if n := len(w.queue); n != 1 {
		t.Fatalf("%d pull requests queued, want 1", n)
	}
	got := <-w.queue
	if err := w.ProcessHead(ctx, got); err != nil {
		t.Fatal(err)
	}

	reviews := srv.Reviews()
	if len(reviews) != 1 {
		t.Fatalf("%d reviews", len(reviews))
	}
	rv := reviews[0]
	if rv.Event != "COMMENT" || rv.CommitID != pr.HeadSHA || !strings.Contains(rv.Body, "sleep-in-atomic") || !strings.Contains(rv.Body, marker(pr.HeadSHA)) {
		t.Errorf("review: event %s commit %s body:\n%s", rv.Event, rv.CommitID, rv.Body)
	}
	if len(rv.Comments) != 1 {
		t.Fatalf("%d line comments: %+v", len(rv.Comments), rv.Comments)
	}
	cm := rv.Comments[0]
	t.Logf("review body:\n%s\nline comment at %v:%v:\n%s", rv.Body, cm["path"], cm["line"], cm["body"])
	line := int(cm["line"].(float64))
	final := head("kernel/watch_queue.c")
	if cm["path"] != "kernel/watch_queue.c" || cm["side"] != "RIGHT" || !strings.Contains(final[line-1], "__pipe_lock(pipe);") {
		t.Errorf("line comment at %v:%d (%q)", cm["path"], line, final[line-1])
	}
	if body, _ := cm["body"].(string); !strings.Contains(body, "sleep-in-atomic") || !strings.Contains(body, "post\\_one\\_notification") {
		t.Errorf("comment body:\n%s", body)
	}
	checks := srv.CheckRuns()
	if len(checks) != 1 {
		t.Fatalf("%d check runs", len(checks))
	}
	cr := checks[0]
	if cr.Status != "completed" || cr.Conclusion != "failure" || cr.HeadSHA != pr.HeadSHA || len(cr.Annotations) != 1 {
		t.Fatalf("check run: %+v", cr)
	}
	an := cr.Annotations[0]
	if an["path"] != "kernel/watch_queue.c" || int(an["start_line"].(float64)) != line || an["annotation_level"] != "failure" ||
		!strings.Contains(an["message"].(string), "sleep-in-atomic") {
		t.Errorf("annotation: %+v", an)
	}
	if strings.Contains(strings.Join(headerValues(srv, "Authorization"), ""), "t0ken") != true {
		t.Error("requests went out without the token")
	}

	// Running again, and again after a restart: nothing new is posted.
	posts := srv.Count("POST ") + srv.Count("PATCH ") + srv.Count("PUT ")
	w.PollOnce(ctx)
	if n := len(w.queue); n != 0 {
		t.Errorf("a done head was queued again")
	}
	if err := w.ProcessHead(ctx, got); err != nil {
		t.Fatal(err)
	}
	w2, _, _ := newTestWatcher(t, srv, db, analyze)
	w2.PollOnce(ctx)
	if n := len(w2.queue); n != 0 {
		t.Errorf("after a restart a done head was queued again")
	}
	if again := srv.Count("POST ") + srv.Count("PATCH ") + srv.Count("PUT "); again != posts {
		t.Errorf("re-running posted %d more requests", again-posts)
	}
	if c.Stats.NotModified.Load() == 0 {
		t.Error("no conditional request was answered 304")
	}

	// A force-push with a fix: patch 2 keeps the spinlock in
	// post_one_notification() (its kernel/watch_queue.c part dropped).
	fixed := seedCommits(t, mbox[0], func(n int, body string) string {
		if n != 2 {
			return body
		}
		i := strings.Index(body, "diff --git a/kernel/watch_queue.c")
		j := strings.LastIndex(body, "\n-- \n")
		return body[:i] + body[j+1:]
	})
	files2, _ := prRepo(t, fixed)
	pr2 := &ghfake.PR{Repo: pr.Repo, Number: pr.Number, Title: pr.Title, Body: pr.Body, Author: pr.Author,
		HeadSHA: fixed[1].SHA, BaseSHA: pr.BaseSHA, Commits: fixed, Files: files2}
	srv.AddPR(pr2)
	w2.PollOnce(ctx)
	if len(w2.queue) != 1 {
		t.Fatalf("force-pushed head not queued")
	}
	if err := w2.ProcessHead(ctx, <-w2.queue); err != nil {
		t.Fatal(err)
	}
	checks = srv.CheckRuns()
	if len(checks) != 2 || checks[1].HeadSHA != pr2.HeadSHA || checks[1].Conclusion != "success" || len(checks[1].Annotations) != 0 {
		t.Fatalf("check runs after the fix: %+v", checks)
	}
	if checks[0].Conclusion != "failure" {
		t.Errorf("the old head's check run changed: %+v", checks[0])
	}
	reviews = srv.Reviews()
	if len(reviews) != 2 || len(reviews[1].Comments) != 0 || reviews[1].CommitID != pr2.HeadSHA {
		t.Fatalf("reviews after the fix: %+v", reviews)
	}
	if !strings.HasPrefix(reviews[0].Body, "**Outdated:**") || !strings.Contains(reviews[0].Body, marker(pr.HeadSHA)) {
		t.Errorf("old review not marked outdated:\n%s", reviews[0].Body)
	}
	if !strings.Contains(reviews[1].Body, "no findings") {
		t.Errorf("new review body:\n%s", reviews[1].Body)
	}
}

func headerValues(srv *ghfake.Server, name string) []string {
	var out []string
	for _, r := range srv.Requests() {
		out = append(out, r.Header.Get(name))
	}
	return out
}
