package runner

import (
	"os"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

func TestSplatStack(t *testing.T) {
	b, err := os.ReadFile("testdata/confirm/might_sleep.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(splatStack(string(b)), " ")
	// "? " frames are left out, compiler suffixes dropped, the lock list's
	// "at: f+0x" lines are no frames.
	want := "dump_stack_lvl __might_resched __mutex_lock mutex_lock_nested remove_watch_from_object watch_queue_clear free_pipe_info pipe_release __fput task_work_run exit_to_user_mode_prepare syscall_exit_to_user_mode do_syscall_64 entry_SYSCALL_64_after_hwframe"
	if got != want {
		t.Errorf("stack\n got %s\nwant %s", got, want)
	}
}

func TestConfirmFindings(t *testing.T) {
	sleep, _ := os.ReadFile("testdata/confirm/might_sleep.txt")
	hung, _ := os.ReadFile("testdata/confirm/hung_task.txt")
	// Captured from the guest: seed 002's v5 series on 6.1.192
	// (TestIntegrationConfirmSeed002).
	unlocked, _ := os.ReadFile("testdata/confirm/waitqueue_unlocked.txt")
	chain := []report.Step{{Func: "watch_queue_clear", File: "kernel/watch_queue.c"}, {Func: "remove_watch_from_object", File: "kernel/watch_queue.c"}}
	tests := []struct {
		name     string
		finding  report.Finding
		splat    string
		wantFunc string // "" when not confirmed
		wantKind string
	}{
		{"sleep under rcu, function of the chain on the stack",
			report.Finding{Rule: "sleep-in-atomic", Severity: report.SeverityRisk, Func: "post_one_notification", Chain: chain},
			string(sleep), "remove_watch_from_object", "sleep-in-atomic"},
		{"finding's own function on the stack",
			report.Finding{Rule: "sleep-in-atomic", Severity: report.SeverityRisk, Func: "remove_watch_from_object"},
			"unrelated text\n\n" + string(sleep), "remove_watch_from_object", "sleep-in-atomic"},
		{"hung waiter confirms a wakeup finding",
			report.Finding{Rule: "wakeup", Severity: report.SeverityRisk, Func: "pipe_read"},
			string(hung), "pipe_read", "hung-task"},
		{"a _locked wake-up without the queue lock confirms a wakeup finding",
			report.Finding{Rule: "wakeup", Severity: report.SeverityRisk, Func: "post_one_notification"},
			string(unlocked), "post_one_notification", "waitqueue-unlocked"},
		{"the wait queue assertion does not confirm a sleep finding",
			report.Finding{Rule: "sleep-in-atomic", Severity: report.SeverityRisk, Func: "post_one_notification"},
			string(unlocked), "", ""},
		{"a hung task does not confirm a sleep finding",
			report.Finding{Rule: "sleep-in-atomic", Severity: report.SeverityRisk, Func: "pipe_read"},
			string(hung), "", ""},
		{"function only on a guessed frame",
			report.Finding{Rule: "wakeup", Severity: report.SeverityRisk, Func: "prepare_to_wait_event"},
			string(hung), "", ""},
		{"function not on the stack",
			report.Finding{Rule: "sleep-in-atomic", Severity: report.SeverityRisk, Func: "splice_to_pipe"},
			string(sleep), "", ""},
		{"notes are not confirmed",
			report.Finding{Rule: "sleep-in-atomic", Severity: report.SeverityNote, Func: "remove_watch_from_object"},
			string(sleep), "", ""},
		{"no splat", report.Finding{Rule: "sleep-in-atomic", Severity: report.SeverityRisk, Func: "remove_watch_from_object"},
			"", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vm := &report.VMReport{Tests: []report.VMTest{
				{Name: "pipe_two_readers", Baseline: "pass", Patched: "pass"},
				{Name: "kselftest/watch_queue/watch_test", Baseline: "pass", Patched: "crash", Splat: tc.splat},
			}}
			fs := []report.Finding{tc.finding}
			n := ConfirmFindings(fs, vm)
			c := fs[0].Confirmed
			if tc.wantFunc == "" {
				if n != 0 || c != nil {
					t.Fatalf("confirmed: %+v", c)
				}
				return
			}
			if n != 1 || c == nil || c.Function != tc.wantFunc || c.Kind != tc.wantKind || c.Test != "kselftest/watch_queue/watch_test" {
				t.Fatalf("confirmation %+v (n %d)", c, n)
			}
			if !strings.HasPrefix(c.Excerpt, "BUG: ") && !strings.HasPrefix(c.Excerpt, "INFO: ") && !strings.HasPrefix(c.Excerpt, "WARNING: ") ||
				!strings.Contains(c.Excerpt, tc.wantFunc) || strings.Contains(c.Excerpt, "unrelated text") {
				t.Errorf("excerpt %q", c.Excerpt)
			}
		})
	}
}
