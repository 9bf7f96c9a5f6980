package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/store"
)

// Source is what the pages read: the store's read-only queries
// (*store.Store implements it).
type Source interface {
	RecentSeries(ctx context.Context, limit int) ([]*store.Series, error)
	GetSeries(ctx context.Context, key string) (*store.Series, error)
	SeriesWithFinding(ctx context.Context, id string) ([]*store.Series, error)
	RecentPullRequests(ctx context.Context, limit int) ([]*store.PullRequest, error)
	GetPullRequest(ctx context.Context, repo string, number int, head string) (*store.PullRequest, error)
	PullRequestsWithFinding(ctx context.Context, id string) ([]*store.PullRequest, error)
}

// Entry is one analysed unit as recorded: a version of a series from
// mail, or a head commit of a pull request.
type Entry struct {
	// Key names the entry in URLs: the store's series key ("<id>#v2"),
	// or "github:owner/name#7@<sha>" for a pull-request head.
	Key string
	// Title, Author and Version are the series' (the report's for a
	// pull request).
	Title   string
	Author  string
	Version int
	// State is the store's state (done, failed, processing, ...).
	State string
	// Error is why the analysis failed, if it did.
	Error string
	// When is when the analysis finished (or started, while it runs).
	When time.Time
	// Report is the analysis result; nil when there is none.
	Report *report.Report
}

// prPrefix starts the key of a pull-request head.
const prPrefix = "github:"

// fromSeries makes an entry of a recorded series.
func fromSeries(s *store.Series) (*Entry, error) {
	e := &Entry{Key: s.Key, Title: s.Title, Author: s.Author, Version: s.Version, State: s.State, Error: s.Error, When: s.Finished}
	if e.When.IsZero() {
		e.When = s.Started
	}
	return e, e.decode(s.Report)
}

// fromPR makes an entry of a recorded pull-request head.
func fromPR(p *store.PullRequest) (*Entry, error) {
	e := &Entry{Key: fmt.Sprintf("%s%s#%d@%s", prPrefix, p.Repo, p.Number, p.HeadSHA), State: p.State, Error: p.Error, When: p.Updated}
	e.Title = fmt.Sprintf("%s#%d", p.Repo, p.Number)
	if err := e.decode(p.Report); err != nil {
		return e, err
	}
	if e.Report != nil {
		e.Title += ": " + e.Report.Title
		e.Author, e.Version = e.Report.Author, e.Report.Version
	}
	return e, nil
}

// decode sets Report from its JSON ("" is no report).
func (e *Entry) decode(js string) error {
	if js == "" {
		return nil
	}
	r := &report.Report{}
	if err := json.Unmarshal([]byte(js), r); err != nil {
		return fmt.Errorf("report of %s: %w", e.Key, err)
	}
	e.Report = r
	return nil
}

// parsePRKey splits "github:owner/name#7@sha".
func parsePRKey(key string) (repo string, number int, head string, ok bool) {
	rest, ok := strings.CutPrefix(key, prPrefix)
	if !ok {
		return "", 0, "", false
	}
	at := strings.LastIndexByte(rest, '@')
	hash := strings.LastIndexByte(rest, '#')
	if at < 0 || hash < 0 || hash > at {
		return "", 0, "", false
	}
	n, err := strconv.Atoi(rest[hash+1 : at])
	if err != nil {
		return "", 0, "", false
	}
	return rest[:hash], n, rest[at+1:], true
}

// errNoEntry is a key that names nothing recorded.
var errNoEntry = errors.New("no such series")

// loadEntry returns the entry of key.
func loadEntry(ctx context.Context, src Source, key string) (*Entry, error) {
	if repo, n, head, ok := parsePRKey(key); ok {
		p, err := src.GetPullRequest(ctx, repo, n, head)
		if errors.Is(err, store.ErrNotFound) {
			return nil, errNoEntry
		}
		if err != nil {
			return nil, err
		}
		return readable(fromPR(p))
	}
	s, err := src.GetSeries(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNoEntry
	}
	if err != nil {
		return nil, err
	}
	return readable(fromSeries(s))
}

// readable shows an entry whose report does not decode with the error
// instead of the report.
func readable(e *Entry, err error) (*Entry, error) {
	if err != nil {
		e.Error = err.Error()
	}
	return e, nil
}

// recentEntries returns up to limit series and pull-request heads, the
// most recent first.
func recentEntries(ctx context.Context, src Source, limit int) ([]*Entry, error) {
	ss, err := src.RecentSeries(ctx, limit)
	if err != nil {
		return nil, err
	}
	prs, err := src.RecentPullRequests(ctx, limit)
	if err != nil {
		return nil, err
	}
	var out []*Entry
	for _, s := range ss {
		e, err := fromSeries(s)
		if err != nil {
			e.Error = err.Error()
		}
		out = append(out, e)
	}
	for _, p := range prs {
		e, err := fromPR(p)
		if err != nil {
			e.Error = err.Error()
		}
		out = append(out, e)
	}
	sortEntries(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// entriesWithFinding returns the entries whose report holds the finding
// id, the most recent first.
func entriesWithFinding(ctx context.Context, src Source, id string) ([]*Entry, error) {
	ss, err := src.SeriesWithFinding(ctx, id)
	if err != nil {
		return nil, err
	}
	prs, err := src.PullRequestsWithFinding(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []*Entry
	for _, s := range ss {
		if e, err := fromSeries(s); err == nil && findFinding(e.Report, id) != nil {
			out = append(out, e)
		}
	}
	for _, p := range prs {
		if e, err := fromPR(p); err == nil && findFinding(e.Report, id) != nil {
			out = append(out, e)
		}
	}
	sortEntries(out)
	return out, nil
}

// sortEntries orders entries most recent first, then by key.
func sortEntries(es []*Entry) {
	slices.SortFunc(es, func(a, b *Entry) int {
		if c := b.When.Compare(a.When); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
}

// located is a finding with the patch it belongs to.
type located struct {
	Finding *report.Finding
	Patch   *report.PatchReport
	// SuppressedBy says what suppressed it ("" when reported).
	SuppressedBy string
}

// findFinding returns the finding of r with id, reported or suppressed.
func findFinding(r *report.Report, id string) *located {
	if r == nil {
		return nil
	}
	for i := range r.Patches {
		p := &r.Patches[i]
		for j := range p.Findings {
			if p.Findings[j].ID == id {
				return &located{Finding: &p.Findings[j], Patch: p}
			}
		}
		for j := range p.Suppressed {
			if sp := &p.Suppressed[j]; sp.ID == id {
				by := sp.By
				if sp.Reason != "" {
					by += ": " + sp.Reason
				}
				return &located{Finding: &sp.Finding, Patch: p, SuppressedBy: by}
			}
		}
	}
	return nil
}
