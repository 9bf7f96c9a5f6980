package wakeup

import (
	"sort"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/rules"
)

// TestWakeupTreeSurvey is a precision check on real code: over the whole
// Linux 6.1 tree it asks, for every queue with exclusive waiters, which
// wakers the lost-wakeup rule would flag if the exclusive waits were new.
// Released kernels are mostly right, so the answer must be short, and it
// must contain the one known-suspicious site: fifo_open()'s single
// wake-up of pipe->wr_wait when the last reader's open is interrupted
// (its twin for rd_wait already uses wake_up_interruptible_all()).
func TestWakeupTreeSurvey(t *testing.T) {
	if testing.Short() {
		t.Skip("whole-tree survey skipped in -short mode")
	}
	r := treeChecker(t)
	p, idx := r.p, r.pass.Index
	keys := map[string]bool{}
	// Every primitive call of the tree (primSites may read them by
	// identifier from a store that Prepare wrote).
	for _, c := range idx.CallsTo(p.isPrimitive) {
		for _, s := range r.tree.view(c.Func).Sites {
			if s.Line() == c.Call.Line && isQueueWait(s) && s.Exclusive && !strings.HasPrefix(s.Q, "local:") {
				keys[s.Q] = true
			}
		}
	}
	var flagged []string
	for q := range keys {
		var excl []*wsite
		sites := r.tree.sitesOn(q)
		for _, s := range sites {
			if isQueueWait(s) && s.Exclusive {
				excl = append(excl, s)
			}
		}
		for _, w := range sites {
			if b, ex := r.lostCandidate(q, w, excl); b != nil {
				n := len(r.pass.Findings())
				r.reportLost(q, w, b, ex, false, nil)
				if fs := r.pass.Findings(); len(fs) > n && fs[n].Severity == "risk" {
					flagged = append(flagged, w.Fn.File+":"+w.Fn.Name+":"+q)
				}
			}
		}
	}
	sort.Strings(flagged)
	t.Logf("%d queues with exclusive waiters; flagged: %q", len(keys), flagged)
	if len(keys) < 20 {
		t.Errorf("only %d queues with exclusive waiters found: the tree scan is broken", len(keys))
	}
	if !contains(flagged, "fs/pipe.c:fifo_open:pipe_inode_info.wr_wait") {
		t.Errorf("fifo_open's single wr_wait wake-up not flagged")
	}
	if len(flagged) > 3 {
		t.Errorf("%d risk findings on released code, want at most 3: %q", len(flagged), flagged)
	}
}

// treeChecker returns a checker of no patch over the kernel tree's index
// (without struct typing), for tests that ask the tree view directly.
func treeChecker(t *testing.T) *checker {
	t.Helper()
	_, idx := kernelIndexFor(t)
	r := &checker{p: defaultPrims(t), pass: rules.NewPass(&diffcheck.ChangeSet{}, idx, rules.Options{}, 0),
		inPatch: map[string]bool{}, fileVT: map[string]*varTypes{}, patchVT: newVarTypes(),
		maps: map[string]*fileLineMap{}, renames: map[string][]string{},
		structRenames: map[string][]string{}, structWhere: map[string]*structLoc{}, canon: map[string]string{}}
	r.tree = newTreeView(r)
	return r
}
