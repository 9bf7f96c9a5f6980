package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Pull-request states, in the order the publisher (package github) moves
// a PR head through them. Every step that posts to GitHub is recorded
// before the request goes out, so a restart that finds a row in one of the
// "posting" states looks on GitHub for what the interrupted request may
// have created instead of posting a second copy.
const (
	// PRNew: seen, nothing posted yet.
	PRNew = "new"
	// PRCheckPosting: creating the in-progress check run.
	PRCheckPosting = "check-posting"
	// PRAnalysing: check run created, the pipeline runs.
	PRAnalysing = "analysing"
	// PRReviewPosting: the review is being posted.
	PRReviewPosting = "review-posting"
	// PRCheckCompleting: the check run is being completed.
	PRCheckCompleting = "check-completing"
	// PRDone: review and check run posted.
	PRDone = "done"
	// PRFailed: gave up after repeated errors; the error is kept.
	PRFailed = "failed"
)

// PullRequest is the state of one head commit of a pull request.
type PullRequest struct {
	// Repo is "owner/name".
	Repo string
	// Number is the pull request number.
	Number int
	// HeadSHA is the head commit the row is about.
	HeadSHA string
	// State is one of the PR* constants.
	State    string
	Attempts int
	// CheckRunID and ReviewID are GitHub's ids of what was posted (0: none).
	CheckRunID int64
	ReviewID   int64
	// Conclusion is the check run's conclusion (success, failure, ...).
	Conclusion string
	// Superseded is set once the review was marked outdated by a newer head.
	Superseded bool
	// Report is the analysis result (JSON), once there is one.
	Report  string
	Error   string
	Created time.Time
	Updated time.Time
}

const prCols = `repo, number, head_sha, state, attempts, check_run_id, review_id, conclusion, superseded, report, error, created, updated`

func scanPR(sc interface{ Scan(...any) error }) (*PullRequest, error) {
	p := &PullRequest{}
	var sup int
	var created, updated int64
	err := sc.Scan(&p.Repo, &p.Number, &p.HeadSHA, &p.State, &p.Attempts, &p.CheckRunID, &p.ReviewID, &p.Conclusion,
		&sup, &p.Report, &p.Error, &created, &updated)
	p.Superseded, p.Created, p.Updated = sup != 0, fromUnix(created), fromUnix(updated)
	return p, err
}

// GetPullRequest returns the row of one PR head, or ErrNotFound.
func (s *Store) GetPullRequest(ctx context.Context, repo string, number int, head string) (*PullRequest, error) {
	p, err := scanPR(s.db.QueryRowContext(ctx, `SELECT `+prCols+` FROM github_prs WHERE repo=? AND number=? AND head_sha=?`,
		repo, number, head))
	if err == sql.ErrNoRows {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("pull request %s#%d@%s: %w", repo, number, head, err)
	}
	return p, nil
}

// PullRequestHeads returns every recorded head of a PR, oldest first.
func (s *Store) PullRequestHeads(ctx context.Context, repo string, number int) ([]*PullRequest, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+prCols+` FROM github_prs WHERE repo=? AND number=? ORDER BY created, head_sha`,
		repo, number)
	if err != nil {
		return nil, fmt.Errorf("pull request %s#%d: %w", repo, number, err)
	}
	defer rows.Close()
	var out []*PullRequest
	for rows.Next() {
		p, err := scanPR(rows)
		if err != nil {
			return nil, fmt.Errorf("pull request %s#%d: %w", repo, number, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PutPullRequest inserts or updates the row of p's head. Created is kept
// from the first insert; Updated is set to now.
func (s *Store) PutPullRequest(ctx context.Context, p *PullRequest) error {
	now := time.Now()
	if p.Created.IsZero() {
		p.Created = now
	}
	p.Updated = now
	sup := 0
	if p.Superseded {
		sup = 1
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO github_prs(`+prCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(repo, number, head_sha) DO UPDATE SET state=excluded.state, attempts=excluded.attempts,
			check_run_id=excluded.check_run_id, review_id=excluded.review_id, conclusion=excluded.conclusion,
			superseded=excluded.superseded, report=excluded.report, error=excluded.error, updated=excluded.updated`,
		p.Repo, p.Number, p.HeadSHA, p.State, p.Attempts, p.CheckRunID, p.ReviewID, p.Conclusion, sup, p.Report, p.Error,
		unix(p.Created), unix(p.Updated))
	if err != nil {
		return fmt.Errorf("pull request %s#%d@%s: %w", p.Repo, p.Number, p.HeadSHA, err)
	}
	return nil
}

// CountPullRequests returns the number of PR heads per state.
func (s *Store) CountPullRequests(ctx context.Context) (map[string]int, error) {
	return s.countBy(ctx, "github_prs", "state")
}
