package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

// AnalyzeFunc runs the pipeline over one series.
type AnalyzeFunc func(ctx context.Context, s *series.Series) (*report.Report, error)

// saved is what the store keeps of a head's analysis.
type saved struct {
	Report json.RawMessage `json:"report"`
	Review *Review         `json:"review"`
}

// process takes one pull-request head through check run, analysis, review
// and check completion. Each step that posts is recorded first, so a
// restart resumes at the right step and looks on GitHub for what an
// interrupted request may have created (by head marker or external id)
// instead of posting it twice. A head already done is left alone.
func (w *Watcher) process(ctx context.Context, pr PullRequest) error {
	row, err := w.st.GetPullRequest(ctx, pr.Repo, pr.Number, pr.HeadSHA)
	switch {
	case errors.Is(err, store.ErrNotFound):
		row = &store.PullRequest{Repo: pr.Repo, Number: pr.Number, HeadSHA: pr.HeadSHA, State: store.PRNew}
		if err := w.st.PutPullRequest(ctx, row); err != nil {
			return err
		}
	case err != nil:
		return err
	case row.State == store.PRDone || row.State == store.PRFailed:
		return nil
	}
	if err := w.steps(ctx, pr, row); err != nil {
		if ctx.Err() != nil {
			return err
		}
		row.Attempts++
		row.Error = err.Error()
		if row.Attempts >= w.opts.MaxAttempts || errors.Is(err, errPermanent) {
			row.State = store.PRFailed
			w.giveUp(ctx, pr, row)
		}
		if perr := w.st.PutPullRequest(ctx, row); perr != nil {
			return errors.Join(err, perr)
		}
		return err
	}
	return nil
}

func (w *Watcher) steps(ctx context.Context, pr PullRequest, row *store.PullRequest) error {
	owner, name, err := SplitRepo(pr.Repo)
	if err != nil {
		return err
	}
	if err := w.startCheck(ctx, owner, name, pr, row); err != nil {
		return err
	}
	var sv saved
	if row.Report != "" {
		if err := json.Unmarshal([]byte(row.Report), &sv); err != nil {
			return fmt.Errorf("stored review of %s#%d: %w", pr.Repo, pr.Number, err)
		}
	}
	if sv.Review == nil {
		rv, js, err := w.analyse(ctx, owner, name, pr)
		if err != nil {
			return err
		}
		sv = saved{Report: js, Review: rv}
		b, err := json.Marshal(sv)
		if err != nil {
			return err
		}
		row.Report = string(b)
		if err := w.st.PutPullRequest(ctx, row); err != nil {
			return err
		}
	}
	if row.ReviewID == 0 {
		if err := w.postReview(ctx, owner, name, pr, row, sv.Review); err != nil {
			return err
		}
	}
	if err := w.completeCheck(ctx, owner, name, row, sv.Review); err != nil {
		return err
	}
	row.State, row.Error = store.PRDone, ""
	if err := w.st.PutPullRequest(ctx, row); err != nil {
		return err
	}
	w.log.Info("github: pull request reviewed", "repo", pr.Repo, "pr", pr.Number, "head", pr.HeadSHA,
		"conclusion", row.Conclusion, "comments", len(sv.Review.Comments), "annotations", len(sv.Review.Annotations))
	return w.supersede(ctx, owner, name, pr, row)
}

// analyse fetches the PR's commits and diff, runs the pipeline and builds
// the review.
func (w *Watcher) analyse(ctx context.Context, owner, name string, pr PullRequest) (*Review, json.RawMessage, error) {
	commits, err := w.c.Commits(ctx, pr, w.opts.MaxCommits)
	if err != nil {
		return nil, nil, err
	}
	s, err := Series(pr, commits)
	if err != nil {
		return nil, nil, err
	}
	files, err := w.prFiles(ctx, owner, name, pr)
	if err != nil {
		return nil, nil, err
	}
	r, err := w.analyze(ctx, s)
	if err != nil {
		return nil, nil, fmt.Errorf("analysis of %s#%d: %w", pr.Repo, pr.Number, err)
	}
	js, err := json.Marshal(r)
	if err != nil {
		return nil, nil, err
	}
	return buildReview(pr, r, s, files, w.opts.Notes, w.opts.FindingURL), js, nil
}

// prFiles returns the hunks of the PR diff per file.
func (w *Watcher) prFiles(ctx context.Context, owner, name string, pr PullRequest) (map[string][]hunk, error) {
	out := map[string][]hunk{}
	opts := &gh.ListOptions{PerPage: 100}
	for {
		fs, resp, err := w.c.PullRequests.ListFiles(ctx, owner, name, pr.Number, opts)
		if err != nil {
			return nil, fmt.Errorf("github: files of %s#%d: %w", pr.Repo, pr.Number, err)
		}
		for _, f := range fs {
			for p, hs := range fileHunks(f.GetPatch(), f.GetFilename()) {
				out[p] = append(out[p], hs...)
			}
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// postReview posts the review (once per head): one posted by an earlier
// attempt is found by the head marker in the PR's reviews. A review whose line
// comments GitHub refuses (422: a line outside the diff) is posted with
// the comments folded into the body instead.
func (w *Watcher) postReview(ctx context.Context, owner, name string, pr PullRequest, row *store.PullRequest, rv *Review) error {
	// Look first, whatever the state says (see startCheck).
	id, err := w.findReview(ctx, owner, name, pr)
	if err != nil {
		return err
	}
	if id != 0 {
		row.ReviewID, row.State = id, store.PRCheckCompleting
		return w.st.PutPullRequest(ctx, row)
	}
	row.State = store.PRReviewPosting
	if err := w.st.PutPullRequest(ctx, row); err != nil {
		return err
	}
	req := &gh.PullRequestReviewRequest{CommitID: gh.String(pr.HeadSHA), Body: gh.String(rv.Body), Event: gh.String("COMMENT"), Comments: rv.Comments}
	got, resp, err := w.c.PullRequests.CreateReview(ctx, owner, name, pr.Number, req)
	if err != nil && resp != nil && resp.StatusCode == http.StatusUnprocessableEntity && len(rv.Comments) > 0 {
		w.log.Warn("github: line comments refused, folding them into the review body", "repo", pr.Repo, "pr", pr.Number, "err", err)
		var b strings.Builder
		b.WriteString(strings.ReplaceAll(rv.Body, marker(pr.HeadSHA), ""))
		for _, c := range rv.Comments {
			fmt.Fprintf(&b, "\n`%s:%d`:\n\n%s\n", c.GetPath(), c.GetLine(), c.GetBody())
		}
		req.Body, req.Comments = gh.String(truncate(b.String(), maxBody)+"\n"+marker(pr.HeadSHA)+"\n"), nil
		got, _, err = w.c.PullRequests.CreateReview(ctx, owner, name, pr.Number, req)
	}
	if err != nil {
		return fmt.Errorf("github: review of %s#%d: %w", pr.Repo, pr.Number, err)
	}
	row.ReviewID, row.State = got.GetID(), store.PRCheckCompleting
	return w.st.PutPullRequest(ctx, row)
}

// findReview looks for this bot's review of pr's head by its marker.
func (w *Watcher) findReview(ctx context.Context, owner, name string, pr PullRequest) (int64, error) {
	opts := &gh.ListOptions{PerPage: 100}
	for {
		rs, resp, err := w.c.PullRequests.ListReviews(ctx, owner, name, pr.Number, opts)
		if err != nil {
			return 0, fmt.Errorf("github: reviews of %s#%d: %w", pr.Repo, pr.Number, err)
		}
		for _, r := range rs {
			if strings.Contains(r.GetBody(), marker(pr.HeadSHA)) {
				return r.GetID(), nil
			}
		}
		if resp.NextPage == 0 {
			return 0, nil
		}
		opts.Page = resp.NextPage
	}
}

// supersede marks the reviews of this PR's older heads as outdated.
func (w *Watcher) supersede(ctx context.Context, owner, name string, pr PullRequest, cur *store.PullRequest) error {
	heads, err := w.st.PullRequestHeads(ctx, pr.Repo, pr.Number)
	if err != nil {
		return err
	}
	for _, h := range heads {
		if h.HeadSHA == cur.HeadSHA || h.ReviewID == 0 || h.Superseded {
			continue
		}
		var sv saved
		if err := json.Unmarshal([]byte(h.Report), &sv); err != nil || sv.Review == nil {
			continue
		}
		if _, _, err := w.c.PullRequests.UpdateReview(ctx, owner, name, pr.Number, h.ReviewID, supersededBody(sv.Review.Body, h.HeadSHA, pr.HeadSHA)); err != nil {
			return fmt.Errorf("github: mark review %d outdated: %w", h.ReviewID, err)
		}
		h.Superseded = true
		if err := w.st.PutPullRequest(ctx, h); err != nil {
			return err
		}
	}
	return nil
}
