package wakeup

import (
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// A lockless sleeper check after the waker's critical section.
//
// A waker that stores the condition under a lock, releases it and only
// then tests for sleepers without a barrier ("mutex_unlock(&monc->mutex);
// if (waitqueue_active(&wq)) wake_up_all(&wq);") is still ordered against
// a sleeper that queues itself first and then takes the same lock to test
// the condition before it sleeps: the lock's sections run one after the
// other. If the sleeper's comes first, its queued entry happens before its
// unlock, which happens before the waker's lock, so the waker's later
// test sees it; if the waker's comes first, the sleeper's test sees the
// store. It holds only when the unlock runs whenever the check does, and
// nothing between them may store: no store, no assignment to anything but
// a local, and no call but a lock primitive or a log line.

// orderedBySectionBefore returns the lock f releases before its lockless
// check (a call on the path of check, which f holds no more there) with
// nothing that may store between the release and the check, when every
// one of waiters takes it to test its condition after queueing itself;
// "" if none.
func (r *checker) orderedBySectionBefore(f *wfunc, check cscan.Call, waiters []*wsite) string {
	if len(waiters) == 0 || f == nil || f.F == nil {
		return ""
	}
	heldAtCheck := r.locksAt(f, check.Line)
	for i := len(f.F.Calls) - 1; i >= 0; i-- {
		u := f.F.Calls[i]
		if u.Line >= check.Line {
			continue
		}
		k, ok := r.p.unlockCall(u)
		if !ok {
			continue
		}
		// The latest release on the check's path decides: anything
		// after it is between the section and the check.
		if !samePath(u, check) || heldAt(heldAtCheck, k) || r.mayStoreBetween(f, u.Line, check.Line) {
			return ""
		}
		var h heldLock
		for _, x := range r.locksAt(f, u.Line) {
			if x.key == k {
				h = x
			}
		}
		if h.key == "" {
			return ""
		}
		for _, s := range waiters {
			if !r.queuesThenTakes(s, h) {
				return ""
			}
		}
		return h.describe()
	}
	return ""
}

// mayStoreBetween reports whether a line of f after from and before to
// may store: a store the rules know, an assignment to a name f does not
// declare, or a call other than a lock primitive, a log line or one that
// stores nothing (trivialCalls: READ_ONCE(), WARN_ON()).
func (r *checker) mayStoreBetween(f *wfunc, from, to int) bool {
	if storeBetween(f, from, to) {
		return true
	}
	for l := from + 1; l < to; l++ {
		t := codeOnly(f.lines[l])
		if m := plainAssignRe.FindStringSubmatch(t); m != nil && (f.vt == nil || !f.vt.locals[m[1]]) {
			return true
		}
	}
	for _, c := range f.F.Calls {
		if c.Line <= from || c.Line >= to {
			continue
		}
		if a := r.p.locks.Classify(c); a.Op != lockmodel.None || logCall(c.Name) || trivialCalls[c.Name] {
			continue
		}
		return true
	}
	return false
}

// plainAssignRe is an assignment to a plain name ("ready = true;",
// "n += 1;"), not a comparison.
var plainAssignRe = regexp.MustCompile(`(?:^|[;{]\s*)\s*([A-Za-z_]\w*)\s*(?:[-+*/|&^]|<<|>>)?=[^=]`)

// logCall reports whether name only logs (printk(), pr_debug(),
// dev_info(), a tracepoint).
func logCall(name string) bool {
	return name == "printk" || name == "dout" || strings.HasPrefix(name, "pr_") || strings.HasPrefix(name, "trace_") ||
		slices.Contains([]string{"dev_dbg", "dev_info", "dev_warn", "dev_err", "dev_notice"}, name)
}

// queuesThenTakes reports whether sleeper s tests its condition under
// lock h after it is queued and before it sleeps: a wait_event*() whose
// condition takes it (checksUnderLock), or an open-coded loop that queues
// itself at s and takes the lock (by its key or its type) before the
// sleep that follows.
func (r *checker) queuesThenTakes(s *wsite, h heldLock) bool {
	if waitCond(s) != "" {
		return r.checksUnderLock(s, h)
	}
	if s.WKind != "add" || s.Fn == nil || s.Fn.F == nil {
		return false
	}
	sleep := 0
	for _, c := range s.Fn.F.Calls {
		if c.Line > s.Line() && (r.p.sleeps[c.Name] || c.Name == "wait_woken") {
			sleep = c.Line
			break
		}
	}
	for _, c := range s.Fn.F.Calls {
		if c.Line <= s.Line() || sleep == 0 || c.Line >= sleep {
			continue
		}
		a := r.p.locks.Classify(c)
		if a.Op != lockmodel.Take || a.Arg < 0 || a.Arg >= len(c.Args) {
			continue
		}
		if lockKeyOf(c, a.Arg) == h.key || h.typed != "" && typedLockKey(c.Args[a.Arg], s.Fn.vt, s.Fn.Name, s.Fn.File) == h.typed {
			return true
		}
	}
	return false
}

// sleepersOn returns the sleepers of queues qs outside the waker f's own
// function, each once.
func (r *checker) sleepersOn(qs []string, f *wfunc) []*wsite {
	var out []*wsite
	for _, q := range qs {
		for _, s := range r.waitersOf(q) {
			if (s.Fn.Name != f.Name || s.Fn.File != f.File) && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// sectionOrdersActive returns the lock that orders, in the new version
// nw, every lockless sleeper check of the queues qs that nw makes after
// its critical section (orderedBySectionBefore), "" when there is none
// or one is not ordered.
func (r *checker) sectionOrdersActive(nw *wfunc, qs []string) string {
	waiters := r.sleepersOn(qs, nw)
	by := ""
	for _, q := range qs {
		for _, a := range nw.sitesOn(siteActive, q) {
			o := r.orderedBySectionBefore(nw, a.Call, waiters)
			if o == "" {
				return ""
			}
			by = o
		}
	}
	return by
}
