package wakeup

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/rules"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/mail"
)

// TestWakeupSeedMboxes runs the rule on the diffs the mail layer extracts
// from the seed threads (testdata/seeds/*.mbox), as the pipeline does.
func TestWakeupSeedMboxes(t *testing.T) {
	tests := []struct {
		mbox    string
		subject string // substring selecting the message
		wants   []wantFinding
		nots    []wantFinding
	}{
		{"000-pipe-exclusive-autosel.mbox", "AUTOSEL", []wantFinding{
			{rule: CategoryLostWakeup, sev: "risk", fn: "pipe_release", key: rdWait},
			{rule: CategoryLostWakeup, sev: "risk", fn: "pipe_release", key: wrWait},
			{rule: CategoryExclusive, fn: "pipe_read"}, {rule: CategoryExclusive, fn: "pipe_write"},
			{rule: CategorySplit, key: "pipe_inode_info.wait"},
		}, nil},
		// Andrei Vagin's reply proposing the quick fix (patch-only: the
		// reader-side chain now covers the last writer going away).
		{"000-pipe-exclusive-autosel.mbox", "Re:", nil, []wantFinding{{sev: "risk"}}},
		{"003-pipe-notification-v3.mbox", "", nil, []wantFinding{{sev: "risk"}}},
		{"004-epoll-autoremove.mbox", "epoll", []wantFinding{
			{rule: CategoryWaitEntry, fn: "ep_poll", msg: "wait entry wait now auto-removed on wakeup (init_wait)"},
		}, []wantFinding{{sev: "risk"}}},
	}
	for _, tc := range tests {
		t.Run(tc.mbox+"/"+tc.subject, func(t *testing.T) {
			msgs, errs := mail.Load(context.Background(), []string{filepath.Join("..", "..", "testdata", "seeds", tc.mbox)}, nil)
			if len(msgs) == 0 {
				t.Fatalf("no messages: %v", errs)
			}
			ran := 0
			for _, m := range msgs {
				if m.Diff == "" || !strings.Contains(m.Subject.Raw, tc.subject) {
					continue
				}
				if tc.subject == "AUTOSEL" && strings.HasPrefix(m.Subject.Raw, "Re:") {
					continue // a reply quoting the patch
				}
				cs, err := diffcheck.Parse(m.Diff)
				if err != nil {
					t.Fatalf("%s: %v", m.MessageID, err)
				}
				ran++
				fs := runWakeupDiff(t, "", rules.NewPass(cs, nil, rules.Options{}, 1))
				checkFindings(t, fs, tc.wants, tc.nots)
				if tc.subject != "" {
					break
				}
			}
			if ran == 0 {
				t.Fatalf("no message with a diff matching %q", tc.subject)
			}
		})
	}
}
