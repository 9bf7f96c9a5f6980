package daemon

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/store"
)

// part is patch n/total of a thread under cover letter <c0@x> (n = 0:
// the cover letter itself).
func part(n, total int) []byte {
	id := fmt.Sprintf("c%d.%d@x", n, total)
	if n == 0 {
		return []byte(fmt.Sprintf("From: A <a@x.org>\nSubject: [PATCH 0/%d] thing\nMessage-ID: <c0@x>\n"+
			"Date: Mon, 1 Jan 2024 00:00:00 +0000\n\ncover\n", total))
	}
	return []byte(fmt.Sprintf("From: A <a@x.org>\nSubject: [PATCH %d/%d] thing\nMessage-ID: <%s>\n"+
		"In-Reply-To: <c0@x>\nReferences: <c0@x>\nDate: Mon, 1 Jan 2024 00:00:0%d +0000\n\nfix\n---\n"+
		"diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n", n, total, id, n))
}

// finish records a series' outcome as a worker does (without the pool
// and in-flight bookkeeping, which the cases do themselves).
func finish(t *testing.T, e *testEnv, key string, ids ...string) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.st.BeginSeries(ctx, &store.Series{Key: key, SeriesID: "c0@x", Version: 1, Total: 2}); err != nil {
		t.Fatal(err)
	}
	if err := e.st.FinishSeries(ctx, key, store.SeriesDone, "", "{}", ids, nil); err != nil {
		t.Fatal(err)
	}
}

func status(t *testing.T, e *testEnv, id string) string {
	t.Helper()
	m, err := e.st.GetMessage(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return m.Status
}

// TestScheduleFromStore: a pass decides from the store, not from its copy
// of the pool, and leaves alone what a worker has.
func TestScheduleFromStore(t *testing.T) {
	const key = "c0@x#v1"
	series := []string{"c0@x", "c1.2@x", "c2.2@x"}
	tests := []struct {
		name string
		run  func(t *testing.T, e *testEnv, pass func() int)
	}{{
		// The race of issue 19: the pass's copy of the pool still holds
		// a series whose worker has committed it since.
		name: "series finished after the copy was taken",
		run: func(t *testing.T, e *testEnv, pass func() int) {
			finish(t, e, key, series...)
			if n := pass(); n != 1 {
				t.Errorf("deferred %d series, want 1", n)
			}
			for _, id := range series {
				if s := status(t, e, id); s != store.StatusDone {
					t.Errorf("%s: %s, want done", id, s)
				}
			}
			if len(e.d.pool) != 0 {
				t.Errorf("%d messages still held", len(e.d.pool))
			}
			if n := pass(); n != 0 {
				t.Errorf("second pass deferred %d", n)
			}
		},
	}, {
		name: "series a worker has",
		run: func(t *testing.T, e *testEnv, pass func() int) {
			for _, id := range series {
				e.d.inflight[id] = true
			}
			if n := pass(); n != 1 {
				t.Errorf("deferred %d series, want 1", n)
			}
			for _, id := range series {
				if s := status(t, e, id); s != store.StatusPending {
					t.Errorf("%s: %s, want pending", id, s)
				}
			}
			e.d.release(series)
			if n := pass(); n != 0 {
				t.Errorf("pass after the release deferred %d", n)
			}
			e.d.jobs.Wait()
			if e.an.count(key) != 1 || status(t, e, "c1.2@x") != store.StatusDone {
				t.Errorf("series not run once it was free: %d runs", e.an.count(key))
			}
		},
	}, {
		// A patch of the same version in the thread of a series a worker
		// has: its fate waits for that series (late once it is done), as
		// it would had it arrived after the series finished.
		name: "patch referring to a series a worker has",
		run: func(t *testing.T, e *testEnv, pass func() int) {
			for _, id := range series {
				e.d.inflight[id] = true
			}
			feed(t, e.d, part(3, 3))
			if s := status(t, e, "c3.3@x"); s != store.StatusPending {
				t.Fatalf("part 3/3 is %s at ingest, want pending", s)
			}
			if n := pass(); n != 2 {
				t.Errorf("deferred %d series, want 2", n)
			}
			finish(t, e, key, series...)
			e.d.drop(series)
			e.d.release(series)
			if n := pass(); n != 0 {
				t.Errorf("deferred %d after the series finished", n)
			}
			if s := status(t, e, "c3.3@x"); s != store.StatusLate {
				t.Errorf("part 3/3: %s, want late", s)
			}
			e.d.jobs.Wait()
			if n := e.an.count("c3.3@x#v1"); n != 0 {
				t.Errorf("part 3/3 analysed as a series of its own")
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Options{SeriesWait: time.Hour}, deliver.Options{}, nil, nil)
			ctx := context.Background()
			stop := e.d.startWorkers(ctx)
			defer stop()
			feed(t, e.d, part(0, 2), part(1, 2), part(2, 2))
			if len(e.d.pool) != 3 {
				t.Fatalf("%d messages held, want 3", len(e.d.pool))
			}
			tt.run(t, e, func() int {
				t.Helper()
				n, err := e.d.pass(ctx, time.Now(), true)
				if err != nil {
					t.Fatal(err)
				}
				return n
			})
		})
	}
}
