package store

import (
	"context"
	"errors"
	"testing"
)

func TestPullRequests(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	if _, err := s.GetPullRequest(ctx, "o/r", 1, "aaa"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown head: %v", err)
	}
	p := &PullRequest{Repo: "o/r", Number: 1, HeadSHA: "aaa", State: PRNew}
	if err := s.PutPullRequest(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.State, p.CheckRunID, p.ReviewID, p.Conclusion, p.Report = PRDone, 7, 9, "failure", `{"x":1}`
	if err := s.PutPullRequest(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := s.PutPullRequest(ctx, &PullRequest{Repo: "o/r", Number: 1, HeadSHA: "bbb", State: PRAnalysing}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutPullRequest(ctx, &PullRequest{Repo: "o/r", Number: 2, HeadSHA: "aaa", State: PRNew}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err := s2.GetPullRequest(ctx, "o/r", 1, "aaa")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != PRDone || got.CheckRunID != 7 || got.ReviewID != 9 || got.Conclusion != "failure" || got.Report != `{"x":1}` ||
		got.Created.IsZero() || got.Superseded {
		t.Errorf("reopened row: %+v", got)
	}
	heads, err := s2.PullRequestHeads(ctx, "o/r", 1)
	if err != nil || len(heads) != 2 || heads[0].HeadSHA != "aaa" || heads[1].HeadSHA != "bbb" {
		t.Fatalf("heads %+v, %v", heads, err)
	}
	n, err := s2.CountPullRequests(ctx)
	if err != nil || n[PRNew] != 1 || n[PRDone] != 1 || n[PRAnalysing] != 1 {
		t.Errorf("counts %v, %v", n, err)
	}
}

// TestMigrationFromV2 opens a database written by the schema-2 binary (no
// github_prs table): the new step is applied and the old data kept.
func TestMigrationFromV2(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	if err := s.SetCursor(ctx, "srv", "INBOX", Cursor{UIDValidity: 1, LastUID: 5}); err != nil {
		t.Fatal(err)
	}
	for _, q := range append(undoV4, `DROP TABLE github_prs`, `UPDATE schema_version SET version=2`) {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if v, _ := s2.Version(ctx); v != SchemaVersion() {
		t.Fatalf("version %d", v)
	}
	if c, err := s2.Cursor(ctx, "srv", "INBOX"); err != nil || c.LastUID != 5 {
		t.Fatalf("cursor after migration: %+v, %v", c, err)
	}
	if err := s2.PutPullRequest(ctx, &PullRequest{Repo: "o/r", Number: 1, HeadSHA: "a", State: PRNew}); err != nil {
		t.Fatal(err)
	}
}
