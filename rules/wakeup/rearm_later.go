package wakeup

import (
	"regexp"
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

// laterRoundQueue returns the queue that a reset of field (bit) on line
// of f re-arms for waits made by a later call (elsewhere, or in f before
// the reset: a reader that waits, then resubmits), with the waiter; ""
// when no function of f's file stores the flag before a wake-up whose
// waiters read it.
func (r *checker) laterRoundQueue(f *wfunc, line int, field, bit string) (string, *wsite) {
	if r.tree == nil || f.F == nil {
		return "", nil
	}
	file := r.pass.Index.File(f.File)
	if file == nil {
		return "", nil
	}
	use := memberUse(field)
	ref := memberRefRe(field)
	tag := storeTag(f, f.lines[line], ref)
	for _, fn := range file.Funcs {
		if fn.Name == f.Name {
			continue
		}
		v := r.fileView(f.File, fn)
		for _, s := range v.sitesOn(siteWake, "") {
			if s.Q == "" || s.Derived {
				continue
			}
			st, _ := r.storeBeforeWake(s, field)
			if st == "" || resetRe.MatchString(st) || bit != "" && !containsWord(st, bit) {
				continue
			}
			if t := storeTag(v, st, ref); tag != "" && t != "" && t != tag {
				continue // another struct's member of the same name
			}
			// A task that sleeps (a read) before a poller: the
			// poller only learns of the event.
			var poller *wsite
			for _, w := range r.waitersOf(s.Q) {
				if w.Fn.Name == f.Name && w.Line() > line {
					continue // a wait of f after the reset is its own round's
				}
				// What the waiter waits for: its condition, or for an
				// open-coded loop (no condition) its body.
				text := waitCond(w)
				if text == "" {
					text = bodyText(w.Fn)
				} else if resetEndsWait(r.returnsOf(text, w.Fn.File), field, bit) {
					continue // the reset ends its wait: no re-arm
				}
				if !use.MatchString(text) && !use.MatchString(r.withHelpers(text, w.Fn.File)) {
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

// storeTag returns the struct type, as f declares it, of the object
// whose member store text t writes; ref matches the member's references
// (memberRefRe); "" when unknown.
func storeTag(f *wfunc, t string, ref *regexp.Regexp) string {
	m := ref.FindStringSubmatch(codeOnly(t))
	if m == nil || f.vt == nil {
		return ""
	}
	return f.vt.types[m[1]]
}

// memberRefRe matches a reference to member field with the object named
// before it.
func memberRefRe(field string) *regexp.Regexp {
	return regexp.MustCompile(`([A-Za-z_]\w*)\s*(?:->|\.)\s*` + regexp.QuoteMeta(field) + `\b`)
}

// startsWakersOperation reports whether call c of nw can start the
// operation whose end waker done announces: c hands on the object a call
// of the file attaches done to as its callback (usb_submit_urb(d->urb)
// after usb_fill_bulk_urb(d->urb, ..., rdr_read_done, d)), or names done
// itself. A later call's re-arm is judged only against such calls: any
// other call in between cannot complete what the later wait waits for.
func (r *checker) startsWakersOperation(nw *wfunc, c cscan.Call, done *wsite) bool {
	for _, a := range c.Args {
		if containsWord(a, done.Fn.Name) {
			return true
		}
	}
	if len(c.Args) == 0 || r.tree == nil {
		return false
	}
	obj := strings.Join(strings.Fields(stripAddr(c.Args[0])), "")
	file := r.pass.Index.File(nw.File)
	if file == nil || obj == "" {
		return false
	}
	for _, fn := range file.Funcs {
		v := r.fileView(nw.File, fn)
		if v.F == nil {
			continue
		}
		for _, a := range v.F.Calls {
			if len(a.Args) < 2 || strings.Join(strings.Fields(stripAddr(a.Args[0])), "") != obj {
				continue
			}
			for _, x := range a.Args[1:] {
				if strings.TrimSpace(x) == done.Fn.Name {
					return true
				}
			}
		}
	}
	return false
}

// lockedAgainst reports whether nw holds, from the start at line from to
// the re-arm at line to, a lock that waker done takes: its store comes
// after the re-arm whatever the operation's timing.
func (r *checker) lockedAgainst(nw *wfunc, from, to int, done *wsite) bool {
	if done == nil {
		return false
	}
	for _, h := range r.heldAcross(nw, from, to) {
		if h.typed != "" && r.takesTyped(done.Fn, h.typed) {
			return true
		}
	}
	return false
}
