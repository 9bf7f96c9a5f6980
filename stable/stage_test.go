package stable

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/patchguard"
	"github.com/autosel-bot/autosel-bot/internal/sandbox"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/stable/stabletest"
)

const fooC = `#include "helper.h"

int alpha(int x)
{
	int y = x + 1;

	return y;
}

int beta(int x)
{
	return x * 2;
}

int gamma(int x)
{
	int z = x - 1;

	return z;
}
`

// world is the synthetic history the stable tests share:
//
//	master:   c0 init -> c1 helper -> c2 alpha rework -> c3 beta faster -> c4 (patch B, upstream)
//	proposed: c3 -> pA (clamp alpha; Fixes: c2) -> pC (gamma uses helper_double) -> pA2 (comments pA's line)
//	v6.6.3:   c3 + a stable-only commit          (has everything)
//	v6.1.50:  c0 + backport of c3                (lacks c1 and c2)
//	v5.15.90: c0 + a hand backport of pA          (already has pA)
type world struct {
	repo                *stabletest.Repo
	c0, c1, c2, c3, c4  string
	pA, pB, pC, pA2     string
	v663, v6150, v51590 string
	opts                Options
}

const buildCmd = "gcc -Werror=implicit-function-declaration -fsyntax-only foo.c"

func newWorld(t *testing.T) *world { return newWorldTB(t) }

func newWorldTB(t testing.TB) *world {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Fatalf("gcc is needed: %v", err)
	}
	r := stabletest.NewRepo(t)
	w := &world{repo: r}
	r.Write("foo.c", fooC)
	r.Write("helper.h", "#define HELPER_H 1\n")
	w.c0 = r.Commit("foo: initial version")
	r.Write("helper.h", "#define HELPER_H 1\n\nstatic inline int helper_double(int x)\n{\n\treturn 2 * x;\n}\n")
	w.c1 = r.Commit("helper: add helper_double()")
	r.Replace("foo.c", "\tint y = x + 1;\n", "\tint y = x + 2;\n\n\tif (y < 0)\n\t\ty = 1;\n")
	w.c2 = r.Commit("foo: rework alpha")
	r.Replace("foo.c", "\treturn x * 2;\n", "\treturn x << 1;\n")
	w.c3 = r.Commit("foo: make beta faster")

	r.Git("checkout", "-q", "-b", "proposed")
	r.Replace("foo.c", "\tif (y < 0)\n\t\ty = 1;\n", "\tif (y < 0)\n\t\ty = 0;\n")
	w.pA = r.Commit("foo: clamp alpha at zero\n\nThe rework made alpha clamp at one.\n\nFixes: " + w.c2[:12] + " (\"foo: rework alpha\")\nCc: stable@vger.kernel.org\nSigned-off-by: Test Author <author@example.org>")
	r.Replace("foo.c", "\tint z = x - 1;\n", "\tint z = helper_double(x) - 1;\n")
	w.pC = r.Commit("foo: let gamma double\n\nCc: stable@vger.kernel.org # 6.1+\nSigned-off-by: Test Author <author@example.org>")
	r.Replace("foo.c", "\t\ty = 0;\n", "\t\ty = 0;\t/* clamp */\n")
	w.pA2 = r.Commit("foo: comment the alpha clamp\n\nCc: stable@vger.kernel.org\nSigned-off-by: Test Author <author@example.org>")

	r.Git("checkout", "-q", "master")
	r.Replace("foo.c", "\treturn x << 1;\n", "\treturn x * 2; /* no overflow games */\n")
	w.c4 = r.Commit("foo: undo the beta shift\n\nFixes: " + w.c3[:12] + "\nSigned-off-by: Test Author <author@example.org>")
	w.pB = w.c4

	r.Git("checkout", "-q", "-b", "linux-6.6.y", w.c3)
	r.Write("bar.c", "int bar;\n")
	w.v663 = r.Commit("bar: stable-only addition")
	r.Git("checkout", "-q", "-b", "linux-6.1.y", w.c0)
	w.v6150 = r.CherryPick(w.c3)
	r.Git("checkout", "-q", "-b", "linux-5.15.y", w.c0)
	r.Replace("foo.c", "\tint y = x + 1;\n", "\tint y = x + 1;\n\n\tif (y < 0)\n\t\ty = 0;\n")
	w.v51590 = r.Commit("foo: clamp alpha at zero")
	r.Git("checkout", "-q", "master")

	w.opts = Options{
		Enabled:  true,
		Repo:     r.Dir,
		Upstream: UpstreamOptions{Ref: "master"},
		Trees: []TreeOptions{
			{Name: "v6.6.3", Ref: "linux-6.6.y", Build: buildCmd},
			{Name: "v6.1.50", Ref: "linux-6.1.y", Build: buildCmd},
			{Name: "v5.15.90", Ref: "linux-5.15.y", Build: buildCmd},
		},
		WorkDir:  t.TempDir(),
		CacheDir: t.TempDir(),
		CCache:   true,
	}
	return w
}

func (w *world) run(t *testing.T, msgs ...*mail.Message) *report.Report {
	t.Helper()
	r := &report.Report{}
	if err := NewStage(w.opts, nil).Run(context.Background(), stabletest.Series(msgs...), r); err != nil {
		t.Fatal(err)
	}
	return r
}

func names(sr *report.StableReport) []string {
	var out []string
	for _, t := range sr.Trees {
		out = append(out, t.Name)
	}
	return out
}

func TestStableTagAllTrees(t *testing.T) {
	w := newWorld(t)
	r := w.run(t, w.repo.PatchMail(w.pA))
	sr := r.Patches[0].Stable
	if sr == nil {
		t.Fatal("no stable result")
	}
	if sr.Kind != KindStableTag || sr.Relevant != "all" {
		t.Errorf("kind %q relevant %q, want stable-tag all", sr.Kind, sr.Relevant)
	}
	wantReason := "This commit has been processed because it contains a -stable tag.\nThe stable tag indicates that it's relevant for the following trees: all"
	if sr.Reason != wantReason {
		t.Errorf("reason %q", sr.Reason)
	}
	if got := strings.Join(names(sr), ","); got != "v6.6.3,v6.1.50,v5.15.90" {
		t.Errorf("trees %s", got)
	}
	// v6.6.3 has the reworked alpha: applies and builds.
	if tr := treeResult(t, sr, "v6.6.3"); !tr.Applied || tr.Build != "ok" {
		t.Errorf("v6.6.3: %+v", tr)
	}
	// v6.1.50 lacks "foo: rework alpha": fails, names it, applies on top of it.
	tr := treeResult(t, sr, "v6.1.50")
	if tr.Applied {
		t.Fatalf("v6.1.50 applied: %+v", tr)
	}
	if got := shas(tr.Dependencies); strings.Join(got, ",") != w.c2[:12] {
		t.Errorf("v6.1.50 dependencies %v, want [%s] (foo: rework alpha)", got, w.c2[:12])
	}
	if len(tr.Dependencies) == 1 && tr.Dependencies[0].Subject != "foo: rework alpha" {
		t.Errorf("dependency subject %q", tr.Dependencies[0].Subject)
	}
	if got := shas(tr.Prerequisites); strings.Join(got, ",") != w.c2[:12] {
		t.Errorf("v6.1.50 prerequisites %v, want [%s]", got, w.c2[:12])
	}
	if len(tr.FailedHunks) != 1 || !strings.HasPrefix(tr.FailedHunks[0], "foo.c:") {
		t.Errorf("failed hunks %v", tr.FailedHunks)
	}
	if len(tr.Backports) != 1 || tr.Backports[0].Tree != "v5.15.90" || tr.Backports[0].Commit.SHA != w.v51590 {
		t.Errorf("backports %+v, want v5.15.90 %s", tr.Backports, w.v51590)
	}
	if tr.Build != "" {
		t.Errorf("v6.1.50 built although it did not apply: %q", tr.Build)
	}
	// v5.15.90 already carries a backport of it.
	if tr := treeResult(t, sr, "v5.15.90"); tr.Present == nil || tr.Present.SHA != w.v51590 {
		t.Errorf("v5.15.90: %+v", tr)
	}
	if sr.Upstream {
		t.Errorf("pA is not upstream: %+v", sr.UpstreamCommit)
	}
	// Series summary.
	if r.Stable == nil || len(r.Stable.Trees) != 3 || r.Stable.Trees[1].Applied {
		t.Errorf("summary %+v", r.Stable)
	}
}

func TestFixesRelevance(t *testing.T) {
	w := newWorld(t)
	r := w.run(t, w.repo.PatchMail(w.pB))
	sr := r.Patches[0].Stable
	if sr == nil {
		t.Fatal("no stable result")
	}
	if sr.Kind != KindFixes {
		t.Errorf("kind %q", sr.Kind)
	}
	wantReason := "This commit has been processed because it contains a \"Fixes:\" tag\nfixing commit: " + w.c3[:12] + " (\"foo: make beta faster\")."
	if sr.Reason != wantReason {
		t.Errorf("reason\n%q\nwant\n%q", sr.Reason, wantReason)
	}
	// v6.6.3 contains c3; v6.1.50 has a backport of it (other sha, same
	// subject); v5.15.90 has neither.
	if got := strings.Join(names(sr), ","); got != "v6.6.3,v6.1.50" {
		t.Errorf("trees %s, want v6.6.3,v6.1.50", got)
	}
	for _, n := range []string{"v6.6.3", "v6.1.50"} {
		if tr := treeResult(t, sr, n); !tr.Applied || tr.Build != "ok" {
			t.Errorf("%s: %+v", n, tr)
		}
	}
	if !sr.Upstream || sr.UpstreamCommit == nil || sr.UpstreamCommit.SHA != w.c4 || sr.UpstreamMatch != "patch-id" {
		t.Errorf("upstream %v %+v %q, want %s by patch-id", sr.Upstream, sr.UpstreamCommit, sr.UpstreamMatch, w.c4)
	}
}

func TestVersionRangeAndBuildFailure(t *testing.T) {
	w := newWorld(t)
	r := w.run(t, w.repo.PatchMail(w.pC))
	sr := r.Patches[0].Stable
	if sr == nil {
		t.Fatal("no stable result")
	}
	if sr.Relevant != "6.1+" {
		t.Errorf("relevant %q, want 6.1+", sr.Relevant)
	}
	if got := strings.Join(names(sr), ","); got != "v6.6.3,v6.1.50" {
		t.Errorf("trees %s, want v6.6.3,v6.1.50 (5.15 is older than 6.1)", got)
	}
	if tr := treeResult(t, sr, "v6.6.3"); !tr.Applied || tr.Build != "ok" {
		t.Errorf("v6.6.3: %+v", tr)
	}
	tr := treeResult(t, sr, "v6.1.50")
	if !tr.Applied || tr.Build != "failed" {
		t.Fatalf("v6.1.50: %+v", tr)
	}
	found := false
	for _, l := range tr.BuildErrors {
		found = found || strings.HasPrefix(l, "foo.c:") && strings.Contains(l, "error: implicit declaration of function 'helper_double'")
	}
	if !found {
		t.Errorf("build errors %q: no compiler error line for foo.c", tr.BuildErrors)
	}
}

func TestAutoselRelevance(t *testing.T) {
	w := newWorld(t)
	raw := w.repo.Git("format-patch", "-1", "--stdout", "--no-signature", "--subject-prefix=PATCH AUTOSEL 6.1", w.pC)
	m := stabletest.ParseMail(t, strings.ReplaceAll(raw, "Cc: stable@vger.kernel.org # 6.1+\n", ""))
	r := w.run(t, m)
	sr := r.Patches[0].Stable
	if sr == nil || sr.Kind != KindAutosel {
		t.Fatalf("stable %+v", sr)
	}
	if got := strings.Join(names(sr), ","); got != "v6.1.50" {
		t.Errorf("trees %s, want v6.1.50", got)
	}
}

func TestNotRelevantNoResult(t *testing.T) {
	w := newWorld(t)
	raw := w.repo.Git("format-patch", "-1", "--stdout", "--no-signature", w.pC)
	m := stabletest.ParseMail(t, strings.ReplaceAll(raw, "Cc: stable@vger.kernel.org # 6.1+\n", ""))
	rep := w.run(t, m)
	if rep.Stable != nil || (len(rep.Patches) > 0 && rep.Patches[0].Stable != nil) {
		t.Errorf("untagged patch got stable results: %+v", rep.Stable)
	}
}

// TestCancelCleansUp cancels the run in the middle of a (hanging) build:
// Run must return promptly, kill the build's process group, remove its
// temporary files and release the tree's persistent worktree, which the
// next run finds locked by nobody and resets.
func TestCancelCleansUp(t *testing.T) {
	w := newWorld(t)
	w.opts.Trees = w.opts.Trees[:1]
	w.opts.Trees[0].Build = `touch "$AUTOSEL_BUILD_DIR/started"; sleep 60`
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- NewStage(w.opts, nil).Run(ctx, stabletest.Series(w.repo.PatchMail(w.pA)), &report.Report{})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(w.opts.CacheDir, "build", "*", "started"))
		if len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("build never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("no error from a cancelled run")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("Run took %v to return after cancel", d)
	}
	if got := worktrees(w); len(got) != 2 || !strings.HasPrefix(got[1], filepath.Join(w.opts.CacheDir, "src")+"/") {
		t.Errorf("worktrees: %v", got)
	}
	if left, _ := os.ReadDir(w.opts.WorkDir); len(left) != 0 {
		t.Errorf("temporary directories left behind: %v", left)
	}
	w.opts.Trees[0].Build = "test ! -e started && " + buildCmd
	sr := w.run(t, w.repo.PatchMail(w.pA)).Patches[0].Stable
	if tr := treeResult(t, sr, "v6.6.3"); tr.Build != "ok" {
		t.Errorf("run after the cancelled one: %+v", tr)
	}
}

// worktrees lists the repository's worktrees (its own checkout first).
func worktrees(w *world) []string {
	var out []string
	for _, l := range strings.Split(w.repo.Git("worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(l, "worktree "); ok {
			out = append(out, p)
		}
	}
	return out
}

// TestWorktreesRemoved: throwaway worktrees (no cache directory, or no
// build command) are removed; the user's checkout is never modified.
func TestWorktreesRemoved(t *testing.T) {
	w := newWorld(t)
	w.opts.CacheDir = ""
	w.run(t, w.repo.PatchMail(w.pA))
	w.opts.CacheDir = t.TempDir()
	w.opts.Trees[1].Build, w.opts.Trees[2].Build = "", ""
	w.run(t, w.repo.PatchMail(w.pA))
	if got := worktrees(w); len(got) != 2 || !strings.Contains(got[1], "v6.6.3") {
		t.Errorf("worktrees left behind: %v", got)
	}
	if st := w.repo.Git("status", "--porcelain"); st != "" {
		t.Errorf("user checkout modified:\n%s", st)
	}
	if left, _ := os.ReadDir(w.opts.WorkDir); len(left) != 0 {
		t.Errorf("temporary directories left behind: %v", left)
	}
}

// TestPersistentWorktree: a tree that builds into the cache directory keeps
// one worktree across runs, reset to the tree's commit on every use; only
// the files the patches change are written, so the others keep their
// mtimes (and make rebuilds only what the patches touch).
func TestPersistentWorktree(t *testing.T) {
	w := newWorld(t)
	w.opts.Trees = w.opts.Trees[:1]
	sr := w.run(t, w.repo.PatchMail(w.pA)).Patches[0].Stable
	if tr := treeResult(t, sr, "v6.6.3"); tr.Build != "ok" {
		t.Fatalf("first run: %+v", tr)
	}
	wts := worktrees(w)
	if len(wts) != 2 {
		t.Fatalf("worktrees %v", wts)
	}
	dir := wts[1]
	stat := func(name string) time.Time {
		t.Helper()
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime()
	}
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return string(b)
	}
	if !strings.Contains(read("foo.c"), "y = 0;") {
		t.Fatalf("patch not written out:\n%s", read("foo.c"))
	}
	helper, foo := stat("helper.h"), stat("foo.c")
	// What a previous build or a crash may leave: an untracked file, a
	// changed tracked one.
	os.WriteFile(filepath.Join(dir, "stray.c"), []byte("int stray;\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bar.c"), []byte("garbage\n"), 0o644)
	time.Sleep(10 * time.Millisecond)
	// pA2 needs pA: it fails alone, so nothing is built and the worktree
	// stays at the tree's commit.
	w.opts.Trees[0].Build = "false"
	sr = w.run(t, w.repo.PatchMail(w.pA2)).Patches[0].Stable
	if tr := treeResult(t, sr, "v6.6.3"); tr.Applied {
		t.Fatalf("pA2 applied without pA: %+v", tr)
	}
	// A patch that deletes a file: gone from the worktree for the build.
	w.repo.Git("checkout", "-q", "--detach", w.v663)
	w.repo.Git("rm", "-q", "bar.c")
	del := w.repo.Commit("bar: remove\n\nCc: stable@vger.kernel.org\nSigned-off-by: Test Author <author@example.org>")
	w.repo.Git("checkout", "-q", "master")
	w.opts.Trees[0].Build = buildCmd + " && test ! -e bar.c"
	sr = w.run(t, w.repo.PatchMail(del)).Patches[0].Stable
	if tr := treeResult(t, sr, "v6.6.3"); !tr.Applied || tr.Build != "ok" {
		t.Fatalf("deleting bar.c: %+v", tr)
	}
	w.opts.Trees[0].Build = buildCmd + " && test ! -e stray.c && grep -q 'int bar;' bar.c"
	sr = w.run(t, w.repo.PatchMail(w.pA)).Patches[0].Stable
	if tr := treeResult(t, sr, "v6.6.3"); tr.Build != "ok" {
		t.Fatalf("run on the reused worktree: %+v", tr)
	}
	if got := worktrees(w); len(got) != 2 || got[1] != dir {
		t.Errorf("worktree not reused: %v", got)
	}
	if !stat("helper.h").Equal(helper) {
		t.Errorf("helper.h rewritten (mtime %v, was %v)", stat("helper.h"), helper)
	}
	if !stat("foo.c").After(foo) {
		t.Errorf("foo.c not rewritten (mtime %v, was %v)", stat("foo.c"), foo)
	}
	if !strings.Contains(read("foo.c"), "y = 0;") {
		t.Errorf("patch not written out:\n%s", read("foo.c"))
	}
}

func treeResult(t *testing.T, sr *report.StableReport, name string) *report.TreeResult {
	t.Helper()
	for i := range sr.Trees {
		if sr.Trees[i].Name == name {
			return &sr.Trees[i]
		}
	}
	t.Fatalf("tree %s not tested; trees: %v", name, names(sr))
	return nil
}

func shas(cs []report.Commit) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Short())
	}
	return out
}

// TestUpstreamCommitLine: a backport naming its upstream commit is found
// upstream through that line, whatever its subject.
func TestUpstreamCommitLine(t *testing.T) {
	w := newWorld(t)
	raw := w.repo.Git("format-patch", "-1", "--stdout", "--no-signature", w.pB)
	raw = strings.Replace(raw, "Subject: [PATCH] foo: undo the beta shift", "Subject: [PATCH 6.1] foo: undo beta shift (backport)", 1)
	raw = strings.Replace(raw, "\nFixes:", "\n[ Upstream commit "+w.c4+" ]\n\nFixes:", 1)
	m := stabletest.ParseMail(t, raw)
	if m.UpstreamCommit != w.c4 {
		t.Fatalf("parser did not see the upstream line: %q", m.UpstreamCommit)
	}
	sr := w.run(t, m).Patches[0].Stable
	if sr == nil || !sr.Upstream || sr.UpstreamMatch != "upstream-commit" || sr.UpstreamCommit.SHA != w.c4 {
		t.Errorf("upstream: %+v", sr)
	}
}

// TestBadTreeRef: a tree with an unknown ref is reported with an error and
// the other trees are still tested.
func TestBadTreeRef(t *testing.T) {
	w := newWorld(t)
	w.opts.Trees[1].Ref = "no-such-branch"
	sr := w.run(t, w.repo.PatchMail(w.pA)).Patches[0].Stable
	if tr := treeResult(t, sr, "v6.1.50"); tr.Error == "" || !strings.Contains(tr.Error, "no-such-branch") {
		t.Errorf("v6.1.50: %+v", tr)
	}
	if tr := treeResult(t, sr, "v6.6.3"); !tr.Applied || tr.Build != "ok" {
		t.Errorf("v6.6.3: %+v", tr)
	}
}

// TestHostilePaths: a patch whose paths leave the tree is refused by git
// and nothing is written outside the worktree (nor built).
func TestHostilePaths(t *testing.T) {
	w := newWorld(t)
	outside := filepath.Join(t.TempDir(), "pwned")
	rel, err := filepath.Rel(w.repo.Dir, outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{rel, "../../pwned", outside} {
		raw := "From: Evil <evil@example.org>\nSubject: [PATCH] evil\nMessage-Id: <evil@example.org>\n\n" +
			"evil\n\nCc: stable@vger.kernel.org\n---\n" +
			"diff --git a/" + path + " b/" + path + "\nnew file mode 100644\n--- /dev/null\n+++ b/" + path + "\n@@ -0,0 +1 @@\n+owned\n"
		m := stabletest.ParseMail(t, raw)
		rep := w.run(t, m)
		var trees []report.TreeResult
		if len(rep.Patches) > 0 && rep.Patches[0].Stable != nil {
			trees = rep.Patches[0].Stable.Trees
		} else if m.Diff != "" && (len(rep.Patches) == 0 || len(rep.Patches[0].Notes) == 0) {
			t.Errorf("%s: neither tried nor refused with a note", path)
		}
		for _, tr := range trees {
			if tr.Applied || tr.Build != "" {
				t.Errorf("%s on %s: %+v", path, tr.Name, tr)
			}
		}
		if _, err := os.Stat(outside); err == nil {
			t.Fatalf("%s: file written outside the tree", path)
		}
	}
}

// TestFixesNoTree: a Fixes: tag naming a commit no tree has gives no tree
// results and a note saying so.
func TestFixesNoTree(t *testing.T) {
	w := newWorld(t)
	raw := w.repo.Git("format-patch", "-1", "--stdout", "--no-signature", w.pB)
	raw = strings.Replace(raw, "Fixes: "+w.c3[:12], "Fixes: 0123456789ab (\"something else\")", 1)
	rep := w.run(t, stabletest.ParseMail(t, raw))
	if rep.Patches[0].Stable != nil {
		t.Errorf("stable results for an irrelevant patch: %+v", rep.Patches[0].Stable)
	}
	if len(rep.Patches[0].Notes) != 1 || !strings.Contains(rep.Patches[0].Notes[0], "0123456789ab") {
		t.Errorf("notes %q", rep.Patches[0].Notes)
	}
}

// TestSeriesCumulative: patch 2/2 changes a line patch 1/2 adds; each tree
// gets the series applied in order, so 2/2 applies where 1/2 did.
func TestSeriesCumulative(t *testing.T) {
	w := newWorld(t)
	r := w.run(t, w.repo.PatchMail(w.pA), w.repo.PatchMail(w.pA2))
	if len(r.Patches) != 2 || r.Patches[0].Stable == nil || r.Patches[1].Stable == nil {
		t.Fatalf("patches %+v", r.Patches)
	}
	for i, p := range r.Patches {
		if tr := treeResult(t, p.Stable, "v6.6.3"); !tr.Applied || tr.Build != "ok" {
			t.Errorf("patch %d on v6.6.3: %+v", i+1, tr)
		}
	}
	if tr := treeResult(t, r.Patches[1].Stable, "v6.1.50"); tr.Applied {
		t.Errorf("patch 2 applied on v6.1.50 without patch 1: %+v", tr)
	}
	if r.Stable == nil || !r.Stable.Trees[0].Applied || r.Stable.Trees[1].Applied {
		t.Errorf("summary %+v", r.Stable)
	}
}

// TestBuildEnv: the build runs in the patched worktree, in the sandbox,
// and sees the tree name, a throwaway copy of the tree's baseline build
// directory at the baseline's path (also HOME) and ccache settings whose
// base directory is the worktree (so cache hits survive new worktrees) --
// and nothing of the bot's own environment. The baseline build (the
// unpatched tree) writes the persistent build directory and the shared
// ccache.
func TestBuildEnv(t *testing.T) {
	w := newWorld(t)
	w.opts.Trees = w.opts.Trees[:1]
	cache := w.opts.CacheDir
	t.Setenv("AUTOSEL_BOT_WATCH_SMTP_PASSWORD", "hunter2")
	t.Setenv("GITHUB_TOKEN", "ghp_secret")
	w.opts.Trees[0].Build = fmt.Sprintf(`set -e
test "$AUTOSEL_TREE" = v6.6.3
test "$AUTOSEL_SRC" = "$PWD"
test "$CCACHE_BASEDIR" = "$PWD"
test "$HOME" = "$AUTOSEL_BUILD_DIR"
test -z "$AUTOSEL_BOT_WATCH_SMTP_PASSWORD$GITHUB_TOKEN"
if env | grep -e hunter2 -e ghp_secret; then exit 1; fi
! touch "$CCACHE_CONFIGPATH" 2>/dev/null
test "$AUTOSEL_BUILD_DIR" = %[1]q/build/v6.6.3
if test "$CCACHE_DIR" = %[1]q/ccache/baseline; then
	test "$CCACHE_CONFIGPATH" = %[1]q/ccache/conf/baseline.conf
	! grep -q "y = 0;" foo.c
	echo ok > "$AUTOSEL_BUILD_DIR/baseline-built"
	exit 0
fi
test -e "$AUTOSEL_BUILD_DIR/baseline-built"
case "$CCACHE_DIR" in %[1]q/ccache/private-*) ;; *) exit 3;; esac
test "$CCACHE_CONFIGPATH" = %[1]q/ccache/conf/patched.conf
grep -q "y = 0;" foo.c
echo ok > "$AUTOSEL_BUILD_DIR/built"`, cache)
	sr := w.run(t, w.repo.PatchMail(w.pA)).Patches[0].Stable
	if tr := treeResult(t, sr, "v6.6.3"); tr.Build != "ok" {
		t.Fatalf("build: %+v", tr)
	}
	if _, err := os.Stat(filepath.Join(w.opts.CacheDir, "build", "v6.6.3", "baseline-built")); err != nil {
		t.Errorf("baseline build dir not kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.opts.CacheDir, "build", "v6.6.3", "built")); err == nil {
		t.Errorf("the patched build wrote the baseline build dir")
	}

	// A configured ccache_dir (shared with the runner) replaces the
	// default; a stable build (of a patch) writes only a private cache
	// and cannot change the shared one (issue 37 point 1).
	w.opts.CCacheDir = filepath.Join(t.TempDir(), "shared-ccache")
	w.opts.Trees[0].Build = fmt.Sprintf(`set -e
case "$CCACHE_DIR" in %[1]q/private-*) ;; *) exit 3;; esac
test "$CCACHE_BASEDIR" = "$PWD"
touch "$CCACHE_DIR/written"
! touch %[1]q/shared/written 2>/dev/null
! touch %[1]q/conf/patched.conf 2>/dev/null`, w.opts.CCacheDir)
	if tr := treeResult(t, w.run(t, w.repo.PatchMail(w.pA)).Patches[0].Stable, "v6.6.3"); tr.Build != "ok" {
		t.Fatalf("build with ccache_dir: %+v", tr)
	}
	if m, _ := filepath.Glob(filepath.Join(w.opts.CCacheDir, "private-*")); len(m) != 0 {
		t.Errorf("private caches left behind: %v", m)
	}
}

// TestBaseCommit: without blob ids in the diff, the patch's base-commit
// line (git format-patch --base) still places the blame.
func TestBaseCommit(t *testing.T) {
	w := newWorld(t)
	raw := w.repo.Git("format-patch", "-1", "--stdout", "--no-signature", "--base="+w.c3, w.pA)
	if !strings.Contains(raw, "base-commit: "+w.c3) {
		t.Fatalf("no base-commit line:\n%s", raw)
	}
	var kept []string
	for _, l := range strings.Split(raw, "\n") {
		if !strings.HasPrefix(l, "index ") {
			kept = append(kept, l)
		}
	}
	m := stabletest.ParseMail(t, strings.Join(kept, "\n"))
	if baseCommit(m.Body) != w.c3 {
		t.Fatalf("base-commit not seen in the body")
	}
	sr := w.run(t, m).Patches[0].Stable
	tr := treeResult(t, sr, "v6.1.50")
	if got := shas(tr.Dependencies); strings.Join(got, ",") != w.c2[:12] {
		t.Errorf("dependencies %v, want [%s]", got, w.c2[:12])
	}
}

// TestBuildRefusedByGuard: what git put in the tree's index is checked
// before the build command runs: a patch adding a Makefile (a denied
// glob) and an #include of a host file is applied but not built, and the
// build command never ran.
func TestBuildRefusedByGuard(t *testing.T) {
	w := newWorld(t)
	w.opts.Trees = w.opts.Trees[:1]
	w.opts.Trees[0].Build = `touch "$AUTOSEL_BUILD_DIR/ran"; ` + buildCmd
	r := w.repo
	r.Git("checkout", "-q", "-b", "hostile", w.c3)
	r.Replace("foo.c", "\tint y = x + 2;\n", "\tint y = x + 2;\n#include \"/etc/passwd\"\n")
	r.Write("Makefile", "all:\n\tid > /tmp/pwned\n")
	c := r.Commit("foo: innocent fix\n\nCc: stable@vger.kernel.org\nSigned-off-by: Test Author <author@example.org>")
	r.Git("checkout", "-q", "master")
	rep := &report.Report{}
	opts := w.opts
	g := patchguard.New([]string{"Makefile"}, nil)
	opts.Sandbox, opts.Guard = sandbox.Options{}, &g
	st := NewStage(opts, nil)
	if err := st.Run(context.Background(), stabletest.Series(r.PatchMail(c)), rep); err != nil {
		t.Fatal(err)
	}
	tr := treeResult(t, rep.Patches[0].Stable, "v6.6.3")
	joined := strings.Join(tr.BuildErrors, "\n")
	if !tr.Applied || tr.Build != "refused" || !strings.Contains(joined, "Makefile") || !strings.Contains(joined, "/etc/passwd") {
		t.Fatalf("want a refused build naming Makefile and /etc/passwd: %+v", tr)
	}
	if _, err := os.Stat(filepath.Join(w.opts.CacheDir, "build", "v6.6.3", "ran")); err == nil {
		t.Fatal("the build command ran for a refused patch")
	}
}

// TestMailDamagedDiff: a diff whose tabs a mail client expanded into
// spaces is tried as the analysis reads it (repaired), so it applies where
// the intact patch applies.
func TestMailDamagedDiff(t *testing.T) {
	w := newWorld(t)
	m := w.repo.PatchMail(w.pA)
	lines := strings.SplitAfter(m.Diff, "\n")
	damaged := 0
	for i, l := range lines {
		if l == "" || strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---") || !strings.ContainsAny(l[:1], " +-") {
			continue
		}
		op, rest := l[:1], l[1:]
		n := len(rest) - len(strings.TrimLeft(rest, "\t"))
		if n == 0 {
			continue
		}
		// A mail client's tab expansion after the op character: to column 8, then every 8.
		lines[i] = op + strings.Repeat(" ", 7) + strings.Repeat(" ", 8*(n-1)) + rest[n:]
		damaged++
	}
	if damaged == 0 {
		t.Fatal("no tab-indented hunk line to damage")
	}
	m.Diff = strings.Join(lines, "")
	r := w.run(t, m)
	sr := r.Patches[0].Stable
	if sr == nil {
		t.Fatal("no stable result")
	}
	if tr := treeResult(t, sr, "v6.6.3"); !tr.Applied || tr.Build != "ok" {
		t.Errorf("v6.6.3: damaged diff not applied as repaired: %+v", tr)
	}
}
