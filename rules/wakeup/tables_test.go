package wakeup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/rules"

	"github.com/autosel-bot/autosel-bot/diffcheck"
)

// TestWakeupTableExtension: a config table file adds a driver's own waker
// and teardown naming; the rule then finds the lost wake-up through them.
func TestWakeupTableExtension(t *testing.T) {
	dir := t.TempDir()
	extra := filepath.Join(dir, "wakeup.yaml")
	if err := os.WriteFile(extra, []byte(`wakeup:
  wakers:
    - {name: foo_kick, queue: 0, breadth: one, mode: normal}
  broadcast:
    funcs: ['_gone$']
`), 0o644); err != nil {
		t.Fatal(err)
	}
	before := fooBase + `
static void foo_gone(struct foo_dev *dev)
{
	dev->dead = true;
	wake_up_all(&dev->wq);
}
`
	after := strings.Replace(strings.Replace(before, "wake_up_all(&dev->wq);", "foo_kick(&dev->wq);", 1), waitPlain, waitExcl, 1)
	diff := unifiedDiff("drivers/char/foo.c", before, after)

	rule, err := New(rules.Options{TableFiles: []string{extra}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := diffcheck.Parse(diff)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := rules.NewPass(cs, nil, rules.Options{}, 1).Run(rule)
	if err != nil {
		t.Fatal(err)
	}
	checkFindings(t, fs, []wantFinding{{rule: CategoryLostWakeup, sev: "risk", fn: "foo_gone", key: fooKey}}, nil)

	// Without the extension foo_kick is unknown: the wake-up looks removed.
	fs = runWakeupDiff(t, diff, nil)
	checkFindings(t, fs, []wantFinding{{rule: CategoryRemoved, fn: "foo_gone"}}, []wantFinding{{sev: "risk"}})
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
