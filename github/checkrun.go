package github

import (
	"context"
	"fmt"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/autosel-bot/autosel-bot/store"
)

// externalID names the check run of one head.
func externalID(pr PullRequest) string {
	return fmt.Sprintf("autosel-bot/%s#%d@%s", pr.Repo, pr.Number, pr.HeadSHA)
}

// startCheck creates the in-progress check run (once per head).
func (w *Watcher) startCheck(ctx context.Context, owner, name string, pr PullRequest, row *store.PullRequest) error {
	if row.CheckRunID != 0 {
		return nil
	}
	// Look first, whatever the state says: a run created by an attempt
	// that died before recording it (or a lost database) is reused.
	id, err := w.findCheckRun(ctx, owner, name, pr)
	if err != nil {
		return err
	}
	if id != 0 {
		row.CheckRunID, row.State = id, store.PRAnalysing
		return w.st.PutPullRequest(ctx, row)
	}
	row.State = store.PRCheckPosting
	if err := w.st.PutPullRequest(ctx, row); err != nil {
		return err
	}
	cr, _, err := w.c.Checks.CreateCheckRun(ctx, owner, name, gh.CreateCheckRunOptions{
		Name: w.opts.CheckName, HeadSHA: pr.HeadSHA, ExternalID: gh.String(externalID(pr)),
		Status: gh.String("in_progress"), StartedAt: &gh.Timestamp{Time: time.Now().UTC()},
		Output: &gh.CheckRunOutput{Title: gh.String("analysing"), Summary: gh.String("Lock and wakeup analysis in progress.")},
	})
	if err != nil {
		return fmt.Errorf("github: create check run for %s#%d: %w", pr.Repo, pr.Number, err)
	}
	row.CheckRunID, row.State = cr.GetID(), store.PRAnalysing
	return w.st.PutPullRequest(ctx, row)
}

// findCheckRun looks for the check run of pr's head created by an
// interrupted earlier attempt.
func (w *Watcher) findCheckRun(ctx context.Context, owner, name string, pr PullRequest) (int64, error) {
	opts := &gh.ListCheckRunsOptions{CheckName: gh.String(w.opts.CheckName), ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		res, resp, err := w.c.Checks.ListCheckRunsForRef(ctx, owner, name, pr.HeadSHA, opts)
		if err != nil {
			return 0, fmt.Errorf("github: list check runs of %s: %w", pr.HeadSHA, err)
		}
		for _, cr := range res.CheckRuns {
			if cr.GetExternalID() == externalID(pr) {
				return cr.GetID(), nil
			}
		}
		if resp.NextPage == 0 {
			return 0, nil
		}
		opts.Page = resp.NextPage
	}
}

// completeCheck completes the check run with the conclusion and the
// annotations (50 per update, as GitHub takes them). An interrupted
// earlier attempt is detected by the run being completed already.
func (w *Watcher) completeCheck(ctx context.Context, owner, name string, row *store.PullRequest, rv *Review) error {
	if row.State == store.PRCheckCompleting {
		cr, _, err := w.c.Checks.GetCheckRun(ctx, owner, name, row.CheckRunID)
		if err != nil {
			return fmt.Errorf("github: check run %d: %w", row.CheckRunID, err)
		}
		if cr.GetStatus() == "completed" {
			row.Conclusion = cr.GetConclusion()
			return nil
		}
	}
	row.State = store.PRCheckCompleting
	if err := w.st.PutPullRequest(ctx, row); err != nil {
		return err
	}
	anns := rv.Annotations
	for first := true; first || len(anns) > 0; first = false {
		n := min(len(anns), maxAnnotationsPerOp)
		opts := gh.UpdateCheckRunOptions{
			Name:   w.opts.CheckName,
			Output: &gh.CheckRunOutput{Title: gh.String(rv.Title), Summary: gh.String(rv.Summary), Annotations: anns[:n]},
		}
		anns = anns[n:]
		if len(anns) == 0 {
			// The last update completes the run: annotations first, so a
			// completed run always carries all of them.
			opts.Status, opts.Conclusion = gh.String("completed"), gh.String(rv.Conclusion)
			opts.CompletedAt = &gh.Timestamp{Time: time.Now().UTC()}
		}
		if _, _, err := w.c.Checks.UpdateCheckRun(ctx, owner, name, row.CheckRunID, opts); err != nil {
			return fmt.Errorf("github: update check run %d: %w", row.CheckRunID, err)
		}
	}
	row.Conclusion = rv.Conclusion
	return nil
}

// giveUp completes the check run of a head that failed too often, so the
// PR does not show a run in progress forever (best effort).
func (w *Watcher) giveUp(ctx context.Context, pr PullRequest, row *store.PullRequest) {
	w.log.Error("github: giving up on pull request head", "repo", pr.Repo, "pr", pr.Number, "head", pr.HeadSHA, "err", row.Error)
	if row.CheckRunID == 0 {
		return
	}
	owner, name, err := SplitRepo(pr.Repo)
	if err != nil {
		return
	}
	_, _, err = w.c.Checks.UpdateCheckRun(ctx, owner, name, row.CheckRunID, gh.UpdateCheckRunOptions{
		Name: w.opts.CheckName, Status: gh.String("completed"), Conclusion: gh.String("neutral"),
		CompletedAt: &gh.Timestamp{Time: time.Now().UTC()},
		Output: &gh.CheckRunOutput{Title: gh.String("analysis failed"),
			Summary: gh.String("autosel-bot could not analyse this head: " + truncate(row.Error, 2000))},
	})
	if err == nil {
		row.Conclusion = "neutral"
	}
}
