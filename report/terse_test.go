package report

import (
	"bytes"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
)

// TestTerse: one line per finding, prefixed with the patch (its file or
// <Message-ID>); with GCC, the location first and gcc's severities.
func TestTerse(t *testing.T) {
	tests := []struct {
		name string
		opts TerseOptions
		want string
	}{
		{"kernel", TerseOptions{},
			"0002-pipe.patch: kernel/watch_queue.c:129: risk: sleep-in-atomic: __pipe_lock() may sleep (mutex_lock) but post_one_notification() is called under RCU and a spinlock [96f16a6de019]\n" +
				"0002-pipe.patch: fs/pipe.c:500: note: wakeup-changed: the ring head is now updated without the wait queue lock [6177bcee6807]\n" +
				"<review-1@example.org>: error: message <review-1@example.org>: body line 31: malformed diff: invalid line operation: '\\t'\n" +
				"<single@example.org>: note: x: about the series\\x1b[31m [ae396a568a56] [diff recovered from mail damage]\n"},
		{"gcc", TerseOptions{GCC: true},
			"kernel/watch_queue.c:129: warning: sleep-in-atomic: __pipe_lock() may sleep (mutex_lock) but post_one_notification() is called under RCU and a spinlock [96f16a6de019] [0002-pipe.patch]\n" +
				"fs/pipe.c:500: note: wakeup-changed: the ring head is now updated without the wait queue lock [6177bcee6807] [0002-pipe.patch]\n" +
				"<review-1@example.org>: error: message <review-1@example.org>: body line 31: malformed diff: invalid line operation: '\\t'\n" +
				"<single@example.org>: note: x: about the series\\x1b[31m [ae396a568a56] [diff recovered from mail damage]\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := sampleReports()
			rs[0].Patches[1].File = "0002-pipe.patch"
			rs[1].Patches[0].Findings = []Finding{{Rule: "x", Severity: SeverityNote, Message: "about\nthe series\x1b[31m"}}
			rs[1].Patches[0].Notes = []string{diffcheck.RecoveredNote + ": re-joined 1 line-wrapped line"}
			var buf bytes.Buffer
			if err := WriteTerse(&buf, rs, tc.opts); err != nil {
				t.Fatal(err)
			}
			if got := buf.String(); got != tc.want {
				t.Errorf("terse:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
