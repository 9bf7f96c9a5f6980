package stable

import (
	"context"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/internal/testtree"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/stable/stabletest"
)

// kernelRepo clones the shared Linux 6.1 tree (shared objects, no
// checkout; the shared tree itself is never modified) and adds mainline
// follow-up commits to fs/pipe.c on master; linux-6.1.y stays at base.
type kernelRepo struct {
	r             *stabletest.Repo
	base          string
	k1, k2, k3, p string
}

func newKernelRepo(t testing.TB) *kernelRepo {
	t.Helper()
	src := testkernel.Dir(t)
	dir := t.TempDir()
	testtree.Git(t, "", "clone", "-q", "--shared", "--no-checkout", src, dir)
	r := stabletest.Open(t, dir)
	k := &kernelRepo{r: r, base: r.Git("rev-parse", "base^{commit}")}
	edit := func(s, old, new string) string {
		t.Helper()
		if !strings.Contains(s, old) {
			t.Fatalf("fs/pipe.c lacks %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	v0 := r.Show(k.base, "fs/pipe.c")
	v1 := edit(v0, "\t\tpipe->readers--;\n\tif (file->f_mode & FMODE_WRITE)",
		"\t\tpipe->readers--;\t/* the last reader wakes the writers */\n\tif (file->f_mode & FMODE_WRITE)")
	k.k1 = r.CommitFiles(k.base, map[string]string{"fs/pipe.c": v1}, "pipe: document reader accounting in pipe_release()")
	v2 := edit(v1, "\t\twake_up_interruptible_all(&pipe->rd_wait);\n\t\twake_up_interruptible_all(&pipe->wr_wait);\n\t\tkill_fasync",
		"\t\twake_up_interruptible_all(&pipe->wr_wait);\n\t\twake_up_interruptible_all(&pipe->rd_wait);\n\t\tkill_fasync")
	k.k2 = r.CommitFiles(k.k1, map[string]string{"fs/pipe.c": v2}, "pipe: wake writers before readers in pipe_release()")
	// An unrelated later change elsewhere in the file: not a dependency.
	v3 := edit(v2, "static int\npipe_fasync(", "/* fasync helpers */\nstatic int\npipe_fasync(")
	k.k3 = r.CommitFiles(k.k2, map[string]string{"fs/pipe.c": v3}, "pipe: label the fasync helpers")
	r.Git("update-ref", "refs/heads/master", k.k3)
	r.Git("update-ref", "refs/heads/linux-6.1.y", k.base)
	r.Git("update-ref", "refs/heads/linux-6.2.y", k.k3)
	// The patch under test needs both k1's and k2's lines.
	vp := edit(v3, "\t\tpipe->readers--;\t/* the last reader wakes the writers */\n",
		"\t\tpipe->readers--;\t/* the last reader wakes the writers, with EPOLLHUP */\n")
	vp = edit(vp, "\t\twake_up_interruptible_all(&pipe->rd_wait);\n\t\tkill_fasync",
		"\t\twake_up_interruptible_sync_poll(&pipe->rd_wait, EPOLLIN | EPOLLRDNORM | EPOLLERR | EPOLLHUP);\n\t\tkill_fasync")
	k.p = r.CommitFiles(k.k3, map[string]string{"fs/pipe.c": vp},
		"pipe: wake readers with EPOLLHUP in pipe_release()\n\nCc: stable@vger.kernel.org\nSigned-off-by: Test Author <author@example.org>\n")
	return k
}

func (k *kernelRepo) opts(t testing.TB) Options {
	return Options{
		Enabled:  true,
		Repo:     k.r.Dir,
		Upstream: UpstreamOptions{Ref: "master"},
		Trees: []TreeOptions{
			{Name: "v6.2.1", Ref: "linux-6.2.y"},
			{Name: "v6.1.192", Ref: "linux-6.1.y"},
		},
		WorkDir: t.TempDir(),
	}
}

func TestKernelDependencies(t *testing.T) {
	k := newKernelRepo(t)
	r := &report.Report{}
	if err := NewStage(k.opts(t), nil).Run(context.Background(), stabletest.Series(k.r.PatchMail(k.p)), r); err != nil {
		t.Fatal(err)
	}
	sr := r.Patches[0].Stable
	if sr == nil {
		t.Fatal("no stable result")
	}
	if tr := treeResult(t, sr, "v6.2.1"); !tr.Applied {
		t.Errorf("v6.2.1 (has both prerequisites): %+v", tr)
	}
	tr := treeResult(t, sr, "v6.1.192")
	if tr.Applied {
		t.Fatalf("v6.1.192 applied: %+v", tr)
	}
	want := []string{k.k1[:12], k.k2[:12]} // oldest first; k3 is unrelated
	if got := shas(tr.Dependencies); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("dependencies %v, want %v", got, want)
	}
	if len(tr.Dependencies) == 2 && tr.Dependencies[0].Subject != "pipe: document reader accounting in pipe_release()" {
		t.Errorf("subject %q", tr.Dependencies[0].Subject)
	}
	if got := shas(tr.Prerequisites); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("prerequisites %v, want %v", got, want)
	}
	if out := k.r.Git("worktree", "list", "--porcelain"); strings.Count(out, "worktree ") != 1 {
		t.Errorf("worktrees left behind:\n%s", out)
	}
}

// TestKernelSeed000 tries seed 000's AUTOSEL pipe patch (written for 5.5)
// on Linux 6.1: fs/pipe.c has moved on, so it must fail to apply, naming
// the hunks that failed.
func TestKernelSeed000(t *testing.T) {
	k := newKernelRepo(t)
	msgs, errs := mail.Load(context.Background(), []string{"../testdata/seeds/000-pipe-exclusive-autosel.mbox"}, nil)
	if len(errs) > 0 {
		t.Fatalf("load: %v", errs[0])
	}
	var patch *mail.Message
	for _, m := range msgs {
		if m.Subject.Autosel != "" && m.Diff != "" && !m.InlineReview && !m.Subject.Reply {
			patch = m
		}
	}
	if patch == nil {
		t.Fatal("no AUTOSEL patch in seed 000")
	}
	opts := k.opts(t)
	opts.Trees = append(opts.Trees, TreeOptions{Name: "v5.5.3", Ref: "linux-6.1.y"})
	r := &report.Report{}
	if err := NewStage(opts, nil).Run(context.Background(), stabletest.Series(patch), r); err != nil {
		t.Fatal(err)
	}
	sr := r.Patches[0].Stable
	if sr == nil {
		t.Fatal("no stable result")
	}
	if sr.Kind != KindAutosel || strings.Join(names(sr), ",") != "v5.5.3" {
		t.Errorf("AUTOSEL 5.5 selected %v (%s)", names(sr), sr.Kind)
	}
	tr := treeResult(t, sr, "v5.5.3")
	t.Logf("v5.5.3: failed hunks %v, deps %v (unknown %v), apply error:\n%s", tr.FailedHunks, tr.Dependencies, tr.DepsUnknown, tr.ApplyError)
	if tr.Applied || tr.ApplyError == "" || len(tr.FailedHunks) < 2 {
		t.Errorf("seed 000 on 6.1: %+v", tr)
	}
	for _, h := range tr.FailedHunks {
		if !strings.HasPrefix(h, "fs/") && !strings.HasPrefix(h, "include/") {
			t.Errorf("failed hunk %q", h)
		}
	}
}
