package github

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/autosel-bot/autosel-bot/internal/ghfake"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/store"
)

const onePatch = `From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
From: Dev <dev@example.org>
Date: Fri, 11 Aug 2023 09:03:08 +0800
Subject: [PATCH] lib: take the mutex

Take the mutex.

Signed-off-by: Dev <dev@example.org>
---
 lib/x.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/lib/x.c b/lib/x.c
index 1111111..2222222 100644
--- a/lib/x.c
+++ b/lib/x.c
@@ -10,3 +10,3 @@ void f(void)
 	a();
-	spin_lock(&l);
+	mutex_lock(&m);
 	b();
-- 
2.40.0
`

// fakeAnalysis reports one risk at lib/x.c:11 for every series, counting
// its runs.
type fakeAnalysis struct {
	mu   sync.Mutex
	runs int
}

func (f *fakeAnalysis) analyze(ctx context.Context, s *series.Series) (*report.Report, error) {
	f.mu.Lock()
	f.runs++
	f.mu.Unlock()
	r := pipeline.NewReport(s)
	r.Patches[0].Findings = append(r.Patches[0].Findings, report.Finding{Rule: "sleep-in-atomic", Severity: report.SeverityRisk,
		Patch: 1, File: "lib/x.c", Func: "f", Line: 11, Message: "mutex_lock() may sleep under a spinlock"})
	return r, nil
}

func addOnePatchPR(srv *ghfake.Server, number int) *ghfake.PR {
	pr := &ghfake.PR{Repo: "torvalds/linux", Number: number, Title: "lib: take the mutex", Author: "dev",
		HeadSHA: fmt.Sprintf("%040d", number), BaseSHA: strings.Repeat("b", 40),
		Commits: []ghfake.Commit{{SHA: fmt.Sprintf("%039d1", number), Patch: onePatch}},
		Files:   map[string]string{"lib/x.c": "@@ -10,3 +10,3 @@ void f(void)\n \ta();\n-\tspin_lock(&l);\n+\tmutex_lock(&m);\n \tb();"}}
	srv.AddPR(pr)
	return pr
}

// TestRestartResumesWithoutDuplicates simulates a crash after each
// posting request went out but before its outcome was recorded: the next
// run finds what was posted (check run by external id, review by head
// marker, completed check run) and posts nothing twice.
func TestRestartResumesWithoutDuplicates(t *testing.T) {
	ctx := context.Background()
	for _, crashedIn := range []string{store.PRCheckPosting, store.PRReviewPosting, store.PRCheckCompleting} {
		t.Run(crashedIn, func(t *testing.T) {
			srv := ghfake.New(t)
			pr := addOnePatchPR(srv, 3)
			fa := &fakeAnalysis{}
			w, st, c := newTestWatcher(t, srv, filepath.Join(t.TempDir(), "s.db"), fa.analyze)
			head, err := c.GetPullRequest(ctx, pr.Repo, pr.Number)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.ProcessHead(ctx, head); err != nil {
				t.Fatal(err)
			}
			// Rewind the row as if the process died right after the request.
			row, err := st.GetPullRequest(ctx, pr.Repo, pr.Number, pr.HeadSHA)
			if err != nil {
				t.Fatal(err)
			}
			row.State = crashedIn
			switch crashedIn {
			case store.PRCheckPosting:
				row.CheckRunID, row.ReviewID, row.Report = 0, 0, ""
			case store.PRReviewPosting:
				row.ReviewID = 0
			}
			if err := st.PutPullRequest(ctx, row); err != nil {
				t.Fatal(err)
			}
			posts := srv.Count("POST ") + srv.Count("PATCH ")
			if err := w.ProcessHead(ctx, head); err != nil {
				t.Fatal(err)
			}
			if n := len(srv.Reviews()); n != 1 {
				t.Errorf("%d reviews", n)
			}
			if n := len(srv.CheckRuns()); n != 1 {
				t.Errorf("%d check runs", n)
			}
			extra := srv.Count("POST ") + srv.Count("PATCH ") - posts
			if extra != 0 {
				t.Errorf("%d posting requests after the restart", extra)
			}
			if cr := srv.CheckRuns()[0]; len(cr.Annotations) != 1 {
				t.Errorf("annotations: %d", len(cr.Annotations))
			}
			row, _ = st.GetPullRequest(ctx, pr.Repo, pr.Number, pr.HeadSHA)
			if row.State != store.PRDone || row.Conclusion != "failure" {
				t.Errorf("row %+v", row)
			}
		})
	}
}

// TestServerErrorOnReviewPost: a 502 on the (not retried) review POST
// fails the attempt; the next attempt looks for the review, finds none,
// and posts it once.
func TestServerErrorOnReviewPost(t *testing.T) {
	ctx := context.Background()
	srv := ghfake.New(t)
	pr := addOnePatchPR(srv, 4)
	fa := &fakeAnalysis{}
	w, st, c := newTestWatcher(t, srv, filepath.Join(t.TempDir(), "s.db"), fa.analyze)
	srv.Inject(ghfake.Fault{Match: "POST /api/repos/torvalds/linux/pulls/4/reviews", Times: 1, Kind: "5xx"})
	head, _ := c.GetPullRequest(ctx, pr.Repo, pr.Number)
	if err := w.ProcessHead(ctx, head); err == nil {
		t.Fatal("no error after a 502 on the review")
	}
	row, _ := st.GetPullRequest(ctx, pr.Repo, pr.Number, pr.HeadSHA)
	if row.State != store.PRReviewPosting || row.Attempts != 1 {
		t.Fatalf("row after the 502: %+v", row)
	}
	if err := w.ProcessHead(ctx, head); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Reviews()); n != 1 {
		t.Errorf("%d reviews", n)
	}
	if fa.runs != 1 {
		t.Errorf("analysed %d times; the stored review should be reused", fa.runs)
	}
	rv := srv.Reviews()[0]
	if len(rv.Comments) != 1 || rv.Comments[0]["path"] != "lib/x.c" || rv.Comments[0]["line"].(float64) != 11 {
		t.Errorf("comments %+v", rv.Comments)
	}
}

// TestTransportRetriesAndRateLimits: 5xx on GETs are retried with backoff;
// primary (X-RateLimit-Remaining: 0) and secondary (Retry-After) limits
// are waited out as the answer says; unchanged lists are answered 304 and
// served from the cache; pagination is followed; the token goes to the
// API host only.
func TestTransportRetriesAndRateLimits(t *testing.T) {
	ctx := context.Background()
	srv := ghfake.New(t)
	for i := 1; i <= 5; i++ {
		addOnePatchPR(srv, i)
	}
	srv.SetPerPage(2)
	var logs bytes.Buffer
	c, err := NewClient(ClientOptions{Token: "t0ken", BaseURL: srv.APIURL(), UploadURL: srv.UploadURL(),
		Backoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, MaxRateWait: time.Hour, WriteGap: -1,
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	c.tr.sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }

	srv.Inject(ghfake.Fault{Match: "GET /api/repos/torvalds/linux/pulls", Times: 2, Kind: "5xx"})
	prs, err := c.OpenPullRequests(ctx, "torvalds/linux")
	if err != nil || len(prs) != 5 || prs[0].Number != 5 || prs[4].Number != 1 {
		t.Fatalf("list: %d PRs, %v", len(prs), err)
	}
	if c.Stats.Retries5xx.Load() != 2 || len(waits) != 2 || waits[0] != time.Millisecond || waits[1] != 2*time.Millisecond {
		t.Errorf("5xx retries %d, waits %v", c.Stats.Retries5xx.Load(), waits)
	}
	if n := srv.Count("GET /api/repos/torvalds/linux/pulls"); n != 5 {
		t.Errorf("%d list requests (3 pages + 2 failures)", n)
	}

	waits = nil
	srv.Inject(ghfake.Fault{Match: "GET /api/repos/torvalds/linux/pulls", Times: 1, Kind: "secondary", RetryAfter: 7})
	srv.Inject(ghfake.Fault{Match: "GET /api/repos/torvalds/linux/pulls", Times: 1, Kind: "primary", ResetIn: 30 * time.Second})
	before := c.Stats.NotModified.Load()
	prs, err = c.OpenPullRequests(ctx, "torvalds/linux")
	if err != nil || len(prs) != 5 {
		t.Fatalf("list after rate limits: %d, %v", len(prs), err)
	}
	if len(waits) < 2 || waits[0] != 7*time.Second || waits[1] < 25*time.Second || waits[1] > 32*time.Second {
		t.Errorf("rate-limit waits %v", waits)
	}
	if c.Stats.NotModified.Load()-before != 3 {
		t.Errorf("%d pages answered 304, want 3", c.Stats.NotModified.Load()-before)
	}
	for _, r := range srv.Requests() {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			t.Fatalf("request %s %s without the token", r.Method, r.Path)
		}
	}
	var notMod int
	for _, r := range srv.Requests() {
		if r.Status == http.StatusNotModified && r.Header.Get("If-None-Match") == "" {
			t.Errorf("304 without If-None-Match")
		}
		if r.Status == http.StatusNotModified {
			notMod++
		}
	}
	if notMod != 3 {
		t.Errorf("server answered %d 304s", notMod)
	}

	// A POST is not retried after a 5xx (it may have been applied).
	srv.Inject(ghfake.Fault{Match: "POST /api/repos/torvalds/linux/check-runs", Times: 1, Kind: "5xx"})
	n0 := srv.Count("POST /api/repos/torvalds/linux/check-runs")
	_, _, err = c.Checks.CreateCheckRun(ctx, "torvalds", "linux", checkOpts())
	if err == nil || srv.Count("POST /api/repos/torvalds/linux/check-runs")-n0 != 1 {
		t.Errorf("POST after 502: err %v, %d requests", err, srv.Count("POST /api/repos/torvalds/linux/check-runs")-n0)
	}
	// Mutating requests are spaced by the write gap.
	c.tr.writeGap = time.Second
	waits = nil
	for i := 0; i < 2; i++ {
		c.Checks.CreateCheckRun(ctx, "torvalds", "linux", checkOpts())
	}
	if len(waits) != 2 || waits[0] != 0 || waits[1] < 900*time.Millisecond {
		t.Errorf("write gap waits %v", waits)
	}
	// A primary limit that resets too far away is returned to the caller.
	c.tr.maxWait = time.Second
	srv.Inject(ghfake.Fault{Match: "GET /api/repos/torvalds/linux/pulls/1", Times: 1, Kind: "primary", ResetIn: time.Hour})
	if _, err := c.GetPullRequest(ctx, "torvalds/linux", 1); err == nil || !strings.Contains(err.Error(), "rate limit") {
		t.Errorf("long primary limit: %v", err)
	}
	if !strings.Contains(logs.String(), "retrying") || !strings.Contains(logs.String(), "rate limited") || strings.Contains(logs.String(), "t0ken") {
		t.Errorf("logs (must tell retries and waits, never the token):\n%s", logs.String())
	}
}

// TestWebhook: deliveries need a valid X-Hub-Signature-256; a signed
// pull_request event for a watched repository triggers a poll.
func TestWebhook(t *testing.T) {
	srv := ghfake.New(t)
	fa := &fakeAnalysis{}
	w, _, _ := newTestWatcher(t, srv, filepath.Join(t.TempDir(), "s.db"), fa.analyze)
	secret := []byte("s3cret")
	h := WebhookHandler(w, secret)
	payload := []byte(`{"action":"synchronize","number":9,"pull_request":{"number":9,"head":{"sha":"abc"}},"repository":{"full_name":"torvalds/linux"}}`)
	sign := func(key, body []byte) string {
		m := hmac.New(sha256.New, key)
		m.Write(body)
		return "sha256=" + hex.EncodeToString(m.Sum(nil))
	}
	for _, tt := range []struct {
		name, event, sig string
		body             []byte
		status           int
		kicked           bool
	}{
		{"no signature", "pull_request", "", payload, 401, false},
		{"wrong secret", "pull_request", sign([]byte("other"), payload), payload, 401, false},
		{"tampered body", "pull_request", sign(secret, payload), append(bytes.Clone(payload[:len(payload)-1]), ' ', '}'), 401, false},
		{"ping", "ping", sign(secret, []byte(`{"zen":"hi"}`)), []byte(`{"zen":"hi"}`), 204, false},
		{"closed", "pull_request", sign(secret, []byte(strings.Replace(string(payload), "synchronize", "closed", 1))),
			[]byte(strings.Replace(string(payload), "synchronize", "closed", 1)), 204, false},
		{"other repo", "pull_request", sign(secret, []byte(strings.Replace(string(payload), "torvalds/linux", "x/y", 1))),
			[]byte(strings.Replace(string(payload), "torvalds/linux", "x/y", 1)), 204, false},
		{"synchronize", "pull_request", sign(secret, payload), payload, 202, true},
	} {
		req := httptest.NewRequest("POST", "/github/webhook", bytes.NewReader(tt.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-GitHub-Event", tt.event)
		if tt.sig != "" {
			req.Header.Set("X-Hub-Signature-256", tt.sig)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		kicked := false
		select {
		case <-w.kick:
			kicked = true
		default:
		}
		if rec.Code != tt.status || kicked != tt.kicked {
			t.Errorf("%s: status %d kicked %v, want %d %v", tt.name, rec.Code, kicked, tt.status, tt.kicked)
		}
	}
	// No secret configured: everything is refused.
	req := httptest.NewRequest("POST", "/github/webhook", bytes.NewReader(payload))
	req.Header.Set("X-GitHub-Event", "pull_request")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	WebhookHandler(w, nil).ServeHTTP(rec, req)
	if rec.Code != 401 {
		t.Errorf("no secret: %d", rec.Code)
	}
}

// TestRunPollsAndStops: Run reviews every open PR with workers, skips
// drafts, and returns when the context ends.
func TestRunPollsAndStops(t *testing.T) {
	srv := ghfake.New(t)
	for i := 1; i <= 3; i++ {
		addOnePatchPR(srv, i)
	}
	draft := addOnePatchPR(srv, 4)
	draft.Draft = true
	srv.AddPR(draft)
	fa := &fakeAnalysis{}
	w, st, _ := newTestWatcher(t, srv, filepath.Join(t.TempDir(), "s.db"), fa.analyze)
	w.opts.Workers, w.opts.PollInterval = 2, 20*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, _ := st.CountPullRequests(context.Background())
		if n[store.PRDone] == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("states %v", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(60 * time.Millisecond) // a few more polls
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(srv.Reviews()) != 3 || len(srv.CheckRuns()) != 3 || fa.runs != 3 {
		t.Errorf("reviews %d, check runs %d, analyses %d", len(srv.Reviews()), len(srv.CheckRuns()), fa.runs)
	}
}

// TestManyAnnotationsAndTooManyCommits: annotations go out 50 per update
// and the run is completed by the last one; a PR over max_commits is given
// up at once with a neutral check run.
func TestManyAnnotationsAndTooManyCommits(t *testing.T) {
	ctx := context.Background()
	srv := ghfake.New(t)
	pr := addOnePatchPR(srv, 5)
	many := func(ctx context.Context, s *series.Series) (*report.Report, error) {
		r := pipeline.NewReport(s)
		for i := 0; i < 120; i++ {
			r.Patches[0].Findings = append(r.Patches[0].Findings, report.Finding{Rule: "wakeup-changed", Severity: report.SeverityNote,
				Patch: 1, File: "lib/y.c", Func: "g", Line: 100 + i, Message: "changed wakeup"})
		}
		return r, nil
	}
	w, st, c := newTestWatcher(t, srv, filepath.Join(t.TempDir(), "s.db"), many)
	w.opts.Notes = true
	head, _ := c.GetPullRequest(ctx, pr.Repo, pr.Number)
	if err := w.ProcessHead(ctx, head); err != nil {
		t.Fatal(err)
	}
	cr := srv.CheckRuns()[0]
	if len(cr.Annotations) != 120 || cr.Updates != 3 || cr.Conclusion != "success" || cr.Annotations[0]["annotation_level"] != "warning" {
		t.Errorf("annotations %d in %d updates, conclusion %s", len(cr.Annotations), cr.Updates, cr.Conclusion)
	}
	if rv := srv.Reviews()[0]; len(rv.Comments) != 0 || !strings.Contains(rv.Body, "120 notes") {
		t.Errorf("lines outside the diff became comments (%d) or the body lacks the count:\n%.300s", len(rv.Comments), rv.Body)
	}

	big := addOnePatchPR(srv, 6)
	for i := 0; i < 3; i++ {
		big.Commits = append(big.Commits, ghfake.Commit{SHA: fmt.Sprintf("%039d%d", 60+i, i), Patch: onePatch})
	}
	srv.AddPR(big)
	w.opts.MaxCommits = 2
	head, _ = c.GetPullRequest(ctx, big.Repo, big.Number)
	if err := w.ProcessHead(ctx, head); err == nil {
		t.Fatal("a PR over max_commits was reviewed")
	}
	row, _ := st.GetPullRequest(ctx, big.Repo, big.Number, big.HeadSHA)
	if row.State != store.PRFailed || row.Attempts != 1 || !strings.Contains(row.Error, "more than 2 commits") {
		t.Errorf("row %+v", row)
	}
	if cr := srv.CheckRuns()[1]; cr.Conclusion != "neutral" || cr.HeadSHA != big.HeadSHA {
		t.Errorf("check run of the given-up head: %+v", cr)
	}
}

// TestLineCommentsRefused: when GitHub refuses the line comments (422),
// the review is posted once with the comments folded into its body.
func TestLineCommentsRefused(t *testing.T) {
	ctx := context.Background()
	srv := ghfake.New(t)
	pr := addOnePatchPR(srv, 8)
	fa := &fakeAnalysis{}
	w, _, c := newTestWatcher(t, srv, filepath.Join(t.TempDir(), "s.db"), fa.analyze)
	srv.Inject(ghfake.Fault{Match: "POST /api/repos/torvalds/linux/pulls/8/reviews", Times: 1, Kind: "422"})
	head, _ := c.GetPullRequest(ctx, pr.Repo, pr.Number)
	if err := w.ProcessHead(ctx, head); err != nil {
		t.Fatal(err)
	}
	rvs := srv.Reviews()
	if len(rvs) != 1 || len(rvs[0].Comments) != 0 || !strings.Contains(rvs[0].Body, "`lib/x.c:11`") ||
		!strings.Contains(rvs[0].Body, "mutex\\_lock() may sleep") || !strings.Contains(rvs[0].Body, marker(pr.HeadSHA)) {
		t.Fatalf("reviews %+v", rvs)
	}
}

func TestCollector(t *testing.T) {
	ctx := context.Background()
	srv := ghfake.New(t)
	pr := addOnePatchPR(srv, 2)
	fa := &fakeAnalysis{}
	w, _, c := newTestWatcher(t, srv, filepath.Join(t.TempDir(), "s.db"), fa.analyze)
	head, _ := c.GetPullRequest(ctx, pr.Repo, pr.Number)
	if err := w.ProcessHead(ctx, head); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	if err := reg.Register(w.Collector()); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range m.GetLabel() {
				key += "{" + l.GetValue() + "}"
			}
			got[key] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	if got["autosel_github_pull_request_heads{done}"] != 1 || got["autosel_github_requests_total"] < 5 || len(got) != 5 {
		t.Errorf("metrics %v", got)
	}
}
