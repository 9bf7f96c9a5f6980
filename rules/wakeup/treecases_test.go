package wakeup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

// gitDiff returns "git diff --no-index" of before -> after as a patch of
// path.
func gitDiff(t *testing.T, path string, before, after []byte) string {
	t.Helper()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, before, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, after, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", "a", "b")
	cmd.Dir = dir
	out, err := cmd.Output()
	// Exit status 1 means "differences found".
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("git diff: %v", err)
	}
	s := string(out)
	s = strings.ReplaceAll(s, "a/a", "a/"+path)
	s = strings.ReplaceAll(s, "b/b", "b/"+path)
	return s
}

// TestWakeupTreeSplitLeftBehind: a patch moves ep_poll()'s waits on
// eventpoll.wq to a new queue; the wakers elsewhere in fs/eventpoll.c stay
// on the old one. With the tree the users left behind are listed; when the
// old field still exists (it compiles) it is a risk.
func TestWakeupTreeSplitLeftBehind(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testkernel.Dir(t), "fs/eventpoll.c"))
	if err != nil {
		t.Fatal(err)
	}
	rename := func(s string, keepOld bool) string {
		field := "\twait_queue_head_t wq;\n"
		if keepOld {
			s = strings.Replace(s, field, field+"\twait_queue_head_t rdwq;\n", 1)
		} else {
			s = strings.Replace(s, field, "\twait_queue_head_t rdwq;\n", 1)
		}
		s = strings.Replace(s, "__add_wait_queue_exclusive(&ep->wq, &wait);", "__add_wait_queue_exclusive(&ep->rdwq, &wait);", 1)
		return strings.Replace(s, "__remove_wait_queue(&ep->wq, &wait);", "__remove_wait_queue(&ep->rdwq, &wait);", 1)
	}
	for _, keepOld := range []bool{false, true} {
		name := "field renamed"
		sev := "note"
		if keepOld {
			name, sev = "field added", "risk"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "fs"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "fs/eventpoll.c"), src, 0o644); err != nil {
				t.Fatal(err)
			}
			diff := gitDiff(t, "fs/eventpoll.c", src, []byte(rename(string(src), keepOld)))
			pass := treePass(t, diff, openIndex(t, dir), dir)
			if pass.Change.ApplyError != "" {
				t.Fatal(pass.Change.ApplyError)
			}
			fs := runWakeupDiff(t, "", pass)
			if testing.Verbose() {
				for _, f := range fs {
					t.Logf("%s %s\n%s\n%s", f.Severity, f.Message, strings.Join(f.Evidence, "\n"), f.Explanation)
				}
			}
			checkFindings(t, fs, []wantFinding{{rule: CategorySplit, sev: sev, key: "eventpoll.wq", msg: "renamed to eventpoll.rdwq"}}, nil)
			for _, f := range fs {
				if f.Category != CategorySplit {
					continue
				}
				if keepOld && !strings.Contains(f.Explanation, "those wake-ups are lost") {
					t.Errorf("explanation does not say the wake-ups are lost: %s", f.Explanation)
				}
				ev := strings.Join(f.Evidence, "\n")
				for _, s := range []string{
					"ep_poll(): exclusive waiter __add_wait_queue_exclusive -> rdwq",
					"ep_poll(): removal __remove_wait_queue -> rdwq",
					"ep_poll_callback(): waker wake_up still on wq (tree)",
					"ep_poll_callback(): active check waitqueue_active still on wq (tree)",
				} {
					if !strings.Contains(ev, s) {
						t.Errorf("evidence lacks %q:\n%s", s, ev)
					}
				}
			}
		})
	}
}

// TestWakeupTreeExclusiveIntroduced: a patch makes one waiter of a driver's
// queue exclusive; the single wake-up on the close path is elsewhere in the
// file, outside the patch, and only the tree shows it.
func TestWakeupTreeExclusiveIntroduced(t *testing.T) {
	const path = "drivers/char/pcmcia/cm4000_cs.c"
	src, err := os.ReadFile(filepath.Join(testkernel.Dir(t), path))
	if err != nil {
		t.Fatal(err)
	}
	plain := "wait_event(dev->devq, (link->open == 0));"
	excl := "wait_event_killable_exclusive(dev->devq, (link->open == 0));"
	if !strings.Contains(string(src), plain) {
		t.Fatalf("%s lacks %q", path, plain)
	}
	for _, tc := range []struct {
		name          string
		before, after string
		risk          bool
	}{
		{"made exclusive", plain, excl, true},
		{"exclusive dropped", excl, plain, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := []byte(strings.Replace(string(src), plain, tc.before, 1))
			after := []byte(strings.Replace(string(src), plain, tc.after, 1))
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, path), before, 0o644); err != nil {
				t.Fatal(err)
			}
			pass := treePass(t, gitDiff(t, path, before, after), openIndex(t, dir), dir)
			fs := runWakeupDiff(t, "", pass)
			if !tc.risk {
				checkFindings(t, fs, nil, []wantFinding{{sev: "risk"}})
				return
			}
			checkFindings(t, fs, []wantFinding{
				{rule: CategoryLostWakeup, sev: "risk", fn: "cmm_cm4000_release", key: "cm4000_dev.devq"}, // on the exclusive wait the patch introduced; the waker cmm_close() is in the chain
				{rule: CategoryExclusive, sev: "note", fn: "cmm_cm4000_release", key: "cm4000_dev.devq"},
			}, []wantFinding{{sev: "risk", fn: "terminate_monitor"}})
		})
	}
}
