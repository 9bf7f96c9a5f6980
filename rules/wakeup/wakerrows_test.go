package wakeup

import (
	"fmt"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"
)

// TestEveryWakerRow checks, end to end, the wake-ups a patch breaks, for
// every waker row of the built-in table, each with a sleeper of its own
// API family: a wait queue's wait_event(), a completion's
// wait_for_completion(), an swait queue's swait_event*(), wait_var_event(),
// wait_on_bit() and rcuwait_wait_event(). A function publishes the
// sleeper's condition and wakes it (under the queue's lock for the
// _locked forms); the patch drops the wake-up, moves it before the store
// or puts it under an unrelated test (wakerMutations). Each must be a
// risk of its category, whichever family the protocol is written with.
func TestEveryWakerRow(t *testing.T) {
	tb, rule := tablesAndRule(t)
	for _, w := range tb.Wakers {
		if w.Name == "" {
			continue
		}
		for _, m := range wakerMutations {
			if m.skip != nil && m.skip(w) {
				continue
			}
			t.Run(w.Name+"/"+m.name, func(t *testing.T) {
				pre, post := wakerSources(w, m.name)
				fs := rulestest.RunGenerated(t, rule, "drivers/misc/rowcheck.c", pre, post)
				for _, f := range fs {
					if f.Severity == report.SeverityRisk && f.Category == m.category && f.Func == "rw_done" {
						return
					}
				}
				t.Errorf("%s %s: no %s risk in rw_done; findings:\n%s\nsource:\n%s", w.Name, m.name, m.category, describeFindings(fs), pre)
			})
		}
	}
}

// wakerMutations are the changes TestEveryWakerRow makes to a waker, with
// the category each must be reported as; skip leaves out the rows where
// the change is no bug.
var wakerMutations = []struct {
	name, category string
	skip           func(wakerRow) bool
}{
	// The wake-up is dropped.
	{name: "removed", category: CategoryRemoved},
	// The wake-up comes before the store its sleeper waits for; a
	// wake-up that makes the condition true itself (complete()), or one
	// under the queue's lock that the sleeper takes to re-check, orders
	// nothing wrong.
	{name: "before-store", category: CategoryStateOrder, skip: func(w wakerRow) bool { return w.Stores || w.Locked }},
	// The wake-up is made only when an unrelated flag is set.
	{name: "gated", category: CategoryRemoved},
}

// wakerSources returns a file whose rw_done() wakes, with w, the sleeper
// of rw_wait(), before and after the patch making mutation (see
// wakerMutations).
func wakerSources(w wakerRow, mutation string) (pre, post string) {
	qtype, wait, queue := "wait_queue_head_t", "wait_event_interruptible(d->q, d->ready)", "&d->q"
	switch {
	case w.Kind == "completion":
		qtype, wait = "struct completion", "wait_for_completion(&d->q)"
	case w.Kind == "var":
		wait, queue = "wait_var_event(&d->ready, d->ready)", "&d->ready"
	case w.Kind == "bit":
		wait, queue = "wait_on_bit(&d->state, RW_BUSY, TASK_UNINTERRUPTIBLE)", "&d->state"
	case strings.HasPrefix(w.Name, "swake_"):
		qtype, wait = "struct swait_queue_head", "swait_event_interruptible_exclusive(d->q, d->ready)"
	case strings.HasPrefix(w.Name, "rcuwait_"):
		qtype, wait = "struct rcuwait", "rcuwait_wait_event(&d->q, d->ready, TASK_UNINTERRUPTIBLE)"
	}
	n := w.Queue + 1
	if w.Kind == "bit" {
		n = 2 // the word and the bit
	}
	for _, p := range []*int{w.NrArg, w.ModeArg, w.Key} {
		if p != nil {
			n = max(n, *p+1)
		}
	}
	args := make([]string, n)
	for i := range args {
		args[i] = "0"
	}
	args[w.Queue] = queue
	if w.Kind == "bit" {
		// The bit: next to the word, before or after it.
		args[1-w.Queue] = "RW_BUSY"
	}
	if w.ModeArg != nil {
		args[*w.ModeArg] = "TASK_NORMAL"
	}
	if w.NrArg != nil {
		args[*w.NrArg] = "1"
	}
	if w.Key != nil {
		args[*w.Key] = "poll_to_key(EPOLLIN)"
	}
	wake := fmt.Sprintf("\t%s(%s);\n", w.Name, strings.Join(args, ", "))
	lock, unlock := "", ""
	if w.Locked {
		lock, unlock = "\tspin_lock(&d->q.lock);\n", "\tspin_unlock(&d->q.lock);\n"
	}
	head := fmt.Sprintf("struct rw_dev {\n\t%s q;\n\tint ready;\n\tunsigned long state;\n\tbool verbose;\n};\n\n", qtype) +
		fmt.Sprintf("int rw_wait(struct rw_dev *d)\n{\n\t%s;\n\treturn d->ready;\n}\n\n", wait) +
		"void rw_done(struct rw_dev *d)\n{\n" + lock
	store := "\tWRITE_ONCE(d->ready, 1);\n"
	if w.Kind == "bit" && !w.Stores {
		// A bit's sleeper waits for the bit to clear.
		store = "\tclear_bit(RW_BUSY, &d->state);\n\tsmp_mb__after_atomic();\n"
	}
	tail := unlock + "}\n"
	pre = head + store + wake + tail
	switch mutation {
	case "before-store":
		return pre, head + wake + store + tail
	case "gated":
		return pre, head + store + "\tif (d->verbose)\n\t" + wake + tail
	}
	return pre, head + store + tail
}

// describeFindings renders findings for failure messages.
func describeFindings(fs []report.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %s %s: %s\n", f.Severity, f.Category, f.Func, f.Message)
	}
	return b.String()
}

// tablesAndRule loads the built-in wakeup tables and builds the rule on
// them, for the tests generated from the table's rows.
func tablesAndRule(t *testing.T) (tables, *rules.Rule) {
	t.Helper()
	var tb tables
	if err := rules.LoadTables("wakeup", nil, &tb); err != nil {
		t.Fatal(err)
	}
	rule, err := New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tb, rule
}
