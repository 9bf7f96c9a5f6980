package wakeup

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"
)

// waitAPINames are the sleeping calls of the kernel's waiting API
// families (include/linux/wait.h, swait.h, completion.h, wait_bit.h,
// rcuwait.h) that the table's match rows stand for.
var waitAPINames = []string{
	"wait_event", "wait_event_timeout", "wait_event_interruptible", "wait_event_interruptible_timeout",
	"wait_event_killable", "wait_event_killable_timeout", "wait_event_idle", "wait_event_idle_timeout",
	"wait_event_freezable", "wait_event_freezable_timeout", "io_wait_event",
	"wait_event_interruptible_exclusive", "wait_event_killable_exclusive", "wait_event_idle_exclusive",
	"wait_event_idle_exclusive_timeout", "wait_event_freezable_exclusive",
	"wait_event_lock_irq", "wait_event_interruptible_lock_irq", "wait_event_interruptible_locked",
	"wait_event_interruptible_exclusive_locked",
	"swait_event_exclusive", "swait_event_interruptible_exclusive", "swait_event_idle_exclusive",
	"swait_event_interruptible_timeout_exclusive",
	"wait_for_completion", "wait_for_completion_timeout", "wait_for_completion_interruptible",
	"wait_for_completion_killable", "wait_for_completion_io",
	"wait_var_event", "wait_var_event_timeout", "wait_var_event_killable",
	"wait_on_bit", "wait_on_bit_timeout", "wait_on_bit_io", "wait_on_bit_lock", "wait_on_bit_lock_io",
	"rcuwait_wait_event", "rcuwait_wait_event_timeout",
}

// TestEveryWaiterRow checks, end to end, that every waiter row of the
// built-in table is a sleeper on the queue its row names: each exact
// name, and every name of waitAPINames a match row stands for, sleeps in
// rw_wait() on d->q (or its family's object) until rw_done() publishes
// the condition and wakes it with its family's wake-up; the patch drops
// that wake-up. Each must be a risk of CategoryRemoved: a row with a
// wrong queue argument, or a family the rule does not pair with its
// wake-up, fails here. Rows used only inside wait.h's macros
// (___wait_event) and sleep_on_page are left out.
func TestEveryWaiterRow(t *testing.T) {
	tb, rule := tablesAndRule(t)
	covered := map[int]bool{}
	var names []string
	for i, w := range tb.Waiters {
		if w.Name != "" && !strings.HasPrefix(w.Name, "___") && w.Name != "sleep_on_page" {
			names = append(names, w.Name)
			covered[i] = true
		}
	}
	for _, n := range waitAPINames {
		if i := firstMatchRow(tb.Waiters, n); i >= 0 {
			names = append(names, n)
			covered[i] = true
		}
	}
	for i, w := range tb.Waiters {
		if w.Match != "" && !covered[i] {
			t.Errorf("match row %q stands for none of waitAPINames: add one", w.Match)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			pre, post := waiterSources(name)
			fs := rulestest.RunGenerated(t, rule, "drivers/misc/waitcheck.c", pre, post)
			for _, f := range fs {
				if f.Severity == report.SeverityRisk && f.Category == CategoryRemoved && f.Func == "rw_done" {
					return
				}
			}
			t.Errorf("%s: no %s risk in rw_done; findings:\n%s\nsource:\n%s", name, CategoryRemoved, describeFindings(fs), pre)
		})
	}
}

// firstMatchRow returns the index of the match row name falls to (rows
// with a name are tried first, then match rows in order), -1 when an
// exact row takes it or none does.
func firstMatchRow(rows []waiterRow, name string) int {
	for _, w := range rows {
		if w.Name == name {
			return -1
		}
	}
	for i, w := range rows {
		if w.Match != "" && regexp.MustCompile(w.Match).MatchString(name) {
			return i
		}
	}
	return -1
}

// waiterSources returns a file whose rw_wait() sleeps with the waiting
// call name and whose rw_done() wakes it, before and after a patch that
// drops the wake-up.
func waiterSources(name string) (pre, post string) {
	qtype := "wait_queue_head_t"
	wake := "\twake_up(&d->q);\n"
	store := "\tWRITE_ONCE(d->ready, 1);\n"
	timeout := ""
	if strings.Contains(name, "timeout") {
		timeout = ", HZ"
	}
	var sleep string
	switch {
	case strings.HasPrefix(name, "wait_for_completion"):
		qtype, wake = "struct completion", "\tcomplete(&d->q);\n"
		sleep = fmt.Sprintf("\t%s(&d->q%s);\n", name, timeout)
	case strings.HasPrefix(name, "wait_var_event"):
		wake = "\twake_up_var(&d->ready);\n"
		sleep = fmt.Sprintf("\t%s(&d->ready, d->ready%s);\n", name, timeout)
	case strings.HasPrefix(name, "wait_on_bit"):
		store, wake = "\tclear_bit(RW_BUSY, &d->state);\n\tsmp_mb__after_atomic();\n", "\twake_up_bit(&d->state, RW_BUSY);\n"
		sleep = fmt.Sprintf("\t%s(&d->state, RW_BUSY, TASK_UNINTERRUPTIBLE%s);\n", name, timeout)
	case strings.HasPrefix(name, "rcuwait_"):
		qtype, wake = "struct rcuwait", "\trcuwait_wake_up(&d->q);\n"
		sleep = fmt.Sprintf("\t%s(&d->q, d->ready, TASK_UNINTERRUPTIBLE%s);\n", name, timeout)
	case strings.HasPrefix(name, "swait_event"):
		qtype, wake = "struct swait_queue_head", "\tswake_up_one(&d->q);\n"
		sleep = fmt.Sprintf("\t%s(d->q, d->ready%s);\n", name, timeout)
	case strings.Contains(name, "swait"):
		qtype, wake = "struct swait_queue_head", "\tswake_up_one(&d->q);\n"
		sleep = preparedLoop("DECLARE_SWAITQUEUE(w)", name, "finish_swait")
	case strings.HasPrefix(name, "prepare_to_wait"):
		sleep = preparedLoop("DEFINE_WAIT(w)", name, "finish_wait")
	case strings.Contains(name, "add_wait_queue"):
		add := "\t" + name + "(&d->q, &w);\n"
		if strings.HasPrefix(name, "__") {
			add = "\tspin_lock(&d->q.lock);\n" + add + "\tspin_unlock(&d->q.lock);\n"
		}
		sleep = "\tDECLARE_WAITQUEUE(w, current);\n\n" + add +
			"\tfor (;;) {\n\t\tset_current_state(TASK_INTERRUPTIBLE);\n\t\tif (READ_ONCE(d->ready))\n\t\t\tbreak;\n\t\tschedule();\n\t}\n" +
			"\t__set_current_state(TASK_RUNNING);\n\tremove_wait_queue(&d->q, &w);\n"
	case name == "poll_wait":
		sleep = "\tpoll_wait(d->file, &d->q, d->pt);\n\tif (READ_ONCE(d->ready))\n\t\treturn EPOLLIN;\n"
	case strings.HasSuffix(name, "_lock_irq"):
		sleep = fmt.Sprintf("\tspin_lock_irq(&d->lock);\n\t%s(d->q, d->ready, d->lock);\n\tspin_unlock_irq(&d->lock);\n", name)
	case strings.HasSuffix(name, "_locked"):
		sleep = fmt.Sprintf("\tspin_lock(&d->q.lock);\n\t%s(d->q, d->ready);\n\tspin_unlock(&d->q.lock);\n", name)
	default:
		sleep = fmt.Sprintf("\t%s(d->q, d->ready%s);\n", name, timeout)
	}
	head := fmt.Sprintf("struct rw_dev {\n\t%s q;\n\tspinlock_t lock;\n\tint ready;\n\tunsigned long state;\n\tstruct file *file;\n\tpoll_table *pt;\n};\n\n", qtype) +
		"int rw_wait(struct rw_dev *d)\n{\n" + sleep + "\treturn 0;\n}\n\n" +
		"void rw_done(struct rw_dev *d)\n{\n" + store
	return head + wake + "}\n", head + "}\n"
}

// preparedLoop returns an open-coded sleep on d->q: the entry declared
// with decl, queued by prepare in a loop that re-checks d->ready, and
// taken off with finish.
func preparedLoop(decl, prepare, finish string) string {
	return "\t" + decl + ";\n\n\tfor (;;) {\n\t\t" + prepare + "(&d->q, &w, TASK_INTERRUPTIBLE);\n" +
		"\t\tif (READ_ONCE(d->ready))\n\t\t\tbreak;\n\t\tschedule();\n\t}\n\t" + finish + "(&d->q, &w);\n"
}
