package stable

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/git"
	"github.com/autosel-bot/autosel-bot/internal/patchguard"
	"github.com/autosel-bot/autosel-bot/report"
)

// runTree applies the patches relevant to tree i, in series order, in one
// worktree (each patch on top of the earlier ones that applied), then
// builds once if anything applied and the tree has a build command. A tree
// that builds into the cache directory keeps its worktree across runs, so
// that its builds are incremental.
func (s *Stage) runTree(ctx context.Context, i int, upRef string, plans []*patchPlan, others *backportFinder) error {
	opts := s.opts
	t := opts.Trees[i]
	tg := git.New(opts.treeRepo(t))
	head, err := treeHead(ctx, tg, t)
	if err != nil {
		return err
	}
	var w *worktree
	if t.Build != "" && opts.CacheDir != "" {
		w, err = openWorktree(ctx, tg, opts.WorkDir, opts.CacheDir, t.Name, head)
	} else {
		w, err = addWorktree(ctx, tg, opts.WorkDir, t.Name, head)
	}
	if err != nil {
		return err
	}
	defer w.remove()
	var df *depFinder
	if upRef != "" {
		df = &depFinder{opts: opts, up: git.New(opts.upstreamRepo()), upRef: upRef, tg: tg, head: head,
			sameRepo: sameRepo(opts.upstreamRepo(), opts.treeRepo(t))}
	}
	var (
		applied []*report.TreeResult
		diffs   []patchguard.Patch // the patches in the index, for the guard
	)
	for _, pp := range plans {
		tr := &report.TreeResult{Name: t.Name}
		pp.res[i] = tr
		if c, err := others.present(ctx, i, pp.title); err != nil {
			return err
		} else if c != nil {
			tr.Present = c
			continue
		}
		err := w.apply(ctx, pp.diff)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			tr.Applied = true
			applied = append(applied, tr)
			diffs = append(diffs, patchguard.Patch{Name: pp.title, Diff: pp.diff})
			continue
		}
		tr.ApplyError = applyMessage(err)
		failed, err := failingHunks(ctx, w.g, "", pp.files)
		if err != nil {
			return err
		}
		for _, h := range failed {
			tr.FailedHunks = append(tr.FailedHunks, h.file+":"+strconv.Itoa(h.oldStart))
		}
		if len(failed) == 0 {
			for _, f := range pp.files {
				failed = append(failed, f.hunks...)
			}
		}
		if df == nil {
			tr.DepsUnknown = true
		} else {
			df.baseCommit = baseCommit(pp.p.Msg.Body)
			deps, err := df.find(ctx, pp.files, failed)
			if err != nil {
				s.log.Warn("stable: dependencies", "tree", t.Name, "err", err)
				tr.DepsUnknown = true
			}
			for _, d := range deps {
				tr.Dependencies = append(tr.Dependencies, d.Commit)
			}
			if len(deps) == 0 {
				tr.DepsUnknown = true
			}
			pt := &prereqTrier{w: w, up: df.up, max: opts.MaxPrerequisites, diffs: map[string][]byte{}}
			if pre, err := pt.smallest(ctx, deps, pp.diff); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				s.log.Warn("stable: prerequisites", "tree", t.Name, "err", err)
			} else {
				tr.Prerequisites = pre
			}
		}
		bps, err := others.elsewhere(ctx, i, pp.title)
		if err != nil {
			return err
		}
		tr.Backports = bps
	}
	if t.Build == "" || len(applied) == 0 {
		return nil
	}
	// What git put in the index is checked before anything is written
	// out or run: host code, symlinks, modes, includes from outside.
	refusals, err := s.guard.CheckIndex(ctx, w.dir, head, diffs)
	if err != nil {
		return err
	}
	if len(refusals) > 0 {
		lines := []string{"not built: the patch changes code that would run on the build host"}
		for _, r := range refusals {
			lines = append(lines, r.Error())
		}
		for _, tr := range applied {
			tr.Build, tr.BuildErrors = "refused", lines
		}
		return nil
	}
	// A persistent worktree still holds the tree's commit on disk (the
	// patches are in the index only): the trusted baseline build, whose
	// build dir the patched build gets a copy of, runs first.
	if w.unlock != nil {
		if err := baselineBuild(ctx, opts, s.sb, t, w.dir, head, s.log); err != nil {
			return err
		}
	}
	if err := w.checkout(ctx); err != nil {
		return err
	}
	b, err := runBuild(ctx, opts, s.sb, t, w.dir)
	if err != nil {
		return err
	}
	for _, tr := range applied {
		if b.ok {
			tr.Build = "ok"
		} else {
			tr.Build, tr.BuildErrors = "failed", b.errors
		}
	}
	return nil
}

// applyMessage keeps the informative lines of git apply's complaint.
func applyMessage(err error) string {
	msg := git.Stderr(err)
	lines := strings.Split(msg, "\n")
	if len(lines) > 8 {
		lines = append(lines[:8], "...")
	}
	return strings.Join(lines, "\n")
}

var baseCommitRE = regexp.MustCompile(`(?m)^base-commit: ([0-9a-f]{40})\s*$`)

// baseCommit returns the "base-commit: <sha>" line git format-patch --base
// adds below the diff, or "".
func baseCommit(body string) string {
	if m := baseCommitRE.FindStringSubmatch(body); m != nil {
		return m[1]
	}
	return ""
}
