package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func open(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	v, err := s.Version(ctx)
	if err != nil || v != SchemaVersion() {
		t.Fatalf("version %d, %v; want %d", v, err, SchemaVersion())
	}
	s.Close()
	// Reopening applies nothing and keeps the data.
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if v, _ := s2.Version(ctx); v != SchemaVersion() {
		t.Fatalf("version after reopen %d", v)
	}
	// A database from a newer binary is refused.
	if _, err := s2.db.Exec(`UPDATE schema_version SET version=?`, SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if _, err := Open(ctx, path); err == nil {
		t.Fatal("opened a database with a newer schema")
	}
}

func TestCursorAndMessages(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	if _, err := s.Cursor(ctx, "srv", "INBOX"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("cursor of a new mailbox: %v", err)
	}
	since := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	if err := s.SetCursor(ctx, "srv", "INBOX", Cursor{UIDValidity: 7, LastUID: 10, Since: since}); err != nil {
		t.Fatal(err)
	}
	rec := func(id string, uid uint32, validity uint32, status string) bool {
		t.Helper()
		ok, err := s.RecordMessage(ctx, &Message{MessageID: id, Source: "srv", Mailbox: "INBOX", UIDValidity: validity,
			UID: uid, Received: time.Now(), Status: status, Raw: []byte("raw " + id)})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	tests := []struct {
		id       string
		uid      uint32
		validity uint32
		status   string
		inserted bool
		lastUID  uint32
	}{
		{"a@x", 11, 7, StatusPending, true, 11},
		{"b@x", 12, 7, StatusSkipped, true, 12},
		{"a@x", 13, 7, StatusPending, false, 13}, // same Message-ID again: not recorded, cursor moves
		{"c@x", 5, 7, StatusPending, true, 13},   // a lower UID never moves the cursor back
		{"d@x", 99, 8, StatusPending, true, 13},  // other UIDVALIDITY: cursor untouched
	}
	for _, tt := range tests {
		if got := rec(tt.id, tt.uid, tt.validity, tt.status); got != tt.inserted {
			t.Errorf("%s uid %d: inserted %v, want %v", tt.id, tt.uid, got, tt.inserted)
		}
		c, err := s.Cursor(ctx, "srv", "INBOX")
		if err != nil {
			t.Fatal(err)
		}
		if c.LastUID != tt.lastUID || c.UIDValidity != 7 || !c.Since.Equal(since) {
			t.Errorf("after %s: cursor %+v, want last %d", tt.id, c, tt.lastUID)
		}
	}
	pend, err := s.PendingMessages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(pend) != 3 || string(pend[0].Raw) != "raw a@x" {
		t.Fatalf("pending: %d messages (%v)", len(pend), pend)
	}
	if m, _ := s.GetMessage(ctx, "b@x"); m.Status != StatusSkipped {
		t.Errorf("b@x: %+v", m)
	}
	var raw []byte
	s.db.QueryRow(`SELECT raw FROM messages WHERE message_id='b@x'`).Scan(&raw)
	if raw != nil {
		t.Errorf("raw kept for a skipped message")
	}
	if err := s.SetMessageStatus(ctx, StatusExpired, "x", "", "c@x"); err != nil {
		t.Fatal(err)
	}
	if pend, _ := s.PendingMessages(ctx); len(pend) != 2 {
		t.Errorf("pending after expiry: %d", len(pend))
	}
}

func TestSeriesAndReplies(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	for _, id := range []string{"p1@x", "p2@x"} {
		s.RecordMessage(ctx, &Message{MessageID: id, Status: StatusPending, Raw: []byte("x"), Received: time.Now()})
	}
	ser := &Series{Key: "p1@x#v2", SeriesID: "p1@x", Version: 2, Title: "t", Author: "a@x", Total: 2}
	for want := 1; want <= 2; want++ {
		n, err := s.BeginSeries(ctx, ser)
		if err != nil || n != want {
			t.Fatalf("attempt %d: %d, %v", want, n, err)
		}
	}
	r := &Reply{MessageID: "r1@bot", InReplyTo: "p1@x", List: "l.example.org", Author: "a@x", Path: "/o/new/r1"}
	if err := s.FinishSeries(ctx, ser.Key, SeriesDone, "", `{"ok":1}`, []string{"p1@x", "p2@x"}, []*Reply{r}); err != nil {
		t.Fatal(err)
	}
	// Finishing again (a re-run) keeps the reply's state.
	if ok, _ := s.MarkSending(ctx, "r1@bot"); !ok {
		t.Fatal("MarkSending on a queued reply failed")
	}
	if ok, _ := s.MarkSending(ctx, "r1@bot"); ok {
		t.Fatal("MarkSending twice succeeded")
	}
	if err := s.FinishSeries(ctx, ser.Key, SeriesDone, "", `{}`, nil, []*Reply{r}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetReply(ctx, "r1@bot")
	if err != nil || got.State != ReplySending || got.Attempts != 1 {
		t.Fatalf("reply %+v, %v", got, err)
	}
	keys, err := s.SeriesOfMessages(ctx, []string{"p2@x", "zz@x"})
	if err != nil || keys[ser.Key] != 2 || len(keys) != 1 {
		t.Fatalf("SeriesOfMessages: %v %v", keys, err)
	}
	if n, _ := s.CountDelivered(ctx, "list", "l.example.org", time.Now().Add(-time.Hour)); n != 1 {
		t.Errorf("a reply being sent counts against the rate limit: %d", n)
	}
	if err := s.SetReplyState(ctx, "r1@bot", ReplySent, "", "/o/cur/r1:2,S"); err != nil {
		t.Fatal(err)
	}
	got, _ = s.GetReply(ctx, "r1@bot")
	if got.State != ReplySent || got.Path != "/o/cur/r1:2,S" || got.Done.IsZero() {
		t.Errorf("after sent: %+v", got)
	}
	if n, _ := s.CountDelivered(ctx, "author", "a@x", time.Now().Add(-time.Hour)); n != 1 {
		t.Errorf("delivered to author: %d", n)
	}
	if n, _ := s.CountDelivered(ctx, "author", "a@x", time.Now().Add(time.Hour)); n != 0 {
		t.Errorf("delivered outside the window: %d", n)
	}
	if _, err := s.CountDelivered(ctx, "x; DROP TABLE replies", "a", time.Now()); err == nil {
		t.Error("bad column accepted")
	}
	st, _ := s.GetSeries(ctx, ser.Key)
	if st.State != SeriesDone || st.Report != `{}` || st.Attempts != 2 {
		t.Errorf("series %+v", st)
	}
	if _, err := s.GetSeries(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing series: %v", err)
	}
	var _ = sql.ErrNoRows
}
