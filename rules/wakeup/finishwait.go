package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// finish_wait (rule 4): a wait entry queued by prepare_to_wait*() or, on
// the stack, add_wait_queue*() that some path to a return leaves queued.

// checkFinishWait reports a wait entry queued by prepare_to_wait*() (or,
// when the entry is the function's own, add_wait_queue*()) that is not
// removed on some path to a return (rule 4): the path is followed
// through goto labels (exits.go), not by source order alone.
func (r *checker) checkFinishWait(old, nw *wfunc) {
	if nw.F == nil || nw.F.Body == nil {
		return
	}
	fl := flowOf(nw)
	for _, p := range nw.Sites {
		if p.Kind != siteWait || p.WKind != "add" || p.Entry == "" {
			continue
		}
		prepare := strings.HasPrefix(p.Call.Name, "prepare_to_")
		if !prepare && !localEntry(nw, p.Entry) {
			continue // an entry that outlives the function is removed elsewhere
		}
		// The patch removed a removal of this entry.
		removedRemoval := false
		if old != nil {
			for _, s := range old.Sites {
				if s.Kind == siteRemove && s.Entry == p.Entry && s.Changed() {
					removedRemoval = true
				}
			}
		}
		var removals []int
		for _, s := range nw.Sites {
			if s.Kind == siteRemove && s.Entry == p.Entry && s.Line() > p.Line() {
				removals = append(removals, s.Line())
			}
		}
		for _, e := range fl.jumps {
			if !e.ret || e.line <= p.Line() {
				continue
			}
			ok, via := fl.passes(removals, p.Line(), e)
			if ok || (!p.Changed() && !nw.changed(e.line) && !nw.changed(via) && !removedRemoval) {
				continue
			}
			r.reportFinishWait(nw, p, e.line, prepare)
			break
		}
	}
}

// localEntryRe matches the declaration of a wait entry on the stack.
var localEntryRe = regexp.MustCompile(`\b(?:DECLARE_WAITQUEUE|DEFINE_WAIT|DEFINE_WAIT_FUNC|DEFINE_WAIT_BIT)\s*\(\s*(\w+)|\b(?:wait_queue_entry_t|struct\s+wait_queue_entry)\s+(\w+)\s*[;=]`)

// localEntry reports whether f declares the wait entry itself (on its
// stack): it must be off the queue before f returns.
func localEntry(f *wfunc, entry string) bool {
	for _, t := range f.lines {
		for _, m := range localEntryRe.FindAllStringSubmatch(t, -1) {
			if m[1] == entry || m[2] == entry {
				return true
			}
		}
	}
	return false
}

// reportFinishWait reports the exit at line that leaves p's entry queued.
func (r *checker) reportFinishWait(nw *wfunc, p *wsite, line int, prepare bool) {
	sev := report.SeverityRisk
	if nw.Partial {
		sev = report.SeverityNote
	}
	remove, what := "finish_wait", "queues %s and sets the task state"
	if !prepare {
		remove, what = "remove_wait_queue", "queues the on-stack entry %s"
	}
	r.add(report.Finding{
		Category: CategoryWaitEntry,
		Severity: sev,
		File:     nw.File, Func: nw.Name, Line: line, Key: p.Q,
		Message: fmt.Sprintf("%s() can leave after %s without %s() on %s", nw.Name, p.Call.Name, remove, p.Entry),
		Explanation: fmt.Sprintf("%s "+what+"; the path leaving at line %d does not remove the entry, "+
			"so a stack entry stays on %s after the function returns (use-after-return on the next wake-up), and the task may return in a sleeping state. Call %s(%s, &%s) on that path.",
			p.Call.Name, p.Entry, line, p.Q, remove, p.Arg, p.Entry),
		Evidence: append([]string{nw.evidence(p.Line()), nw.evidence(line)}, interleaving(nw.Name+"()", "a waker of "+p.Q, [][2]string{
			{strings.TrimSpace(nw.text(p.Line())), ""},
			{"leaves on the path to line " + fmt.Sprint(line), ""},
			{"returns: " + p.Entry + " still queued", ""},
			{"", "wake_up(" + p.Arg + "): walks the entry"},
			{"", "  on the dead stack frame"},
		})...),
	})
}
