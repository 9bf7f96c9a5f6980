package store

import (
	"context"
	"testing"
	"time"
)

// TestOriginAndBacklog checks the columns of migration 2: counting by
// origin and in all, and the dry-run backlog re-queued only on request.
func TestOriginAndBacklog(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	ser := &Series{Key: "s#v1", SeriesID: "s", Version: 1, Title: "t", Author: "a@x", Total: 1}
	if _, err := s.BeginSeries(ctx, ser); err != nil {
		t.Fatal(err)
	}
	replies := []*Reply{
		{MessageID: "dry-done@bot", Origin: "imap/lkml", List: "l1", Path: "/o/1", DryRun: true},
		{MessageID: "dry-held@bot", Origin: "imap/lkml", List: "l2", Path: "/o/2", DryRun: true},
		{MessageID: "live@bot", Origin: "imap/netdev", List: "l1", Path: "/o/3"},
	}
	if err := s.FinishSeries(ctx, ser.Key, SeriesDone, "", "{}", nil, replies); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetReply(ctx, "dry-held@bot")
	if err != nil || got.Origin != "imap/lkml" || !got.DryRun {
		t.Fatalf("reply %+v, %v: origin and dry-run not kept", got, err)
	}
	// One dry-run reply was "delivered" to the outbox, one held back by a
	// rate limit, the live one sent.
	if err := s.SetReplyState(ctx, "dry-done@bot", ReplyDryRun, "", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Defer(ctx, "dry-held@bot", "rate limit", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetReplyState(ctx, "live@bot", ReplySent, "", ""); err != nil {
		t.Fatal(err)
	}
	since := time.Now().Add(-time.Hour)
	for _, tt := range []struct {
		col, val string
		want     int
	}{
		{"origin", "imap/lkml", 1},
		{"origin", "imap/netdev", 1},
		{"list", "l1", 2},
		{"", "", 2},
	} {
		if n, err := s.CountDelivered(ctx, tt.col, tt.val, since); err != nil || n != tt.want {
			t.Errorf("CountDelivered(%q, %q) = %d, %v; want %d", tt.col, tt.val, n, err, tt.want)
		}
	}
	n, err := s.SendBacklog(ctx)
	if err != nil || n != 2 {
		t.Fatalf("SendBacklog = %d, %v; want the 2 dry-run replies", n, err)
	}
	for _, id := range []string{"dry-done@bot", "dry-held@bot"} {
		r, _ := s.GetReply(ctx, id)
		if r.State != ReplyQueued || r.DryRun || !r.NextAttempt.IsZero() {
			t.Errorf("after the backlog request %s: %+v, want queued now", id, r)
		}
	}
	if r, _ := s.GetReply(ctx, "live@bot"); r.State != ReplySent {
		t.Errorf("sent reply touched by the backlog: %+v", r)
	}
}
