package rules

import (
	"strings"
	"testing"
)

// fooBase is a small character driver in kernel style: readers sleep on
// dev->wq until data arrives or the device goes away; writers produce
// data; release tears the device down.
const wkFooBase = `// SPDX-License-Identifier: GPL-2.0
#include <linux/fs.h>
#include <linux/wait.h>

struct foo_dev {
	wait_queue_head_t wq;
	int count;
	int writers;
	bool dead;
	struct completion done;
};

static ssize_t foo_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct foo_dev *dev = file->private_data;
	int ret;

	ret = wait_event_interruptible(dev->wq, dev->count > 0 || dev->dead);
	if (ret)
		return ret;
	dev->count--;
	return 1;
}

static ssize_t foo_write(struct file *file, const char __user *buf, size_t len, loff_t *ppos)
{
	struct foo_dev *dev = file->private_data;

	dev->count++;
	wake_up_interruptible(&dev->wq);
	return len;
}

static int foo_release(struct inode *inode, struct file *file)
{
	struct foo_dev *dev = file->private_data;

	dev->dead = true;
	wake_up_interruptible(&dev->wq);
	complete_all(&dev->done);
	return 0;
}
`

// edit applies old->new replacements to fooBase, failing on a miss.
func wkEdit(t *testing.T, src string, pairs ...string) string {
	t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(src, pairs[i]) {
			t.Fatalf("fixture edit: %q not found", pairs[i])
		}
		src = strings.Replace(src, pairs[i], pairs[i+1], 1)
	}
	return src
}

const (
	wkFooKey     = "foo_dev.wq"
	wkWaitPlain  = "ret = wait_event_interruptible(dev->wq, dev->count > 0 || dev->dead);"
	wkWaitExcl   = "ret = wait_event_interruptible_exclusive(dev->wq, dev->count > 0 || dev->dead);"
	wkRelWake    = "\tdev->dead = true;\n\twake_up_interruptible(&dev->wq);"
	wkRelWakeAll = "\tdev->dead = true;\n\twake_up_interruptible_all(&dev->wq);"
)

// TestWakeupNearMisses: correct patches around wake-ups that must not give
// a risk finding.
func TestWakeupNearMisses(t *testing.T) {
	tests := []struct {
		name  string
		edits []string
		// wants are findings that must be there (notes).
		wants []wkWant
	}{{
		name:  "exclusive readers with wake_up_all on release",
		edits: []string{wkWaitPlain, wkWaitExcl, wkRelWake, wkRelWakeAll},
		wants: []wkWant{{rule: RuleWakeupExclusive, fn: "foo_read", key: wkFooKey}, {rule: RuleWakeupWidened, fn: "foo_release"}},
	}, {
		name: "exclusive readers pass the wake-up on unconditionally",
		edits: []string{wkWaitPlain, wkWaitExcl,
			"\tdev->count--;\n\treturn 1;", "\tdev->count--;\n\twake_up_interruptible(&dev->wq);\n\treturn 1;",
			wkRelWake, "\tdev->dead = true;\n\tsmp_wmb();\n\twake_up_interruptible(&dev->wq);"},
		wants: []wkWant{{rule: RuleLostWakeup, sev: "note", fn: "foo_release", msg: "passed on"}},
	}, {
		name: "exclusive readers pass the wake-up on when the device is dead",
		edits: []string{wkWaitPlain, wkWaitExcl,
			"\tdev->count--;\n\treturn 1;", "\tdev->count--;\n\tif (dev->dead || dev->count)\n\t\twake_up_interruptible(&dev->wq);\n\treturn 1;",
			wkRelWake, "\tdev->dead = true;\n\tsmp_wmb();\n\twake_up_interruptible(&dev->wq);"},
		wants: []wkWant{{rule: RuleLostWakeup, sev: "note", fn: "foo_release", msg: "passed on"}},
	}, {
		name:  "fix direction: release wakes everybody",
		edits: []string{wkRelWake, wkRelWakeAll},
		wants: []wkWant{{rule: RuleWakeupWidened, fn: "foo_release"}},
	}, {
		name:  "fix direction: exclusive wait dropped",
		edits: []string{wkWaitPlain, "ret = wait_event_killable(dev->wq, dev->count > 0 || dev->dead);"},
	}, {
		name:  "producer wakes one exclusive reader per item",
		edits: []string{wkWaitPlain, wkWaitExcl, "\tdev->count++;\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n\twake_up_interruptible_sync(&dev->wq);"},
		wants: []wkWant{{rule: RuleWakeupSync, fn: "foo_write"}},
	}, {
		name:  "wake-up added on release",
		edits: []string{"\tcomplete_all(&dev->done);\n", "\tcomplete_all(&dev->done);\n\twake_up_all(&dev->wq);\n"},
	}, {
		name:  "waitqueue_active with a barrier",
		edits: []string{"\tdev->count++;\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n\tsmp_mb();\n\tif (waitqueue_active(&dev->wq))\n\t\twake_up_interruptible(&dev->wq);"},
	}, {
		name:  "wq_has_sleeper has its barrier",
		edits: []string{"\tdev->count++;\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n\tif (wq_has_sleeper(&dev->wq))\n\t\twake_up_interruptible(&dev->wq);"},
	}, {
		name: "open-coded wait with finish_wait on every path",
		edits: []string{"\tint ret;\n\n\tret = " + strings.TrimPrefix(wkWaitPlain, "ret = ") + "\n\tif (ret)\n\t\treturn ret;\n",
			"\tDEFINE_WAIT(wait);\n\tint ret = 0;\n\n\tfor (;;) {\n\t\tprepare_to_wait(&dev->wq, &wait, TASK_INTERRUPTIBLE);\n\t\tif (dev->count > 0 || dev->dead)\n\t\t\tbreak;\n\t\tif (signal_pending(current)) {\n\t\t\tret = -ERESTARTSYS;\n\t\t\tbreak;\n\t\t}\n\t\tschedule();\n\t}\n\tfinish_wait(&dev->wq, &wait);\n\tif (ret)\n\t\treturn ret;\n"},
	}, {
		name: "epoll-style exclusive add with an auto-removing entry",
		edits: []string{"\tint ret;\n\n\tret = " + strings.TrimPrefix(wkWaitPlain, "ret = ") + "\n\tif (ret)\n\t\treturn ret;\n",
			"\twait_queue_entry_t wait;\n\n\tinit_wait(&wait);\n\tspin_lock_irq(&dev->wq.lock);\n\t__add_wait_queue_exclusive(&dev->wq, &wait);\n\tspin_unlock_irq(&dev->wq.lock);\n\tschedule();\n\tif (!list_empty_careful(&wait.entry)) {\n\t\tspin_lock_irq(&dev->wq.lock);\n\t\t__remove_wait_queue(&dev->wq, &wait);\n\t\tspin_unlock_irq(&dev->wq.lock);\n\t}\n"},
	}, {
		name: "single wake-up when an unrelated reference count drops",
		edits: []string{wkWaitPlain, wkWaitExcl,
			"\tdev->count++;\n\twake_up_interruptible(&dev->wq);\n\treturn len;", "\tdev->count++;\n\twake_up_interruptible(&dev->wq);\n\tif (!--dev->writers)\n\t\twake_up(&dev->wq);\n\treturn len;"},
		wants: []wkWant{{rule: RuleWakeupExclusive, fn: "foo_read"}},
	}, {
		name:  "complete_all narrowed to complete on release is a note",
		edits: []string{"complete_all(&dev->done);", "complete(&dev->done);"},
		wants: []wkWant{{rule: RuleWakeupNarrowed, sev: "note", fn: "foo_release"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			diff := wkUnifiedDiff("drivers/char/foo.c", wkFooBase, wkEdit(t, wkFooBase, tc.edits...))
			fs := runWakeupDiff(t, diff, nil)
			wkCheckFindings(t, fs, tc.wants, []wkWant{{sev: "risk"}})
		})
	}
}

// TestWakeupPositives: buggy patches each rule must catch.
func TestWakeupPositives(t *testing.T) {
	waitKillable := [2]string{wkWaitPlain, "ret = wait_event_killable(dev->wq, dev->count > 0 || dev->dead);"}
	tests := []struct {
		name string
		// before edits the base (the tree before the patch); edits make
		// the patched version from it.
		before []string
		edits  []string
		wants  []wkWant
	}{{
		name:  "exclusive readers, single wake-up on release",
		edits: []string{wkWaitPlain, wkWaitExcl, wkRelWake, "\tdev->dead = true;\n\tsmp_wmb();\n\twake_up_interruptible(&dev->wq);"},
		wants: []wkWant{{rule: RuleLostWakeup, sev: "risk", fn: "foo_release", key: wkFooKey}},
	}, {
		name: "chained wake-up that skips the teardown case",
		edits: []string{wkWaitPlain, wkWaitExcl,
			"\tdev->count--;\n\treturn 1;", "\tdev->count--;\n\tif (dev->count)\n\t\twake_up_interruptible(&dev->wq);\n\treturn 1;",
			wkRelWake, "\tdev->dead = true;\n\tsmp_wmb();\n\twake_up_interruptible(&dev->wq);"},
		wants: []wkWant{{rule: RuleLostWakeup, sev: "risk", fn: "foo_release", key: wkFooKey}},
	}, {
		name: "last writer gone: single wake-up on a counter drop",
		edits: []string{wkWaitPlain, "ret = wait_event_interruptible_exclusive(dev->wq, dev->count > 0 || !dev->writers);",
			"\tdev->count++;\n\twake_up_interruptible(&dev->wq);\n\treturn len;", "\tdev->count++;\n\twake_up_interruptible(&dev->wq);\n\tif (!--dev->writers)\n\t\twake_up(&dev->wq);\n\treturn len;"},
		wants: []wkWant{{rule: RuleLostWakeup, sev: "risk", fn: "foo_write", key: wkFooKey, msg: "!--dev->writers"}},
	}, {
		name:  "wait made killable but every waker is interruptible-only",
		edits: []string{wkWaitPlain, "ret = wait_event_killable(dev->wq, dev->count > 0 || dev->dead);", wkRelWake, "\tdev->dead = true;\n\tsmp_wmb();\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n", "\tdev->count += 1;\n"},
		wants: []wkWant{{rule: RuleWakeupMode, sev: "risk", fn: "foo_read", key: wkFooKey}},
	}, {
		name: "idle sleepers, wake-ups widened to TASK_NORMAL",
		edits: []string{wkWaitPlain, "ret = wait_event_idle(dev->wq, dev->count > 0 || dev->dead);",
			"\tdev->count++;\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n\twake_up(&dev->wq);",
			wkRelWake, "\tdev->dead = true;\n\twake_up(&dev->wq);"},
		// The base is already broken (idle sleepers, interruptible
		// wake-ups); the patch fixes it: the mode change is a note.
		wants: []wkWant{{rule: RuleWakeupMode, sev: "note", fn: "foo_write"}},
	}, {
		name: "prepare_to_wait with a return that skips finish_wait",
		edits: []string{"\tint ret;\n\n\tret = " + strings.TrimPrefix(wkWaitPlain, "ret = ") + "\n\tif (ret)\n\t\treturn ret;\n",
			"\tDEFINE_WAIT(wait);\n\n\tfor (;;) {\n\t\tprepare_to_wait(&dev->wq, &wait, TASK_INTERRUPTIBLE);\n\t\tif (dev->count > 0 || dev->dead)\n\t\t\tbreak;\n\t\tif (signal_pending(current))\n\t\t\treturn -ERESTARTSYS;\n\t\tschedule();\n\t}\n\tfinish_wait(&dev->wq, &wait);\n"},
		wants: []wkWant{{rule: RuleWaitEntry, sev: "risk", fn: "foo_read", msg: "without finish_wait()"}},
	}, {
		name: "non-auto-removing entry queued exclusively",
		edits: []string{"\tint ret;\n\n\tret = " + strings.TrimPrefix(wkWaitPlain, "ret = ") + "\n\tif (ret)\n\t\treturn ret;\n",
			"\twait_queue_entry_t wait;\n\n\tinit_waitqueue_entry(&wait, current);\n\tspin_lock_irq(&dev->wq.lock);\n\t__add_wait_queue_exclusive(&dev->wq, &wait);\n\tspin_unlock_irq(&dev->wq.lock);\n\tschedule();\n\tspin_lock_irq(&dev->wq.lock);\n\t__remove_wait_queue(&dev->wq, &wait);\n\tspin_unlock_irq(&dev->wq.lock);\n"},
		wants: []wkWant{{rule: RuleWaitEntry, sev: "note", fn: "foo_read", msg: "non-auto-removing wait entry wait queued exclusively"}},
	}, {
		name:  "lockless waitqueue_active without a barrier",
		edits: []string{"\tdev->count++;\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n\tif (waitqueue_active(&dev->wq))\n\t\twake_up_interruptible(&dev->wq);"},
		wants: []wkWant{{rule: RuleWaitqueueActive, sev: "note", fn: "foo_write", key: wkFooKey}},
	}, {
		name:  "wake-up removed",
		edits: []string{"\tdev->count++;\n\twake_up_interruptible(&dev->wq);\n", "\tdev->count++;\n"},
		wants: []wkWant{{rule: RuleWakeupRemoved, sev: "note", fn: "foo_write", key: wkFooKey}},
	}, {
		name:  "new early return before the wake-up",
		edits: []string{"\tdev->count++;\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n\tif (len > 4096)\n\t\treturn -EINVAL;\n\twake_up_interruptible(&dev->wq);"},
		wants: []wkWant{{rule: RuleWakeupRemoved, sev: "note", fn: "foo_write", msg: "early return"}},
	}, {
		name:   "interruptible-only wake-up of killable sleepers",
		before: []string{waitKillable[0], waitKillable[1], "\tdev->count++;\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n\twake_up(&dev->wq);"},
		edits: []string{waitKillable[1], waitKillable[1] + " ",
			"\tdev->count++;\n\twake_up(&dev->wq);", "\tdev->count++;\n\twake_up_interruptible(&dev->wq);"},
		wants: []wkWant{{rule: RuleWakeupMode, sev: "risk", fn: "foo_write", key: wkFooKey, msg: "only interruptible sleepers"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := wkFooBase
			if len(tc.before) > 0 {
				base = wkEdit(t, base, tc.before...)
			}
			diff := wkUnifiedDiff("drivers/char/foo.c", base, wkEdit(t, base, tc.edits...))
			fs := runWakeupDiff(t, diff, nil)
			wkCheckFindings(t, fs, tc.wants, nil)
		})
	}
}
