package daemon

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/deliver"
	"github.com/autosel-bot/autosel-bot/imapsrc"
	"github.com/autosel-bot/autosel-bot/store"
)

func TestHostilePath(t *testing.T) {
	tests := []struct {
		diff, want string
	}{
		{"--- a/fs/pipe.c\n+++ b/fs/pipe.c\n@@ -1 +1 @@\n-a\n+b\n", ""},
		{"--- /dev/null\n+++ b/new.c\n", ""},
		{"--- a/x\n+++ b/../../etc/passwd\n", "../../etc/passwd"},
		{"diff --git a/x b/../x\n", "../x"},
		{"--- a/x\n+++ /etc/shadow\t2024-01-01\n", "/etc/shadow"},
		{"rename from a\nrename to ../../b\n", "../../b"},
		{"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-../../not/a/header\n+++ but not a header either\n", ""},
		{"--- a/..foo/bar\n+++ b/..foo/bar\n", ""},
	}
	for _, tt := range tests {
		if got := hostilePath(tt.diff); got != tt.want {
			t.Errorf("hostilePath(%q) = %q, want %q", tt.diff, got, tt.want)
		}
	}
}

func FuzzHostilePath(f *testing.F) {
	f.Add("--- a/x\n+++ b/../../etc/passwd\n")
	f.Add("diff --git a/x b/x\n--- a/x\n+++ b/x\n")
	f.Add("rename from \nrename to\n")
	f.Fuzz(func(t *testing.T, diff string) {
		p := hostilePath(diff)
		if p != "" && !strings.Contains(diff, p) {
			t.Fatalf("reported path %q not in the diff", p)
		}
	})
}

// feed hands raw messages to the daemon as IMAP would.
func feed(t *testing.T, d *Daemon, raws ...[]byte) {
	t.Helper()
	for i, raw := range raws {
		if err := d.Handle(context.Background(), &imapsrc.Message{Source: "t", UID: uint32(i + 1), Size: int64(len(raw)), Raw: raw}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestClassify(t *testing.T) {
	e := newEnv(t, Options{Bots: []string{"*bot@*", "lkp@intel.com"}}, deliver.Options{}, nil, nil)
	patch := "\n\nfix\n\nSigned-off-by: A <a@x.org>\n---\ndiff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n"
	msgs := []struct {
		id, head, body, want string
	}{
		{"own@x", "From: autosel-bot <autosel-bot@bot.example.org>\nSubject: [PATCH] x", patch, store.StatusSkipped},
		{"bot@x", "From: Some Bot <ci-bot@example.org>\nSubject: [PATCH] x", patch, store.StatusSkipped},
		{"lkp@x", "From: kernel test robot <lkp@intel.com>\nSubject: [PATCH] x", patch, store.StatusSkipped},
		{"auto@x", "From: a@x.org\nAuto-Submitted: auto-replied\nSubject: [PATCH] x", patch, store.StatusSkipped},
		{"autono@x", "From: a@x.org\nAuto-Submitted: no\nSubject: [PATCH] y", patch, store.StatusPending},
		{"nopatch@x", "From: a@x.org\nSubject: Re: [PATCH] x", "\n\nLooks good.\n", store.StatusSkipped},
		{"cover@x", "From: a@x.org\nSubject: [PATCH 0/2] series", "\n\ncover letter\n", store.StatusPending},
		{"p@x", "From: a@x.org\nSubject: [PATCH] fine", patch, store.StatusPending},
		// A sender without a domain is still matched by its local part.
		{"nodomainbot@x", "From: syzbot <syzbot>\nSubject: [PATCH] x", patch, store.StatusSkipped},
		{"nodomain@x", "From: Stephen M. Cameron <StephenM.Cameron>\nSubject: [PATCH] z", patch, store.StatusPending},
	}
	for _, m := range msgs {
		feed(t, e.d, []byte(m.head+"\nMessage-ID: <"+m.id+">\nDate: Mon, 1 Jan 2024 00:00:00 +0000"+m.body))
	}
	for _, m := range msgs {
		got, err := e.st.GetMessage(context.Background(), m.id)
		if err != nil {
			t.Fatalf("%s: %v", m.id, err)
		}
		if got.Status != m.want {
			t.Errorf("%s: %s (%s), want %s", m.id, got.Status, got.Reason, m.want)
		}
	}
}

// TestReplayResume: replay the seeds, with the analyzer panicking on one
// series; the others go through, and a second replay does nothing.
func TestReplayResume(t *testing.T) {
	e := newEnv(t, Options{}, deliver.Options{}, nil, nil)
	e.an.panic = "epoll"
	files, _ := filepath.Glob("../testdata/seeds/*.mbox")
	st, err := e.d.Replay(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	seeds := seedMessages(t)
	if st.Read != len(seeds) || st.New != len(seeds) {
		t.Fatalf("read %d new %d, want %d", st.Read, st.New, len(seeds))
	}
	keys := expectedSeries(t, seeds)
	if st.Series[store.SeriesDone] != len(keys)-1 || st.Series[store.SeriesFailed] != 1 {
		t.Errorf("series %v, want %d done and 1 failed (panic)", st.Series, len(keys)-1)
	}
	if !strings.Contains(e.logBuf.String(), "analysis panicked") {
		t.Error("panic not logged")
	}
	if st.Replies[store.ReplyDryRun] != len(keys)-1 {
		t.Errorf("replies %v", st.Replies)
	}
	checkThreading(t, outboxMails(t, e.out.Dir), parseAll(t, seeds))
	st2, err := e.d.Replay(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	if st2.New != 0 {
		t.Errorf("second replay: %d new", st2.New)
	}
	for _, k := range keys {
		if n := e.an.count(k); n != 1 {
			t.Errorf("%s analysed %d times", k, n)
		}
	}
}

// TestRestartResumes: a daemon stopped with messages held and a series
// mid-analysis; a new daemon on the same state finishes the job once.
func TestRestartResumes(t *testing.T) {
	e := newEnv(t, Options{SeriesWait: time.Hour}, deliver.Options{}, nil, nil)
	seeds := seedMessages(t)
	feed(t, e.d, seeds...)
	// Simulate a crash: one series was "processing", nothing finished.
	msgs := e.d.pool
	if len(msgs) == 0 {
		t.Fatal("nothing held")
	}
	ctx := context.Background()
	var anyKey string
	for _, k := range expectedSeries(t, seeds) {
		anyKey = k
		break
	}
	e.st.BeginSeries(ctx, &store.Series{Key: anyKey, SeriesID: anyKey, Version: 1})

	d2, err := New(e.st, e.dl, e.an.analyze, Options{SeriesWait: time.Hour, From: "bot@bot.example.org"}, e.d.log)
	if err != nil {
		t.Fatal(err)
	}
	if err := d2.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if len(d2.pool) != len(e.d.pool) {
		t.Fatalf("resumed %d held messages, had %d", len(d2.pool), len(e.d.pool))
	}
	stop := d2.startWorkers(ctx)
	if err := d2.schedule(ctx, time.Now(), true); err != nil {
		t.Fatal(err)
	}
	d2.jobs.Wait()
	stop()
	s, _ := e.st.GetSeries(ctx, anyKey)
	if s.State != store.SeriesDone || s.Attempts != 2 {
		t.Errorf("interrupted series: %+v", s)
	}
	c, _ := e.st.CountMessages(ctx)
	if c[store.StatusPending] != 0 {
		t.Errorf("messages still pending: %v", c)
	}
}

// TestSeriesWait: an incomplete series is held until the wait is over; a
// late part of a processed series is not processed again.
func TestSeriesWait(t *testing.T) {
	e := newEnv(t, Options{SeriesWait: time.Hour}, deliver.Options{}, nil, nil)
	ctx := context.Background()
	part := func(n int) []byte {
		return []byte("From: A <a@x.org>\nSubject: [PATCH 0" + string(rune('0'+n)) + "/3] thing\nMessage-ID: <p" + string(rune('0'+n)) + "@x>\n" +
			"In-Reply-To: <p0@x>\nReferences: <p0@x>\nDate: Mon, 1 Jan 2024 00:00:0" + string(rune('0'+n)) + " +0000\n\nfix\n---\n" +
			"diff --git a/f.c b/f.c\n--- a/f.c\n+++ b/f.c\n@@ -1 +1 @@\n-a\n+b\n")
	}
	cover := []byte("From: A <a@x.org>\nSubject: [PATCH 0/3] thing\nMessage-ID: <p0@x>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\ncover\n")
	feed(t, e.d, cover, part(1), part(2))
	stop := e.d.startWorkers(ctx)
	defer func() { stop() }()
	now := time.Now()
	if err := e.d.schedule(ctx, now, false); err != nil {
		t.Fatal(err)
	}
	e.d.jobs.Wait()
	if c, _ := e.st.CountSeries(ctx); len(c) != 0 {
		t.Fatalf("incomplete series processed before the wait: %v", c)
	}
	if err := e.d.schedule(ctx, now.Add(2*time.Hour), false); err != nil {
		t.Fatal(err)
	}
	e.d.jobs.Wait()
	s, err := e.st.GetSeries(ctx, "p0@x#v1")
	if err != nil || s.State != store.SeriesDone || s.Incomplete == "" {
		t.Fatalf("series after the wait: %+v %v", s, err)
	}
	feed(t, e.d, part(3))
	if m, _ := e.st.GetMessage(ctx, "p3@x"); m.Status != store.StatusLate {
		t.Errorf("late part: %+v", m)
	}
	if n := e.an.count("p0@x#v1"); n != 1 {
		t.Errorf("analysed %d times", n)
	}
}

func TestHealthAndMetrics(t *testing.T) {
	e := newEnv(t, Options{HealthGrace: time.Minute}, deliver.Options{}, nil, nil)
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	e.d.health.now = func() time.Time { return now }
	h := e.d.HTTPHandler()
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, `"store":"ok"`) {
		t.Errorf("healthz before IMAP: %d %s", code, body)
	}
	hooks := e.d.Hooks()
	hooks.Connected("srv", "INBOX")
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, `"imap srv/INBOX":"ok"`) {
		t.Errorf("healthz connected: %d %s", code, body)
	}
	hooks.Disconnected("srv", "INBOX", errors.New("connection reset"))
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, "connection reset") {
		t.Errorf("healthz within the grace period: %d %s", code, body)
	}
	now = now.Add(2 * time.Minute)
	if code, body := get("/healthz"); code != 503 || !strings.Contains(body, "imap srv/INBOX failing for 2m0s") || !strings.Contains(body, "connection reset") {
		t.Errorf("healthz with a mailbox down past the grace: %d %s", code, body)
	}
	hooks.Connected("srv", "INBOX")
	if code, body := get("/healthz"); code != 200 {
		t.Errorf("healthz after reconnecting: %d %s", code, body)
	}
	feed(t, e.d, seedMessages(t)...)
	code, body := get("/metrics")
	for _, want := range []string{`autosel_imap_disconnects_total{mailbox="INBOX",source="srv"} 1`, `autosel_messages_total{status="pending"}`, "autosel_held_messages", "go_goroutines"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}
