package wakeup

import (
	"strings"
	"testing"
)

// fooBase is a small character driver in kernel style: readers sleep on
// dev->wq until data arrives or the device goes away; writers produce
// data; release tears the device down.
const fooBase = `// SPDX-License-Identifier: GPL-2.0
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
func edit(t *testing.T, src string, pairs ...string) string {
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
	fooKey     = "foo_dev.wq"
	waitPlain  = "ret = wait_event_interruptible(dev->wq, dev->count > 0 || dev->dead);"
	waitExcl   = "ret = wait_event_interruptible_exclusive(dev->wq, dev->count > 0 || dev->dead);"
	relWake    = "\tdev->dead = true;\n\twake_up_interruptible(&dev->wq);"
	relWakeAll = "\tdev->dead = true;\n\twake_up_interruptible_all(&dev->wq);"
)

// TestWakeupNearMisses: correct patches around wake-ups that must not give
// a risk finding.
func TestWakeupNearMisses(t *testing.T) {
	tests := []struct {
		name  string
		edits []string
		// wants are findings that must be there (notes).
		wants []wantFinding
	}{{
		name:  "exclusive readers with wake_up_all on release",
		edits: []string{waitPlain, waitExcl, relWake, relWakeAll},
		wants: []wantFinding{{rule: CategoryExclusive, fn: "foo_read", key: fooKey}, {rule: CategoryWidened, fn: "foo_release"}},
	}, {
		name: "exclusive readers pass the wake-up on unconditionally",
		edits: []string{waitPlain, waitExcl,
			"\tdev->count--;\n\treturn 1;", "\tdev->count--;\n\twake_up_interruptible(&dev->wq);\n\treturn 1;",
			relWake, "\tdev->dead = true;\n\tsmp_wmb();\n\twake_up_interruptible(&dev->wq);"},
		wants: []wantFinding{{rule: CategoryLostWakeup, sev: "note", fn: "foo_release", msg: "passed on"}},
	}, {
		name: "exclusive readers pass the wake-up on when the device is dead",
		edits: []string{waitPlain, waitExcl,
			"\tdev->count--;\n\treturn 1;", "\tdev->count--;\n\tif (dev->dead || dev->count)\n\t\twake_up_interruptible(&dev->wq);\n\treturn 1;",
			relWake, "\tdev->dead = true;\n\tsmp_wmb();\n\twake_up_interruptible(&dev->wq);"},
		wants: []wantFinding{{rule: CategoryLostWakeup, sev: "note", fn: "foo_release", msg: "passed on"}},
	}, {
		name:  "fix direction: release wakes everybody",
		edits: []string{relWake, relWakeAll},
		wants: []wantFinding{{rule: CategoryWidened, fn: "foo_release"}},
	}, {
		name:  "fix direction: exclusive wait dropped",
		edits: []string{waitPlain, "ret = wait_event_killable(dev->wq, dev->count > 0 || dev->dead);"},
	}, {
		name:  "producer wakes one exclusive reader per item",
		edits: []string{waitPlain, waitExcl, "\tdev->count++;\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n\twake_up_interruptible_sync(&dev->wq);"},
		wants: []wantFinding{{rule: CategorySync, fn: "foo_write"}},
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
		edits: []string{"\tint ret;\n\n\tret = " + strings.TrimPrefix(waitPlain, "ret = ") + "\n\tif (ret)\n\t\treturn ret;\n",
			"\tDEFINE_WAIT(wait);\n\tint ret = 0;\n\n\tfor (;;) {\n\t\tprepare_to_wait(&dev->wq, &wait, TASK_INTERRUPTIBLE);\n\t\tif (dev->count > 0 || dev->dead)\n\t\t\tbreak;\n\t\tif (signal_pending(current)) {\n\t\t\tret = -ERESTARTSYS;\n\t\t\tbreak;\n\t\t}\n\t\tschedule();\n\t}\n\tfinish_wait(&dev->wq, &wait);\n\tif (ret)\n\t\treturn ret;\n"},
	}, {
		name: "epoll-style exclusive add with an auto-removing entry",
		edits: []string{"\tint ret;\n\n\tret = " + strings.TrimPrefix(waitPlain, "ret = ") + "\n\tif (ret)\n\t\treturn ret;\n",
			"\twait_queue_entry_t wait;\n\n\tinit_wait(&wait);\n\tspin_lock_irq(&dev->wq.lock);\n\t__add_wait_queue_exclusive(&dev->wq, &wait);\n\tspin_unlock_irq(&dev->wq.lock);\n\tschedule();\n\tif (!list_empty_careful(&wait.entry)) {\n\t\tspin_lock_irq(&dev->wq.lock);\n\t\t__remove_wait_queue(&dev->wq, &wait);\n\t\tspin_unlock_irq(&dev->wq.lock);\n\t}\n"},
	}, {
		name: "single wake-up when an unrelated reference count drops",
		edits: []string{waitPlain, waitExcl,
			"\tdev->count++;\n\twake_up_interruptible(&dev->wq);\n\treturn len;", "\tdev->count++;\n\twake_up_interruptible(&dev->wq);\n\tif (!--dev->writers)\n\t\twake_up(&dev->wq);\n\treturn len;"},
		wants: []wantFinding{{rule: CategoryExclusive, fn: "foo_read"}},
	}, {
		name:  "complete_all narrowed to complete on release is a note",
		edits: []string{"complete_all(&dev->done);", "complete(&dev->done);"},
		wants: []wantFinding{{rule: CategoryNarrowed, sev: "note", fn: "foo_release"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			diff := unifiedDiff("drivers/char/foo.c", fooBase, edit(t, fooBase, tc.edits...))
			fs := runWakeupDiff(t, diff, nil)
			checkFindings(t, fs, tc.wants, []wantFinding{{sev: "risk"}})
		})
	}
}

// TestWakeupPositives: buggy patches each rule must catch.
func TestWakeupPositives(t *testing.T) {
	waitKillable := [2]string{waitPlain, "ret = wait_event_killable(dev->wq, dev->count > 0 || dev->dead);"}
	tests := []struct {
		name string
		// before edits the base (the tree before the patch); edits make
		// the patched version from it.
		before []string
		edits  []string
		wants  []wantFinding
	}{{
		name:  "exclusive readers, single wake-up on release",
		edits: []string{waitPlain, waitExcl, relWake, "\tdev->dead = true;\n\tsmp_wmb();\n\twake_up_interruptible(&dev->wq);"},
		wants: []wantFinding{{rule: CategoryLostWakeup, sev: "risk", fn: "foo_release", key: fooKey}},
	}, {
		name: "chained wake-up that skips the teardown case",
		edits: []string{waitPlain, waitExcl,
			"\tdev->count--;\n\treturn 1;", "\tdev->count--;\n\tif (dev->count)\n\t\twake_up_interruptible(&dev->wq);\n\treturn 1;",
			relWake, "\tdev->dead = true;\n\tsmp_wmb();\n\twake_up_interruptible(&dev->wq);"},
		wants: []wantFinding{{rule: CategoryLostWakeup, sev: "risk", fn: "foo_release", key: fooKey}},
	}, {
		name: "last writer gone: single wake-up on a counter drop",
		edits: []string{waitPlain, "ret = wait_event_interruptible_exclusive(dev->wq, dev->count > 0 || !dev->writers);",
			"\tdev->count++;\n\twake_up_interruptible(&dev->wq);\n\treturn len;", "\tdev->count++;\n\twake_up_interruptible(&dev->wq);\n\tif (!--dev->writers)\n\t\twake_up(&dev->wq);\n\treturn len;"},
		wants: []wantFinding{{rule: CategoryLostWakeup, sev: "risk", fn: "foo_write", key: fooKey, msg: "!--dev->writers"}},
	}, {
		name:  "wait made killable but every waker is interruptible-only",
		edits: []string{waitPlain, "ret = wait_event_killable(dev->wq, dev->count > 0 || dev->dead);", relWake, "\tdev->dead = true;\n\tsmp_wmb();\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n", "\tdev->count += 1;\n"},
		wants: []wantFinding{{rule: CategoryMode, sev: "risk", fn: "foo_read", key: fooKey}},
	}, {
		name: "idle sleepers, wake-ups widened to TASK_NORMAL",
		edits: []string{waitPlain, "ret = wait_event_idle(dev->wq, dev->count > 0 || dev->dead);",
			"\tdev->count++;\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n\twake_up(&dev->wq);",
			relWake, "\tdev->dead = true;\n\twake_up(&dev->wq);"},
		// The base is already broken (idle sleepers, interruptible
		// wake-ups); the patch fixes it: the mode change is a note.
		wants: []wantFinding{{rule: CategoryMode, sev: "note", fn: "foo_write"}},
	}, {
		name: "prepare_to_wait with a return that skips finish_wait",
		edits: []string{"\tint ret;\n\n\tret = " + strings.TrimPrefix(waitPlain, "ret = ") + "\n\tif (ret)\n\t\treturn ret;\n",
			"\tDEFINE_WAIT(wait);\n\n\tfor (;;) {\n\t\tprepare_to_wait(&dev->wq, &wait, TASK_INTERRUPTIBLE);\n\t\tif (dev->count > 0 || dev->dead)\n\t\t\tbreak;\n\t\tif (signal_pending(current))\n\t\t\treturn -ERESTARTSYS;\n\t\tschedule();\n\t}\n\tfinish_wait(&dev->wq, &wait);\n"},
		wants: []wantFinding{{rule: CategoryWaitEntry, sev: "risk", fn: "foo_read", msg: "without finish_wait()"}},
	}, {
		name: "non-auto-removing entry queued exclusively",
		edits: []string{"\tint ret;\n\n\tret = " + strings.TrimPrefix(waitPlain, "ret = ") + "\n\tif (ret)\n\t\treturn ret;\n",
			"\twait_queue_entry_t wait;\n\n\tinit_waitqueue_entry(&wait, current);\n\tspin_lock_irq(&dev->wq.lock);\n\t__add_wait_queue_exclusive(&dev->wq, &wait);\n\tspin_unlock_irq(&dev->wq.lock);\n\tschedule();\n\tspin_lock_irq(&dev->wq.lock);\n\t__remove_wait_queue(&dev->wq, &wait);\n\tspin_unlock_irq(&dev->wq.lock);\n"},
		wants: []wantFinding{{rule: CategoryWaitEntry, sev: "note", fn: "foo_read", msg: "non-auto-removing wait entry wait queued exclusively"}},
	}, {
		name:  "lockless waitqueue_active without a barrier",
		edits: []string{"\tdev->count++;\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n\tif (waitqueue_active(&dev->wq))\n\t\twake_up_interruptible(&dev->wq);"},
		wants: []wantFinding{{rule: CategoryActive, sev: "note", fn: "foo_write", key: fooKey}},
	}, {
		name:  "wake-up removed",
		edits: []string{"\tdev->count++;\n\twake_up_interruptible(&dev->wq);\n", "\tdev->count++;\n"},
		wants: []wantFinding{{rule: CategoryRemoved, sev: "note", fn: "foo_write", key: fooKey}},
	}, {
		name:  "new early return before the wake-up",
		edits: []string{"\tdev->count++;\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n\tif (len > 4096)\n\t\treturn -EINVAL;\n\twake_up_interruptible(&dev->wq);"},
		wants: []wantFinding{{rule: CategoryRemoved, sev: "note", fn: "foo_write", msg: "early return"}},
	}, {
		name:   "interruptible-only wake-up of killable sleepers",
		before: []string{waitKillable[0], waitKillable[1], "\tdev->count++;\n\twake_up_interruptible(&dev->wq);", "\tdev->count++;\n\twake_up(&dev->wq);"},
		edits: []string{waitKillable[1], waitKillable[1] + " ",
			"\tdev->count++;\n\twake_up(&dev->wq);", "\tdev->count++;\n\twake_up_interruptible(&dev->wq);"},
		wants: []wantFinding{{rule: CategoryMode, sev: "risk", fn: "foo_write", key: fooKey, msg: "only interruptible sleepers"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := fooBase
			if len(tc.before) > 0 {
				base = edit(t, base, tc.before...)
			}
			diff := unifiedDiff("drivers/char/foo.c", base, edit(t, base, tc.edits...))
			fs := runWakeupDiff(t, diff, nil)
			checkFindings(t, fs, tc.wants, nil)
		})
	}
}
