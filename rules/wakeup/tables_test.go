package wakeup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"
)

// fooKickPatch makes foo_read()'s wait exclusive and replaces
// foo_gone()'s wake_up_all() with the driver's own foo_kick(), in a small
// character driver (the whole file as context): readers sleep on dev->wq
// until data arrives or the device goes away.
const fooKickPatch = `diff --git a/drivers/char/foo.c b/drivers/char/foo.c
index 1111111..2222222 100644
--- a/drivers/char/foo.c
+++ b/drivers/char/foo.c
@@ -1,48 +1,48 @@
 // SPDX-License-Identifier: GPL-2.0
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
 
+	ret = wait_event_interruptible_exclusive(dev->wq, dev->count > 0 || dev->dead);
-	ret = wait_event_interruptible(dev->wq, dev->count > 0 || dev->dead);
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
 
 static void foo_gone(struct foo_dev *dev)
 {
 	dev->dead = true;
+	foo_kick(&dev->wq);
-	wake_up_all(&dev->wq);
 }
`

// TestWakeupTableExtension: a config table file adds a driver's own waker
// and teardown naming; the rule then finds the lost wake-up through them.
func TestWakeupTableExtension(t *testing.T) {
	extra := filepath.Join(t.TempDir(), "wakeup.yaml")
	if err := os.WriteFile(extra, []byte(`wakeup:
  wakers:
    - {name: foo_kick, queue: 0, breadth: one, mode: normal}
  broadcast:
    funcs: ['_gone$']
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		files []string
		want  func(report.Finding) bool // some finding must match
		not   func(report.Finding) bool // no finding may match
	}{
		{[]string{extra}, func(f report.Finding) bool {
			return f.Category == CategoryLostWakeup && f.Severity == report.SeverityRisk && f.Func == "foo_gone" && f.Key == "foo_dev.wq"
		}, nil},
		// Without the extension foo_kick is unknown: the wake-up looks removed.
		{nil, func(f report.Finding) bool {
			return f.Category == CategoryRemoved && f.Func == "foo_gone"
		}, func(f report.Finding) bool { return f.Severity == report.SeverityRisk }},
	} {
		r, err := New(rules.Options{TableFiles: tc.files})
		if err != nil {
			t.Fatal(err)
		}
		fs, _ := rulestest.Run(t, r, fooKickPatch, "", nil)
		found := false
		for _, f := range fs {
			found = found || tc.want(f)
			if tc.not != nil && tc.not(f) {
				t.Errorf("tables %v: unexpected finding %s %s() [%s] %s", tc.files, f.Category, f.Func, f.Severity, f.Message)
			}
		}
		if !found {
			t.Errorf("tables %v: missing finding", tc.files)
		}
		if !found || t.Failed() || testing.Verbose() {
			for _, f := range fs {
				t.Logf("  %s %s %s:%d %s() [%s] %s", f.Severity, f.Category, f.File, f.Line, f.Func, f.Key, f.Message)
			}
		}
	}
}

func TestWakeupTableErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, yaml, want string }{
		{"bad-regexp", "wakeup:\n  waiters:\n    - {match: '([', queue: 0, kind: wait}\n", "waiter"},
		{"bad-breadth", "wakeup:\n  wakers:\n    - {name: w, queue: 0, breadth: some}\n", "breadth"},
		{"no-name", "wakeup:\n  wakers:\n    - {queue: 0, breadth: one}\n", "neither name nor match"},
		{"malformed", "wakeup: [\n", "malformed.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name+".yaml")
			if err := os.WriteFile(p, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := New(rules.Options{TableFiles: []string{p}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
}

// TestLockedWakerTable: every _locked waker of the built-in table names
// a waker that takes the queue lock itself, and a table whose locked row
// names nothing, or another locked row, is refused.
func TestLockedWakerTable(t *testing.T) {
	if _, err := New(rules.Options{}); err != nil {
		t.Fatalf("built-in table: %v", err)
	}
	for _, row := range []string{
		`{name: foo_wake_locked, queue: 0, breadth: one, mode: normal, locked: true}`,
		`{name: foo_wake_locked, queue: 0, breadth: one, mode: normal, locked: true, unlocked: wake_up_locked}`,
		`{name: foo_wake, queue: 0, breadth: one, mode: normal, unlocked: wake_up}`,
	} {
		extra := filepath.Join(t.TempDir(), "wakeup.yaml")
		if err := os.WriteFile(extra, []byte("wakeup:\n  wakers:\n    - "+row+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := New(rules.Options{TableFiles: []string{extra}}); err == nil || !strings.Contains(err.Error(), "foo_wake") {
			t.Errorf("%s: err %v", row, err)
		}
	}
}
