package rules

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/mail"
)

// TestWakeupSeedMboxes runs the rule on the diffs the mail layer extracts
// from the seed threads (testdata/seeds/*.mbox), as the pipeline does.
func TestWakeupSeedMboxes(t *testing.T) {
	tests := []struct {
		mbox    string
		subject string // substring selecting the message
		wants   []wkWant
		nots    []wkWant
	}{
		{"000-pipe-exclusive-autosel.mbox", "AUTOSEL", []wkWant{
			{rule: RuleLostWakeup, sev: "risk", fn: "pipe_release", key: wkRdWait},
			{rule: RuleLostWakeup, sev: "risk", fn: "pipe_release", key: wkWrWait},
			{rule: RuleWakeupExclusive, fn: "pipe_read"}, {rule: RuleWakeupExclusive, fn: "pipe_write"},
			{rule: RuleWaitqueueSplit, key: "pipe_inode_info.wait"},
		}, nil},
		// Andrei Vagin's reply proposing the quick fix (patch-only: the
		// reader-side chain now covers the last writer going away).
		{"000-pipe-exclusive-autosel.mbox", "Re:", nil, []wkWant{{sev: "risk"}}},
		{"003-pipe-notification-v3.mbox", "", nil, []wkWant{{sev: "risk"}}},
		{"004-epoll-autoremove.mbox", "epoll", []wkWant{
			{rule: RuleWaitEntry, fn: "ep_poll", msg: "wait entry wait now auto-removed on wakeup (init_wait)"},
		}, []wkWant{{sev: "risk"}}},
	}
	for _, tc := range tests {
		t.Run(tc.mbox+"/"+tc.subject, func(t *testing.T) {
			msgs, errs := mail.Load(context.Background(), []string{filepath.Join("..", "testdata", "seeds", tc.mbox)}, nil)
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
				fs := runWakeupDiff(t, "", &Pass{Change: cs})
				wkCheckFindings(t, fs, tc.wants, tc.nots)
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
