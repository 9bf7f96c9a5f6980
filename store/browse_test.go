package store

import (
	"context"
	"testing"
)

// TestBrowse: the listing is newest first, and a finding is found by its
// id in finished series and pull-request heads only (not by a prefix of
// another id, not in a series still processing).
func TestBrowse(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	for _, r := range []struct {
		key, state, report string
	}{
		{"a#v1", SeriesDone, `{"patches":[{"findings":[{"id":"0123456789ab"}]}]}`},
		{"b#v1", SeriesDone, `{"patches":[{"findings":[{"id":"0123456789ab-2"}]}]}`},
		{"c#v1", SeriesProcessing, ""},
	} {
		if _, err := s.BeginSeries(ctx, &Series{Key: r.key, SeriesID: r.key[:1], Version: 1, Title: "t " + r.key}); err != nil {
			t.Fatal(err)
		}
		if r.state == SeriesDone {
			if err := s.FinishSeries(ctx, r.key, r.state, "", r.report, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	recent, err := s.RecentSeries(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 3 || recent[0].Key != "c#v1" || recent[2].Key != "a#v1" {
		t.Errorf("recent: %v", keys(recent))
	}
	if two, _ := s.RecentSeries(ctx, 2); len(two) != 2 {
		t.Errorf("limit 2: %d series", len(two))
	}
	for _, tc := range []struct {
		id   string
		want []string
	}{
		{"0123456789ab", []string{"a#v1"}},
		{"0123456789ab-2", []string{"b#v1"}},
		{"0123456789ac", nil},
	} {
		got, err := s.SeriesWithFinding(ctx, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if g := keys(got); len(g) != len(tc.want) || len(g) > 0 && g[0] != tc.want[0] {
			t.Errorf("%s: %v, want %v", tc.id, g, tc.want)
		}
	}
	pr := &PullRequest{Repo: "o/r", Number: 7, HeadSHA: "abc", State: PRDone, Report: `{"id":"fedcba987654"}`}
	if err := s.PutPullRequest(ctx, pr); err != nil {
		t.Fatal(err)
	}
	prs, err := s.PullRequestsWithFinding(ctx, "fedcba987654")
	if err != nil || len(prs) != 1 || prs[0].Number != 7 {
		t.Errorf("pull requests with finding: %v %v", prs, err)
	}
	if all, _ := s.RecentPullRequests(ctx, 5); len(all) != 1 {
		t.Errorf("recent pull requests: %d", len(all))
	}
}

func keys(ss []*Series) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Key)
	}
	return out
}
