package wakeup

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A flag reset that re-arms a wait made by a later call, not by the
// function itself: usblp_submit_read() resets usblp->rcomplete before it
// submits the read URB, and the next read() sleeps on usblp->rwait until
// the URB's completion (usblp_bulk_read()) sets rcomplete again and
// wakes it. The reset is a re-arm all the same: moved past the
// submission, it can overwrite the completion's store, and the next
// reader sleeps with its data already there. Such a reset is known by its
// waker and its waiters: a function of the same file stores the flag and
// then wakes a queue, and a waiter of that queue (elsewhere) reads the
// flag.

// laterRoundQueue returns the queue that a reset of field (bit) in f
// re-arms for waits made outside f, with the waiter; "" when no function
// of f's file stores the flag before a wake-up whose waiters read it.
func (r *checker) laterRoundQueue(f *wfunc, field, bit string) (string, *wsite) {
	if r.tree == nil || f.F == nil {
		return "", nil
	}
	file := r.pass.Index.File(f.File)
	if file == nil {
		return "", nil
	}
	use := memberUse(field)
	for _, fn := range file.Funcs {
		if fn.Name == f.Name {
			continue
		}
		v := r.fileView(f.File, fn)
		for _, s := range v.sitesOn(siteWake, "") {
			if s.Q == "" || s.Derived {
				continue
			}
			if st, _ := r.storeBeforeWake(s, field); st == "" || resetRe.MatchString(st) || bit != "" && !containsWord(st, bit) {
				continue
			}
			// A task that sleeps (a read) before a poller: the
			// poller only learns of the event.
			var poller *wsite
			for _, w := range r.otherWaiters(s.Q, f.Name) {
				if body := bodyText(w.Fn); !use.MatchString(body) && !use.MatchString(r.withHelpers(body, w.Fn.File)) {
					continue
				}
				if w.WKind != "poll" {
					return s.Q, w
				}
				if poller == nil {
					poller = w
				}
			}
			if poller != nil {
				return s.Q, poller
			}
		}
	}
	return "", nil
}

// fileView returns the view of fn, a function of file: the patch's new
// version when the patch changes it, the tree's otherwise.
func (r *checker) fileView(file string, fn *cscan.Func) *wfunc {
	for _, nw := range r.news {
		if nw != nil && nw.File == file && nw.Name == fn.Name {
			return nw
		}
	}
	return r.tree.view(fn)
}

// laterWait returns the wait that later-round re-arm n is for, as a wait
// after nw returns; nil when n re-arms a wait of nw's own.
func (r *checker) laterWait(nw *wfunc, n rearmSite) *waitOn {
	if n.later == nil {
		return nil
	}
	w := n.later
	return &waitOn{line: nw.F.End, site: w, caller: w.Fn.Name, callerFile: w.Fn.File, callerLine: w.Line(), later: true}
}

// bodyText returns f's lines in order, one per line.
func bodyText(f *wfunc) string {
	var b strings.Builder
	for _, l := range sortedLines(f) {
		b.WriteString(f.lines[l])
		b.WriteByte('\n')
	}
	return b.String()
}
