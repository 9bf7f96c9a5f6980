// Package stable tries patches on configured stable trees, the way the
// kernel's stable bot does: it decides which trees a patch is relevant to
// (Cc: stable tags with version annotations, Fixes: tags, AUTOSEL
// subjects), applies it in a worktree of each tree with a 3-way fallback
// (a persistent one per tree when the tree builds into the cache directory,
// so that builds are incremental; worktree.go), names the possible dependencies when it does not apply (git
// blame of the failing hunks' lines upstream, like git-deps), retries on top
// of them, points at backports in other trees, builds, and checks whether
// the patch is upstream. Results go into report.PatchReport.Stable and the
// series summary report.Report.Stable.
package stable

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/internal/git"
	"github.com/autosel-bot/autosel-bot/internal/patchguard"
	"github.com/autosel-bot/autosel-bot/internal/sandbox"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// Stage is the stable pipeline stage (it implements pipeline.Stage).
type Stage struct {
	opts  Options
	log   *slog.Logger
	sb    *sandbox.Sandbox
	guard patchguard.Guard
}

// NewStage returns the stable stage for opts (the `stable:` section, with
// the build sandbox and patch guard set). A stage with Enabled unset or no
// trees configured does nothing. Builds run in opts.Sandbox (bwrap
// required) behind opts.Guard (nil: a guard with no configured globs).
// Progress and per-tree problems go to log (nil: slog.Default()).
func NewStage(opts Options, log *slog.Logger) *Stage {
	if log == nil {
		log = slog.Default()
	}
	opts = opts.withDefaults()
	guard := patchguard.New(nil, nil)
	if opts.Guard != nil {
		guard = *opts.Guard
	}
	return &Stage{opts: opts, log: log, sb: sandbox.New(opts.Sandbox, log), guard: guard}
}

// Name returns "stable".
func (s *Stage) Name() string { return "stable" }

// patchPlan is one patch of the series with what the stage knows of it.
type patchPlan struct {
	p     *series.Patch
	rep   *report.PatchReport
	diff  []byte
	files []fileDiff
	title string
	rel   *Relevance
	res   map[int]*report.TreeResult // tree index -> result
}

// Run tests every patch of ser on the trees it is relevant to and fills
// r.Patches[].Stable and the series summary r.Stable. Problems with one
// tree are recorded in that tree's result; problems with one patch (a
// malformed diff) in that patch's notes; the rest is still processed.
func (s *Stage) Run(ctx context.Context, ser *series.Series, r *report.Report) error {
	if !s.opts.Enabled || len(s.opts.Trees) == 0 {
		return nil
	}
	opts := s.opts
	var upRef string
	if opts.Upstream.Ref != "" && opts.upstreamRepo() != "" {
		ref, err := git.New(opts.upstreamRepo()).RevParse(ctx, opts.Upstream.Ref)
		if err != nil {
			return fmt.Errorf("stable: upstream: %w", err)
		}
		upRef = ref
	}
	// Make sure every patch has its report entry before taking pointers
	// into r.Patches (appending later would move them).
	for _, p := range ser.Patches {
		if p != nil && p.Msg != nil && !p.InReview {
			patchReport(r, p)
		}
	}
	var plans []*patchPlan
	for _, p := range ser.Patches {
		if p == nil || p.Msg == nil || p.InReview || strings.TrimSpace(p.Msg.Diff) == "" {
			continue
		}
		pp := &patchPlan{p: p, rep: patchReport(r, p), title: title(p.Msg), res: map[int]*report.TreeResult{}}
		if len(p.Msg.Diff) > opts.MaxPatchBytes {
			pp.rep.Notes = append(pp.rep.Notes, fmt.Sprintf("stable: diff of %d bytes is over the %d byte limit; not tried", len(p.Msg.Diff), opts.MaxPatchBytes))
			continue
		}
		// A diff damaged by a mail client is tried as the analysis read
		// it: repaired.
		diff, _ := diffcheck.Repaired(p.Msg.Diff)
		pp.diff = []byte(diff)
		if !strings.HasSuffix(diff, "\n") {
			pp.diff = append(pp.diff, '\n')
		}
		files, err := parseDiff(diff)
		if err != nil {
			pp.rep.Notes = append(pp.rep.Notes, fmt.Sprintf("stable: %s: %v", p.Msg.MessageID, err))
			continue
		}
		pp.files = files
		rel, err := Relevant(ctx, p.Msg, opts)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			pp.rep.Notes = append(pp.rep.Notes, fmt.Sprintf("stable: %s: %v", p.Msg.MessageID, err))
			continue
		}
		if rel.Kind != "" && len(rel.Trees) == 0 {
			pp.rep.Notes = append(pp.rep.Notes, noTreeNote(rel))
		}
		if rel.Kind == "" || len(rel.Trees) == 0 {
			continue
		}
		pp.rel = rel
		plans = append(plans, pp)
	}
	if len(plans) == 0 {
		return nil
	}
	others := &backportFinder{opts: opts, upRef: upRef, cache: map[string]*report.Commit{}}
	for i, t := range opts.Trees {
		var mine []*patchPlan
		for _, pp := range plans {
			for _, ti := range pp.rel.Trees {
				if ti == i {
					mine = append(mine, pp)
				}
			}
		}
		if len(mine) == 0 {
			continue
		}
		s.log.Debug("stable: testing tree", "tree", t.Name, "patches", len(mine))
		if err := s.runTree(ctx, i, upRef, mine, others); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.log.Warn("stable: tree failed", "tree", t.Name, "err", err)
			for _, pp := range mine {
				pp.res[i] = &report.TreeResult{Name: t.Name, Error: err.Error()}
			}
		}
	}
	summary := &report.StableReport{Upstream: true}
	for _, pp := range plans {
		sr := &report.StableReport{Reason: pp.rel.Reason, Relevant: pp.rel.Relevant, Kind: pp.rel.Kind, Fixes: pp.rel.Fixes}
		for _, i := range pp.rel.Trees {
			if tr := pp.res[i]; tr != nil {
				sr.Trees = append(sr.Trees, *tr)
			}
		}
		if upRef != "" {
			c, how, err := findUpstream(ctx, git.New(opts.upstreamRepo()), upRef, pp.title, pp.p.Msg.UpstreamCommit, pp.diff, pp.files, opts.SearchLimit)
			if err != nil {
				pp.rep.Notes = append(pp.rep.Notes, "stable: upstream check: "+err.Error())
			}
			sr.Upstream, sr.UpstreamCommit, sr.UpstreamMatch = c != nil, c, how
		}
		summary.Upstream = summary.Upstream && sr.Upstream
		pp.rep.Stable = sr
	}
	summary.Trees = summarize(opts, plans)
	r.Stable = summary
	return nil
}

// summarize is the series view per tree: applied when every relevant patch
// applied, the build of the whole series, and the union of dependencies.
func summarize(opts Options, plans []*patchPlan) []report.TreeResult {
	var out []report.TreeResult
	for i, t := range opts.Trees {
		sum := report.TreeResult{Name: t.Name, Applied: true}
		seen := map[string]bool{}
		n := 0
		for _, pp := range plans {
			tr := pp.res[i]
			if tr == nil {
				continue
			}
			n++
			sum.Applied = sum.Applied && (tr.Applied || tr.Present != nil)
			if tr.Build != "" {
				sum.Build, sum.BuildErrors = tr.Build, tr.BuildErrors
			}
			if tr.Error != "" && sum.Error == "" {
				sum.Error = tr.Error
			}
			for _, d := range tr.Dependencies {
				if !seen[d.SHA] {
					seen[d.SHA] = true
					sum.Dependencies = append(sum.Dependencies, d)
				}
			}
		}
		if n > 0 {
			out = append(out, sum)
		}
	}
	return out
}

// patchReport finds (or adds) the PatchReport of p in r.
func patchReport(r *report.Report, p *series.Patch) *report.PatchReport {
	for i := range r.Patches {
		if p.Msg.MessageID != "" && r.Patches[i].MessageID == p.Msg.MessageID {
			return &r.Patches[i]
		}
	}
	for i := range r.Patches {
		if r.Patches[i].MessageID == "" && r.Patches[i].Number == p.Number {
			return &r.Patches[i]
		}
	}
	r.Patches = append(r.Patches, report.PatchReport{Number: p.Number, Subject: p.Msg.Subject.Raw, MessageID: p.Msg.MessageID})
	return &r.Patches[len(r.Patches)-1]
}

var tagPrefixRE = regexp.MustCompile(`^\s*(?:(?i:re|fwd?|aw):\s*)*(?:\[[^\]]*\]\s*)*`)

// title is the patch subject without Re:/[PATCH ...] prefixes: the commit
// subject it will have upstream and in stable trees.
func title(m *mail.Message) string {
	if t := strings.TrimSpace(m.Subject.Title); t != "" {
		return t
	}
	return strings.TrimSpace(tagPrefixRE.ReplaceAllString(m.Subject.Raw, ""))
}

// noTreeNote says why a relevant patch was tried on no configured tree.
func noTreeNote(rel *Relevance) string {
	switch rel.Kind {
	case KindFixes:
		var fixed []string
		for _, f := range rel.Fixes {
			fixed = append(fixed, f.String())
		}
		return "stable: no configured tree contains the fixed commit " + strings.Join(fixed, ", ")
	case KindAutosel:
		return "stable: no configured tree is " + rel.Relevant + " (AUTOSEL)"
	}
	return "stable: the stable tag (" + rel.Relevant + ") selects no configured tree"
}
