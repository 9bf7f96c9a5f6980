package daemon

import (
	"context"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/deliver"
)

// TestReplayReviewDiffUnderReview: replaying seed 000 and a review reply
// that proposes a diff, with the analysis and replies the command wires,
// the risk on the review's diff is answered under the review message and
// the reply keeps its reviewer (the thread restriction allows the review's
// sender); the reply to the patch does not carry it.
func TestReplayReviewDiffUnderReview(t *testing.T) {
	const reviewID = "review-diff-1@example.com"
	const risk = "[risk] sleep-in-atomic: fs/pipe.c:723 pipe_release()"
	an, err := realAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{}, deliver.Options{}, nil, nil)
	e.an.real = an
	files := []string{"../testdata/seeds/000-pipe-exclusive-autosel.mbox", "../testdata/review/000-review-diff.mbox"}
	if _, err := e.d.Replay(context.Background(), files); err != nil {
		t.Fatal(err)
	}
	out := outboxMails(t, e.out.Dir)
	found := false
	for id, m := range out {
		if m.InReplyTo != reviewID {
			if strings.Contains(m.Body, risk) {
				t.Errorf("reply %s to <%s> carries the review diff's risk", id, m.InReplyTo)
			}
			continue
		}
		found = true
		if n := len(m.References); n == 0 || m.References[n-1] != reviewID {
			t.Errorf("reply %s References %v do not end with the review", id, m.References)
		}
		if !strings.Contains(m.Body, risk) {
			t.Errorf("reply %s under the review lacks %q:\n%s", id, risk, m.Body)
		}
		to := false
		for _, a := range m.To {
			to = to || a.Addr == "reviewer@example.com"
		}
		if !to {
			t.Errorf("reply %s under the review is not to the reviewer: %v", id, m.To)
		}
	}
	if !found {
		t.Fatalf("no reply under the review among %d", len(out))
	}
}
