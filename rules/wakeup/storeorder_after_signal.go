package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// A store the patch adds after a wake-up, or moves from before it to after
// it, to a member of the object the wake-up signals that its waiters read
// once they return: complete(&req->done); req->status = err; while the
// waiter, woken, returns req->status. The
// waiter can run and read the member before the store (or the object can
// be gone by then): what a waiter reads after its wait must be stored
// before the wake-up that releases it.

// readAfterLines bounds how far after its wait a waiter's reads of the
// object are looked for.
const readAfterLines = 12

// checkStoreAfterSignal reports such a store, once per function.
func (r *checker) checkStoreAfterSignal() {
	for i, nw := range r.news {
		if nw == nil {
			continue
		}
		old := r.oldVersion(i)
		for _, w := range nw.sitesOn(siteWake, "") {
			if w.Derived || wakeObject(w.Arg) == "" {
				continue
			}
			if r.storeAfterSignal(old, nw, w) {
				break
			}
		}
	}
}

// storeAfterSignal reports (and returns true) a store the patch adds after
// wake-up w, to a member of w's object that a waiter of w's queue reads
// after its wait, with no wake-up of the queue after the store.
func (r *checker) storeAfterSignal(old, nw *wfunc, w *wsite) bool {
	obj := wakeObject(w.Arg)
	had := map[string]bool{}
	if old != nil {
		for _, t := range old.lines {
			had[normLine(t)] = true
		}
	}
	fl := flowOf(nw)
	res := memberStoreRes(obj)
	waiters := r.otherWaiters(w.Q, nw.Name)
	reads := map[readKey]int{} // readAfterWait compiles a pattern
	for _, l := range sortedLines(nw) {
		if l <= w.Line() || !fl.reaches(w.Line(), l) {
			continue
		}
		if reassigns(nw.lines[l], obj) {
			return false // obj names another object from here on
		}
		// A store the patch added, or one it moved from before the
		// wake-up to after it: the store's line or the wake-up's changed.
		if !nw.changed(l) && !w.Changed() {
			continue
		}
		moved := had[normLine(nw.lines[l])]
		if moved && !r.movedAcrossWake(old, nw.lines[l], w.Q) {
			continue
		}
		members := r.helperStoredMembers(nw, l, obj, w.Q)
		if m := storedMember(codeOnly(nw.lines[l]), res); m != "" {
			members = []string{m}
		}
		for _, member := range members {
			if moved && r.condReadsMember(waiters, member) {
				// A store a waiter's condition reads: the state-order
				// checks judge it, with the lock both sides take.
				continue
			}
			for _, s := range waiters {
				k := readKey{s, member}
				read, ok := reads[k]
				if !ok {
					read = readAfterWait(s, member)
					reads[k] = read
				}
				if read == 0 {
					continue
				}
				if r.coveringWake(nw, w.Q, l+1, w) != "" || r.lockedBoth(nw, l, s, read) {
					return false
				}
				r.reportStoreAfterSignal(nw, w, l, s, read)
				return true
			}
		}
	}
	return false
}

// helperStoredMembers returns the members of obj that a call on line l
// of nw stores through a helper of nw's file handed obj itself
// (dc_i2c_set_error(i2c, status) storing i2c->error): the members the
// helper stores through that parameter, in its line order, but those it
// wakes queue q after itself.
func (r *checker) helperStoredMembers(nw *wfunc, l int, obj, q string) []string {
	if nw.F == nil {
		return nil
	}
	var out []string
	for _, c := range nw.F.Calls {
		if c.Line != l {
			continue
		}
		for i, a := range c.Args {
			if strings.TrimSpace(a) != obj {
				continue
			}
			for _, h := range r.funcsNamed(c.Name, nw.File) {
				ps := paramNames(h.header(), h.Name)
				if h.File != nw.File || i >= len(ps) || ps[i] == "" {
					continue
				}
				res := memberStoreRes(ps[i])
				for _, hl := range sortedLines(h) {
					if m := storedMember(codeOnly(h.lines[hl]), res); m != "" && !r.wakesAfter(h, q, hl) {
						out = appendUnique(out, m)
					}
				}
			}
		}
	}
	return out
}

// memberStoreRes returns the patterns storedMember reads stores to a
// member of obj with (through -> and .).
func memberStoreRes(obj string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, sep := range []string{"->", "."} {
		out = append(out, regexp.MustCompile(`(?:^|[^\w>.])`+regexp.QuoteMeta(obj+sep)+`(\w+)((?:[-+|&^]?=[^=])|\+\+|--)?`))
	}
	return out
}

// reassigns reports whether line t assigns obj itself (a plain name):
// req = list_first_entry(...) after complete(&req->done).
func reassigns(t, obj string) bool {
	for _, m := range plainStoreRe.FindAllStringSubmatch(codeOnly(t), -1) {
		if m[1] == obj {
			return true
		}
	}
	return false
}

// storedMember returns the member that code line t stores to through the
// object of res (memberStoreRes: obj->m = ..., WRITE_ONCE(obj->m, ...),
// obj->m++), "" if none.
func storedMember(t string, res []*regexp.Regexp) string {
	code := strings.Join(strings.Fields(t), "")
	for _, re := range res {
		for _, m := range re.FindAllStringSubmatchIndex(code, -1) {
			if m[4] >= 0 || strings.HasSuffix(code[:m[0]+1], "WRITE_ONCE(") {
				return code[m[2]:m[3]]
			}
		}
	}
	return ""
}

// readKey is a waiter and a member it may read after its wait.
type readKey struct {
	s      *wsite
	member string
}

// readAfterWait returns the line on which waiter s, after its wait
// returns, reads member through the object holding its queue; 0 if it
// does not within readAfterLines lines.
func readAfterWait(s *wsite, member string) int {
	obj := wakeObject(s.Arg)
	if obj == "" {
		return 0
	}
	re := regexp.MustCompile(`(?:^|[^\w>.])` + regexp.QuoteMeta(obj) + `\s*(?:->|\.)\s*` + regexp.QuoteMeta(member) + `\b`)
	for l := s.Line() + 1; l <= s.Line()+readAfterLines; l++ {
		t, ok := s.Fn.lines[l]
		if !ok {
			continue
		}
		if re.MatchString(codeOnly(t)) {
			return l
		}
	}
	return 0
}

// lockedBoth reports whether a lock held at line l of nw is held by
// waiter s's function where it reads, at line read.
func (r *checker) lockedBoth(nw *wfunc, l int, s *wsite, read int) bool {
	for _, h := range r.heldWithCallers(nw, l) {
		if r.holdsAt(s.Fn, read, h) {
			return true
		}
	}
	return false
}

// holdsAt reports whether f holds lock h at line: the same key, or the
// same typed key (the struct type holding it), held there with its
// callers' locks counted. A lock f takes elsewhere does not count.
func (r *checker) holdsAt(f *wfunc, line int, h heldLock) bool {
	for _, x := range r.heldWithCallers(f, line) {
		if x.key != "" && x.key == h.key || h.typed != "" && x.typed == h.typed {
			return true
		}
	}
	return false
}

// reportStoreAfterSignal reports the store at line l of nw, made after
// wake-up w, that waiter s reads at line read.
func (r *checker) reportStoreAfterSignal(nw *wfunc, w *wsite, l int, s *wsite, read int) {
	st := strings.TrimSpace(nw.text(l))
	rd := strings.TrimSpace(s.Fn.text(read))
	f := report.Finding{
		Category: CategoryStateOrder,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: l, Key: w.Q,
		Message:  fmt.Sprintf("%s() now makes `%s` after %s, and its waiter reads it once woken", nw.Name, st, w.Text()),
		Evidence: []string{nw.evidence(w.Line()), nw.evidence(l)},
	}
	f.Chain = append(f.Chain,
		step(s, "waits: "+s.Text()),
		report.Step{Func: s.Fn.Name, File: s.Fn.File, Line: read, What: "reads after the wait: " + rd},
		step(w, "wakes it: "+w.Text()),
		report.Step{Func: nw.Name, File: nw.File, Line: l, What: "stores after the wake-up: " + st})
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", s.Fn.Name+"()", [][2]string{
		{"", s.Text()},
		{w.Text(), ""},
		{"", "woken: returns from the wait"},
		{"", rd + ": old value"},
		{st, "  (too late; the object may be gone too)"},
	})...)
	f.Explanation = fmt.Sprintf("%s waits on %s and, once woken, reads what %s() now stores only after waking it (`%s` after %s). The waiter can run and read it before the store, or release the object first. Store before the wake-up.",
		siteWhere(s), w.Q, nw.Name, st, w.Text())
	r.add(f)
}

// movedAcrossWake reports whether every copy of line t in the old
// version lies before the old version's last wake-up of queue q: the
// patch moved the store from before the wake-up to after it.
func (r *checker) movedAcrossWake(old *wfunc, t, q string) bool {
	if old == nil {
		return false
	}
	want := normLine(t)
	last := 0
	for _, s := range old.sitesOn(siteWake, "") {
		if r.sameQueue(s.Q, q) && s.Line() > last {
			last = s.Line()
		}
	}
	found := false
	for l, ot := range old.lines {
		if normLine(ot) != want {
			continue
		}
		if l > last {
			return false
		}
		found = true
	}
	return found
}

// condReadsMember reports whether one of the waiters' conditions reads
// member (condReads: through the helpers it calls, and for a completion
// in the lines after its wait), or an open-coded wait tests it in the
// lines before its wait (while (!dev->ready) { prepare_to_wait(...); ...).
func (r *checker) condReadsMember(waiters []*wsite, member string) bool {
	for _, s := range waiters {
		if r.condReads(s, []string{member}) {
			return true
		}
		obj := wakeObject(s.Arg)
		if obj == "" {
			continue
		}
		re := regexp.MustCompile(`(?:^|[^\w>.])` + regexp.QuoteMeta(obj) + `\s*(?:->|\.)\s*` + regexp.QuoteMeta(member) + `\b`)
		for l := s.Line() - openWaitLines; l < s.Line(); l++ {
			if t, ok := s.Fn.lines[l]; ok && re.MatchString(codeOnly(t)) {
				return true
			}
		}
	}
	return false
}

// openWaitLines bounds how far before an open-coded wait its condition
// test is looked for.
const openWaitLines = 8

// wakesAfter reports whether f wakes queue q after line l.
func (r *checker) wakesAfter(f *wfunc, q string, l int) bool {
	for _, s := range f.sitesOn(siteWake, "") {
		if s.Line() > l && r.sameQueue(s.Q, q) {
			return true
		}
	}
	return false
}
