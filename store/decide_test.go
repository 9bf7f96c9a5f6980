package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestDecideSeries: every decision is taken from the messages' and
// series' state at the time of the decision.
func TestDecideSeries(t *testing.T) {
	ctx := context.Background()
	type msg struct {
		id, status string
	}
	tests := []struct {
		name    string
		msgs    []msg
		done    map[string][]string // processed series (version 1) -> members
		key     string
		members []Held
		gone    []string
		late    map[string][]string
		status  map[string]string // message -> status after the decision
	}{{
		name:    "all pending, new series: run",
		msgs:    []msg{{"a", StatusPending}, {"b", StatusPending}},
		key:     "a#v1",
		members: []Held{{MessageID: "a", Version: 1}, {MessageID: "b", Refs: []string{"a"}, Version: 1}},
		status:  map[string]string{"a": StatusPending, "b": StatusPending},
	}, {
		name:    "a worker finished the series after the caller read the pool: nothing decided",
		msgs:    []msg{{"a", StatusPending}, {"b", StatusPending}},
		done:    map[string][]string{"a#v1": {"a", "b"}},
		key:     "a#v1",
		members: []Held{{MessageID: "a", Version: 1}, {MessageID: "b", Refs: []string{"a"}, Version: 1}},
		gone:    []string{"a", "b"},
		status:  map[string]string{"a": StatusDone, "b": StatusDone},
	}, {
		name:    "one member gone: nothing decided, the other stays pending",
		msgs:    []msg{{"a", StatusPending}, {"c", StatusPending}},
		done:    map[string][]string{"a#v1": {"a"}},
		key:     "a#v1",
		members: []Held{{MessageID: "a", Version: 1}, {MessageID: "c", Refs: []string{"a"}, Version: 1}},
		gone:    []string{"a"},
		status:  map[string]string{"a": StatusDone, "c": StatusPending},
	}, {
		name:    "unknown message: gone",
		msgs:    []msg{{"a", StatusPending}},
		key:     "a#v1",
		members: []Held{{MessageID: "a", Version: 1}, {MessageID: "nope", Version: 1}},
		gone:    []string{"nope"},
		status:  map[string]string{"a": StatusPending},
	}, {
		name:    "series key already processed: every member late",
		msgs:    []msg{{"a", StatusPending}, {"x", StatusPending}, {"y", StatusPending}},
		done:    map[string][]string{"x#v1": {"a"}},
		key:     "x#v1",
		members: []Held{{MessageID: "x", Version: 1}, {MessageID: "y", Version: 1}},
		late:    map[string][]string{"x#v1": {"x", "y"}},
		status:  map[string]string{"x": StatusLate, "y": StatusLate},
	}, {
		name:    "a patch referring to a processed series of its version: late, the rest stays",
		msgs:    []msg{{"a", StatusPending}, {"p", StatusPending}, {"r", StatusPending}},
		done:    map[string][]string{"a#v1": {"a"}},
		key:     "p#v1",
		members: []Held{{MessageID: "p", Refs: []string{"zz", "a"}, Version: 1}, {MessageID: "r", Version: 1}},
		late:    map[string][]string{"a#v1": {"p"}},
		status:  map[string]string{"p": StatusLate, "r": StatusPending},
	}, {
		name:    "another version in the thread is a series of its own",
		msgs:    []msg{{"a", StatusPending}, {"p", StatusPending}},
		done:    map[string][]string{"a#v1": {"a"}},
		key:     "p#v2",
		members: []Held{{MessageID: "p", Refs: []string{"a"}, Version: 2}},
		status:  map[string]string{"p": StatusPending},
	}}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := open(t)
			for _, m := range tt.msgs {
				if _, err := s.RecordMessage(ctx, &Message{MessageID: m.id, Status: m.status, Raw: []byte("x"), Received: time.Now()}); err != nil {
					t.Fatal(err)
				}
			}
			for key, ids := range tt.done {
				if _, err := s.BeginSeries(ctx, &Series{Key: key, SeriesID: ids[0], Version: 1}); err != nil {
					t.Fatal(err)
				}
				if err := s.FinishSeries(ctx, key, SeriesDone, "", "", ids, nil); err != nil {
					t.Fatal(err)
				}
			}
			dec, err := s.DecideSeries(ctx, tt.key, tt.members)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(dec.Gone) != fmt.Sprint(tt.gone) || fmt.Sprint(dec.Late) != fmt.Sprint(tt.late) {
				t.Errorf("case %d: gone %v late %v, want gone %v late %v", i, dec.Gone, dec.Late, tt.gone, tt.late)
			}
			if want := len(tt.gone) == 0 && len(tt.late) == 0; dec.Run() != want {
				t.Errorf("Run() = %v, want %v", dec.Run(), want)
			}
			for id, want := range tt.status {
				m, err := s.GetMessage(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if m.Status != want {
					t.Errorf("%s: %s (%q), want %s", id, m.Status, m.Reason, want)
				}
			}
		})
	}
}

// TestExpireHeld expires only messages still pending.
func TestExpireHeld(t *testing.T) {
	ctx := context.Background()
	s, _ := open(t)
	for _, m := range []struct{ id, status string }{{"a", StatusPending}, {"b", StatusDone}, {"c", StatusPending}} {
		if _, err := s.RecordMessage(ctx, &Message{MessageID: m.id, Status: m.status, Raw: []byte("x"), Received: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	expired, gone, err := s.ExpireHeld(ctx, "no series formed", []string{"a", "b", "c", "nope"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(expired) != "[a c]" || fmt.Sprint(gone) != "[b nope]" {
		t.Errorf("expired %v gone %v", expired, gone)
	}
	if m, _ := s.GetMessage(ctx, "b"); m.Status != StatusDone {
		t.Errorf("a done message was expired: %+v", m)
	}
	if m, _ := s.GetMessage(ctx, "a"); m.Status != StatusExpired || m.Reason != "no series formed" {
		t.Errorf("a: %+v", m)
	}
	if pend, _ := s.PendingMessages(ctx); len(pend) != 0 {
		t.Errorf("%d still pending", len(pend))
	}
}
