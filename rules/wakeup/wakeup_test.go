package wakeup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"

	"github.com/autosel-bot/autosel-bot/report"
)

// want matches findings: every non-empty field must match (Key and Func
// exactly, Message by substring).
type wantFinding struct {
	rule, sev, fn, key, msg string
}

func (w wantFinding) match(f report.Finding) bool {
	return (w.rule == "" || f.Category == w.rule) &&
		(w.sev == "" || string(f.Severity) == w.sev) &&
		(w.fn == "" || f.Func == w.fn) &&
		(w.key == "" || f.Key == w.key) &&
		(w.msg == "" || strings.Contains(f.Message, w.msg))
}

// runWakeupDiff runs the rule over pass, or over diff patch-only when
// pass is nil, and returns the findings in report order.
func runWakeupDiff(t *testing.T, diff string, pass *rules.Pass) []report.Finding {
	t.Helper()
	rule, err := New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if pass == nil {
		pass = rulestest.Pass(t, diff, "", nil)
	}
	return rulestest.RunPass(t, rule, pass)
}

// kernelIndexFor returns the shared Linux 6.1 tree and its index.
func kernelIndexFor(tb testing.TB) (string, *index.Index) {
	tb.Helper()
	return rulestest.Kernel(tb)
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	return readTestdataB(t, name)
}

func readTestdataB(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func dumpFindings(t *testing.T, fs []report.Finding) {
	t.Helper()
	for _, f := range fs {
		t.Logf("  %s %s %s:%d %s() [%s] %s", f.Severity, f.Category, f.File, f.Line, f.Func, f.Key, f.Message)
	}
}

func checkFindings(t *testing.T, fs []report.Finding, wants, nots []wantFinding) {
	t.Helper()
	bad := false
	for _, w := range wants {
		found := false
		for _, f := range fs {
			if w.match(f) {
				found = true
			}
		}
		if !found {
			t.Errorf("missing finding %+v", w)
			bad = true
		}
	}
	for _, w := range nots {
		for _, f := range fs {
			if w.match(f) {
				t.Errorf("unexpected finding %+v: %s %s %s", w, f.Category, f.Func, f.Message)
				bad = true
			}
		}
	}
	if bad || testing.Verbose() {
		dumpFindings(t, fs)
	}
}

const (
	rdWait = "pipe_inode_info.rd_wait"
	wrWait = "pipe_inode_info.wr_wait"
)

// TestWakeupSeeds runs the rule on the seed threads' patches without a
// tree (patch-only mode).
func TestWakeupSeeds(t *testing.T) {
	anyRisk := wantFinding{sev: "risk"}
	tests := []struct {
		name  string
		diff  string
		wants []wantFinding
		nots  []wantFinding
	}{{
		// Seed 000: Linus' exclusive-wait pipe patch as backported by AUTOSEL.
		name: "seed000-autosel",
		diff: "seed000-autosel.diff",
		wants: []wantFinding{
			{rule: CategoryLostWakeup, sev: "risk", fn: "pipe_release", key: rdWait},
			{rule: CategoryLostWakeup, sev: "risk", fn: "pipe_release", key: wrWait},
			{rule: CategoryExclusive, sev: "note", fn: "pipe_read", key: rdWait},
			{rule: CategoryExclusive, sev: "note", fn: "pipe_write", key: wrWait},
			{rule: CategorySplit, sev: "note", key: "pipe_inode_info.wait", msg: "split into pipe_inode_info.rd_wait, pipe_inode_info.wr_wait"},
		},
		nots: []wantFinding{
			// Sync wake-ups stay sync, nothing narrowed.
			{rule: CategoryNarrowed}, {rule: CategorySync},
			// Plain producer wake-ups are not broadcast paths.
			{sev: "risk", fn: "pipe_write", key: rdWait},
			{sev: "risk", fn: "wakeup_pipe_readers"},
			{sev: "risk", fn: "pipe_set_size"},
			{sev: "risk", fn: "wait_for_dump_helpers"},
			{rule: CategoryActive},
		},
	}, {
		// Andrei Vagin's quick fix folded into the patch: the reader side is
		// closed by the chained wake-up, the writer side is not.
		name: "seed000-with-fix",
		diff: "seed000-combined.diff",
		wants: []wantFinding{
			{rule: CategoryLostWakeup, sev: "risk", fn: "pipe_release", key: wrWait},
			{rule: CategoryLostWakeup, sev: "note", fn: "pipe_release", key: rdWait, msg: "passed on by the woken waiter"},
		},
		nots: []wantFinding{{sev: "risk", key: rdWait}},
	}, {
		// The quick fix on its own: it widens a wake-up's condition.
		name: "seed000-fix-alone",
		diff: "seed000-fix.diff",
		nots: []wantFinding{anyRisk, {rule: CategoryRemoved}},
	}, {
		name: "seed003-nonsync",
		diff: "seed003-nonsync.diff",
		wants: []wantFinding{
			{rule: CategorySync, sev: "note", fn: "pipe_read", msg: "no longer sync"},
			{rule: CategorySync, sev: "note", fn: "pipe_write", msg: "no longer sync"},
		},
		nots: []wantFinding{anyRisk, {rule: CategoryNarrowed}, {rule: CategoryRemoved}},
	}, {
		name: "seed004-epoll",
		diff: "seed004-epoll.diff",
		wants: []wantFinding{
			{rule: CategoryWaitEntry, sev: "note", fn: "ep_poll", key: "eventpoll.wq", msg: "wait entry wait now auto-removed on wakeup (init_wait)"},
		},
		nots: []wantFinding{anyRisk},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := runWakeupDiff(t, readTestdata(t, tc.diff), nil)
			checkFindings(t, fs, tc.wants, tc.nots)
		})
	}
}

// TestWakeupSeed000Details checks what the key finding tells a maintainer.
func TestWakeupSeed000Details(t *testing.T) {
	fs := runWakeupDiff(t, readTestdata(t, "seed000-autosel.diff"), nil)
	var lost *report.Finding
	var split *report.Finding
	for i := range fs {
		f := &fs[i]
		if f.Category == CategoryLostWakeup && f.Func == "pipe_release" && f.Key == rdWait {
			lost = f
		}
		if f.Category == CategorySplit {
			split = f
		}
	}
	if lost == nil || split == nil {
		dumpFindings(t, fs)
		t.Fatal("missing lost-wakeup or split finding")
	}
	if lost.File != "fs/pipe.c" || lost.Line != 726 {
		t.Errorf("lost-wakeup at %s:%d, want fs/pipe.c:726", lost.File, lost.Line)
	}
	if len(lost.Old) != 1 || !strings.Contains(lost.Old[0], "wake_up_interruptible_sync_poll(&pipe->wait") {
		t.Errorf("old lines = %q", lost.Old)
	}
	if len(lost.Evidence) == 0 || !strings.Contains(lost.Evidence[0], "wake_up_interruptible_sync_poll(&pipe->rd_wait") {
		t.Errorf("evidence = %q", lost.Evidence)
	}
	var waiter, waker, chain bool
	for _, s := range lost.Chain {
		switch {
		case s.Func == "pipe_read" && s.Line == 400 && strings.Contains(s.What, "exclusively"):
			waiter = true
		case s.Func == "pipe_release" && s.Line == 726:
			waker = true
		case s.Func == "pipe_read" && strings.Contains(s.What, "wake_next_reader"):
			chain = true
		}
	}
	if !waiter || !waker || !chain {
		t.Errorf("chain %+v: waiter=%v waker=%v chained-wake=%v", lost.Chain, waiter, waker, chain)
	}
	for _, s := range []string{"exclusive", "wake_up_interruptible_all", "wake_next_reader"} {
		if !strings.Contains(lost.Explanation, s) {
			t.Errorf("explanation lacks %q: %s", s, lost.Explanation)
		}
	}
	if split.File != "include/linux/pipe_fs_i.h" || split.Func != "struct pipe_inode_info" || split.Line != 50 {
		t.Errorf("split finding at %s:%d %s, want the struct definition", split.File, split.Line, split.Func)
	}
	// Every user of the old queue is listed with where it moved.
	ev := strings.Join(split.Evidence, "\n")
	for _, s := range []string{
		"pipe_read(): waiter wait_event_interruptible -> rd_wait (wait_event_interruptible_exclusive",
		"pipe_write(): waiter wait_event_interruptible -> wr_wait (wait_event_interruptible_exclusive",
		"pipe_poll(): poll poll_wait -> rd_wait (poll_wait, line 665), wr_wait (poll_wait, line 667)",
		"pipe_release(): waker wake_up_interruptible_sync_poll -> rd_wait",
		"wakeup_pipe_readers(): waker wake_up_interruptible -> rd_wait",
		"wakeup_pipe_writers(): waker wake_up_interruptible -> wr_wait",
		"wait_for_dump_helpers(): waiter wait_event_interruptible -> rd_wait",
		"pipe_set_size(): waker wake_up_interruptible_all -> rd_wait",
	} {
		if !strings.Contains(ev, s) {
			t.Errorf("split evidence lacks %q:\n%s", s, ev)
		}
	}
	if strings.Contains(ev, "left behind") || strings.Contains(ev, "still on") {
		t.Errorf("split reports users left behind:\n%s", ev)
	}
}

// TestWakeupPatchOnlyNeedsTree: without a tree, narrowing pipe_release's
// wake-up cannot see pipe_read's exclusive wait: a note that says a tree is
// needed, no risk.
func TestWakeupPatchOnlyNeedsTree(t *testing.T) {
	fs := runWakeupDiff(t, readTestdata(t, "pipe-release-single-6.1.diff"), nil)
	checkFindings(t, fs, []wantFinding{{rule: CategoryNarrowed, sev: "note", fn: "pipe_release"}}, []wantFinding{{sev: "risk"}})
	for _, f := range fs {
		if f.Category == CategoryNarrowed && (!f.NeedsTree || !strings.Contains(f.Explanation, "The bot saw only the patch") || strings.Contains(f.Explanation, "--tree")) {
			t.Errorf("narrowed finding does not say what the bot could not see, or names a flag: %+v", f)
		}
	}
}
