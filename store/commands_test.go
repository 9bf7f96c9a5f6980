package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// undoV4 takes a database back to schema 3 (before migration 4).
var undoV4 = []string{
	`DROP TABLE series_titles`, `DROP TABLE commands`, `DROP TABLE ignores`, `DROP TABLE refusals`,
	`ALTER TABLE series DROP COLUMN lineage`, `ALTER TABLE series DROP COLUMN prev_key`,
}

// TestMigrationFromV3 opens a database of the schema-3 binary: the series
// it holds get their lineage columns, the command tables appear.
func TestMigrationFromV3(t *testing.T) {
	ctx := context.Background()
	s, path := open(t)
	if _, err := s.BeginSeries(ctx, &Series{Key: "a#v1", SeriesID: "a", Version: 1, Title: "t", Author: "x@y"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range append(undoV4, `UPDATE schema_version SET version=3`) {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	sr, err := s2.GetSeries(ctx, "a#v1")
	if err != nil || sr.Lineage != "" || sr.Title != "t" {
		t.Fatalf("series after migration: %+v, %v", sr, err)
	}
	if n, err := s2.CountCommands(ctx); err != nil || len(n) != 0 {
		t.Fatalf("commands: %v %v", n, err)
	}
}

func TestCommandLifecycle(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	// A series v1, done, whose patch and reply a command can refer to.
	if _, err := s.RecordMessage(ctx, &Message{MessageID: "p1", Source: "s", Mailbox: "m", Status: StatusPending, Raw: []byte("patch"), Received: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginSeries(ctx, &Series{Key: "p1#v1", SeriesID: "p1", Version: 1, Author: "A@x.org", Titles: []string{"fix it"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishSeries(ctx, "p1#v1", SeriesDone, "", `{"r":1}`, []string{"p1"}, []*Reply{{MessageID: "bot1", InReplyTo: "p1", Path: "/x"}}); err != nil {
		t.Fatal(err)
	}
	if raws, err := s.SeriesMessages(ctx, "p1#v1"); err != nil || len(raws) != 1 || string(raws[0]) != "patch" {
		t.Fatalf("series messages %q %v", raws, err)
	}
	// The command mail is recorded with its message, once.
	cmd := &Message{MessageID: "c1", Source: "s", Mailbox: "m", Status: StatusCommand, Raw: []byte("#autosel ignore x"), Received: time.Now(),
		Command: &Command{Sender: "Maint@x.org", List: "l", Verbs: "ignore"}}
	for i := 0; i < 2; i++ {
		if _, err := s.RecordMessage(ctx, cmd); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := s.PendingCommands(ctx)
	if err != nil || len(cs) != 1 || cs[0].Sender != "maint@x.org" || cs[0].State != CommandQueued {
		t.Fatalf("pending %+v %v", cs, err)
	}
	if raw, err := s.CommandRaw(ctx, "c1"); err != nil || string(raw) != "#autosel ignore x" {
		t.Fatalf("raw %q %v", raw, err)
	}
	for _, tc := range []struct {
		refs []string
		key  string
		held bool
	}{
		{[]string{"bot1"}, "p1#v1", false},
		{[]string{"nowhere", "p1"}, "p1#v1", false},
		{[]string{"nowhere"}, "", false},
	} {
		res, err := s.ResolveRefs(ctx, tc.refs)
		if err != nil || res.SeriesKey != tc.key || res.Held != tc.held {
			t.Errorf("resolve %v: %+v %v", tc.refs, res, err)
		}
	}
	if _, err := s.RecordMessage(ctx, &Message{MessageID: "held", Source: "s", Mailbox: "m", Status: StatusPending, Raw: []byte("p")}); err != nil {
		t.Fatal(err)
	}
	if res, _ := s.ResolveRefs(ctx, []string{"held"}); !res.Held || res.SeriesKey != "" {
		t.Errorf("a held reference: %+v", res)
	}
	// Running, back to the queue without counting, running again.
	if n, _ := s.StartCommand(ctx, "c1"); n != 1 {
		t.Errorf("attempts %d", n)
	}
	if err := s.WaitCommand(ctx, "c1", "series not analysed yet"); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.StartCommand(ctx, "c1"); n != 1 {
		t.Errorf("attempts after a wait %d", n)
	}
	out := &CommandOutcome{MessageID: "c1", State: CommandDone, SeriesKey: "p1#v1", Lineage: "p1#v1", Result: "ignored",
		Reply:  &Reply{MessageID: "bot-c1", InReplyTo: "c1", Path: "/y"},
		Ignore: []Ignore{{FindingID: "0123456789ab", Reason: "safe", By: "Maint <maint@x.org>"}}, Refused: ""}
	for i := 0; i < 2; i++ { // a second finish (after a crash) changes nothing
		if err := s.FinishCommand(ctx, out); err != nil {
			t.Fatal(err)
		}
	}
	c, err := s.GetCommand(ctx, "c1")
	if err != nil || c.State != CommandDone || c.ReplyID != "bot-c1" || c.SeriesKey != "p1#v1" {
		t.Fatalf("command %+v %v", c, err)
	}
	if r, err := s.GetReply(ctx, "bot-c1"); err != nil || r.State != ReplyQueued || r.SeriesKey != "p1#v1" {
		t.Fatalf("reply %+v %v", r, err)
	}
	igs, err := s.Ignores(ctx, "p1#v1")
	if err != nil || len(igs) != 1 || igs[0].FindingID != "0123456789ab" || igs[0].Command != "c1" {
		t.Fatalf("ignores %+v %v", igs, err)
	}
	if _, err := s.CommandRaw(ctx, "c1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("raw of a done command kept: %v", err)
	}
	if cs, _ := s.PendingCommands(ctx); len(cs) != 0 {
		t.Errorf("pending after finish: %+v", cs)
	}
	// A reply to the bot's command reply resolves to the series too.
	if res, _ := s.ResolveRefs(ctx, []string{"bot-c1"}); res.SeriesKey != "p1#v1" {
		t.Errorf("reply to a command reply: %+v", res)
	}
	// Unignore, and a refusal.
	if err := s.FinishCommand(ctx, &CommandOutcome{MessageID: "c2", State: CommandRefused, Lineage: "p1#v1", Unignore: []string{"0123456789ab"}, Refused: "Other@x.org"}); err != nil {
		t.Fatal(err)
	}
	if igs, _ := s.Ignores(ctx, "p1#v1"); len(igs) != 0 {
		t.Errorf("ignores after unignore: %+v", igs)
	}
	if last, err := s.LastRefusal(ctx, "other@X.org"); err != nil || time.Since(last) > time.Minute {
		t.Errorf("last refusal %v %v", last, err)
	}
	if last, _ := s.LastRefusal(ctx, "nobody@x.org"); !last.IsZero() {
		t.Errorf("never refused: %v", last)
	}
}

func TestPreviousVersion(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	begin := func(key string, v int, author string, titles ...string) {
		t.Helper()
		if _, err := s.BeginSeries(ctx, &Series{Key: key, SeriesID: key, Version: v, Author: author, Titles: titles}); err != nil {
			t.Fatal(err)
		}
	}
	begin("a#v1", 1, "A@x.org", "pipe: fix", "pipe: other")
	if err := s.FinishSeries(ctx, "a#v1", SeriesDone, "", "{}", nil, nil); err != nil {
		t.Fatal(err)
	}
	begin("b#v1", 1, "B@x.org", "pipe: fix")
	if err := s.FinishSeries(ctx, "b#v1", SeriesDone, "", "{}", nil, nil); err != nil {
		t.Fatal(err)
	}
	begin("c#v2", 2, "A@x.org", "pipe: other") // still processing
	for _, tc := range []struct {
		author string
		titles []string
		v      int
		want   string
	}{
		{"a@x.org", []string{"pipe: fix"}, 2, "a#v1"},
		{"A@x.org", []string{"nothing", "pipe: other"}, 3, "a#v1"},
		{"a@x.org", []string{"pipe: fix"}, 1, ""},
		{"c@x.org", []string{"pipe: fix"}, 2, ""},
		{"a@x.org", nil, 2, ""},
	} {
		prev, err := s.PreviousVersion(ctx, tc.author, tc.titles, tc.v, "new")
		got := ""
		if err == nil {
			got = prev.Key
		} else if !errors.Is(err, ErrNotFound) {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s %v v%d: previous %q, want %q", tc.author, tc.titles, tc.v, got, tc.want)
		}
	}
	if sr, _ := s.GetSeries(ctx, "a#v1"); sr.Lineage != "a#v1" {
		t.Errorf("lineage of a first version: %q", sr.Lineage)
	}
}
