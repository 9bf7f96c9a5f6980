package store

import (
	"context"
	"fmt"
)

// Read-only queries for browsing what the bot recorded (package web):
// the recent series and pull-request heads, and the ones whose report
// holds a finding. Reports are kept as JSON text, so a finding is found
// by its JSON member ("id":"0123456789ab") in the report column; the
// caller checks the id's form (report.ValidID) and the match in the
// decoded report.

// seriesCols are the columns GetSeries reads, for the listing queries.
const seriesCols = `key, series_id, version, title, author, total, incomplete, state, attempts, error, report, started, finished, lineage, prev_key`

// RecentSeries returns at most limit recorded series, the most recently
// finished (or started) first.
func (s *Store) RecentSeries(ctx context.Context, limit int) ([]*Series, error) {
	return s.querySeries(ctx, `SELECT `+seriesCols+` FROM series
		ORDER BY max(finished, started) DESC, key LIMIT ?`, limit)
}

// SeriesWithFinding returns the finished series whose report holds a
// finding with id, the most recently finished first (versions of one
// series share the ids of the findings they keep).
func (s *Store) SeriesWithFinding(ctx context.Context, id string) ([]*Series, error) {
	return s.querySeries(ctx, `SELECT `+seriesCols+` FROM series
		WHERE state=? AND instr(report, ?) > 0 ORDER BY finished DESC, key`, SeriesDone, findingNeedle(id))
}

// RecentPullRequests returns at most limit pull-request heads, the most
// recently updated first.
func (s *Store) RecentPullRequests(ctx context.Context, limit int) ([]*PullRequest, error) {
	return s.queryPRs(ctx, `SELECT `+prCols+` FROM github_prs ORDER BY updated DESC, repo, number, head_sha LIMIT ?`, limit)
}

// PullRequestsWithFinding returns the pull-request heads whose report
// holds a finding with id, the most recently updated first.
func (s *Store) PullRequestsWithFinding(ctx context.Context, id string) ([]*PullRequest, error) {
	return s.queryPRs(ctx, `SELECT `+prCols+` FROM github_prs
		WHERE report <> '' AND instr(report, ?) > 0 ORDER BY updated DESC, repo, number, head_sha`, findingNeedle(id))
}

// findingNeedle is how a finding's id appears in a report's JSON.
func findingNeedle(id string) string { return `"id":"` + id + `"` }

func (s *Store) querySeries(ctx context.Context, q string, args ...any) ([]*Series, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("series: %w", err)
	}
	defer rows.Close()
	var out []*Series
	for rows.Next() {
		r, err := scanSeries(rows)
		if err != nil {
			return nil, fmt.Errorf("series: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func scanSeries(sc interface{ Scan(...any) error }) (*Series, error) {
	r := &Series{}
	var st, fin int64
	if err := sc.Scan(&r.Key, &r.SeriesID, &r.Version, &r.Title, &r.Author, &r.Total, &r.Incomplete,
		&r.State, &r.Attempts, &r.Error, &r.Report, &st, &fin, &r.Lineage, &r.PrevKey); err != nil {
		return nil, err
	}
	r.Started, r.Finished = fromUnix(st), fromUnix(fin)
	return r, nil
}

func (s *Store) queryPRs(ctx context.Context, q string, args ...any) ([]*PullRequest, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("pull requests: %w", err)
	}
	defer rows.Close()
	var out []*PullRequest
	for rows.Next() {
		p, err := scanPR(rows)
		if err != nil {
			return nil, fmt.Errorf("pull requests: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
