package wakeup

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// This file decides a flag re-armed outside its lock (see rearm_completion.go): a
// sleeper that resets its wake-up flag (done = 0, current_work = NULL) in
// the critical section where it found nothing to do cannot lose a
// wake-up, because a waker that takes the same lock either ran before
// that section (and the sleeper saw its work) or runs after the reset.
// Moved after the unlock, the reset can overwrite the flag a waker set
// (or a waker can test the stale flag and skip its wake-up) in the
// window, and the sleeper sleeps with its event already delivered.

// resetRe finds a store of a not-yet-signalled value to a member: the
// re-arm of a flag.
var resetRe = regexp.MustCompile(`(?:->|\.)\s*([A-Za-z_]\w*)\s*=\s*(?:0|NULL|false)\s*;|\bWRITE_ONCE\s*\([^,]*(?:->|\.)\s*([A-Za-z_]\w*)\s*,\s*(?:0|NULL|false)\s*\)`)

// memberStoreRe matches a store of any value to member field: an
// assignment (plain or compound), an increment, WRITE_ONCE(),
// smp_store_release() or atomic_set().
func memberStoreRe(field string) *regexp.Regexp {
	f := regexp.QuoteMeta(field)
	return regexp.MustCompile(`(?:->|\.)\s*` + f + `\s*(?:\[[^\]]*\]\s*)?(?:[-+|&^]?=[^=]|\+\+|--)|\b(?:WRITE_ONCE|smp_store_release|atomic_set)\s*\(\s*&?[^,]*(?:->|\.)\s*` + f + `\s*,`)
}

// memberUse matches any use of member field.
func memberUse(field string) *regexp.Regexp {
	return regexp.MustCompile(`(?:->|\.)\s*` + regexp.QuoteMeta(field) + `\b`)
}

// sortedLines returns f's line numbers in order.
func sortedLines(f *wfunc) []int {
	out := make([]int, 0, len(f.lines))
	for l := range f.lines {
		out = append(out, l)
	}
	sort.Ints(out)
	return out
}

// checkFlagRearm reports a flag reset the patch moved out of the critical
// section that held it before, when the function sleeps after it and a
// waker takes the same lock and uses the flag.
func (r *checker) checkFlagRearm(ow, nw *wfunc) {
	for _, l := range sortedLines(nw) {
		if !nw.changed(l) {
			continue
		}
		m := resetRe.FindStringSubmatch(nw.text(l))
		if m == nil {
			continue
		}
		field := m[1] + m[2]
		held := r.locksAt(nw, l)
		lost, oldLine := r.lockLeft(ow, nw, field, l, held)
		if lost == nil {
			continue
		}
		sleepLine, sleepText := r.sleepAfter(nw, l, field)
		if sleepLine == 0 {
			continue
		}
		waker, wakeLine := r.flagWaker(nw, field, lost.key)
		if waker == nil {
			continue
		}
		reset := strings.TrimSpace(nw.text(l))
		f := report.Finding{
			Category: CategoryRearm,
			Severity: report.SeverityRisk,
			File:     nw.File, Func: nw.Name, Line: l,
			Message:  fmt.Sprintf("%s() now re-arms %s outside %s", nw.Name, field, lost.text),
			Evidence: []string{nw.evidence(l), nw.evidence(sleepLine)},
			Old:      []string{ow.evidence(lost.line), ow.evidence(oldLine)},
		}
		f.Chain = append(f.Chain,
			report.Step{Func: nw.Name, File: nw.File, Line: l, What: "resets the flag after the unlock: " + reset},
			report.Step{Func: nw.Name, File: nw.File, Line: sleepLine, What: "sleeps: " + sleepText},
			report.Step{Func: waker.Name, File: waker.File, Line: wakeLine, What: "takes the same lock, uses " + field + " and wakes: " + strings.TrimSpace(waker.text(wakeLine))})
		f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", waker.Name+"()", [][2]string{
			{"(finds nothing to do under the lock)", ""},
			{"unlock", ""},
			{"", lost.text + " ... unlock"},
			{"", strings.TrimSpace(waker.text(wakeLine))},
			{reset, ""},
			{"  (the waker's event is overwritten or was skipped)", ""},
			{sleepText, ""},
			{"  sleeps with the event delivered", ""},
		})...)
		f.Explanation = fmt.Sprintf("%s() used to reset %s while holding the lock taken by `%s`, in the section that found nothing to do; it now resets it after dropping that lock and then sleeps. %s() takes the same lock, uses %s and wakes the sleeper: if it runs between the unlock and the reset, its event is overwritten (or it sees the stale flag and skips the wake-up), and the sleeper sleeps although its work is there. Reset the flag under the lock, as before.",
			nw.Name, field, lost.text, waker.Name, field)
		r.add(f)
		return
	}
}

// lockLeft returns a lock that held every store to field in ow and is not
// held at the new reset (nil if none), with the old store's line. nw must
// still take that lock.
func (r *checker) lockLeft(ow, nw *wfunc, field string, at int, held []heldLock) (*heldLock, int) {
	store := memberStoreRe(field)
	for _, ol := range sortedLines(ow) {
		if !store.MatchString(ow.text(ol)) {
			continue
		}
		for _, h := range r.locksAt(ow, ol) {
			if (!heldAt(held, h.key) || r.releasedBefore(nw, h.key, at)) && r.takesLock(nw, h.key) {
				h := h
				return &h, ol
			}
		}
	}
	return nil, 0
}

// sleepAfter returns the first sleep of f after line: a wait (preferring
// one whose condition reads field) or an open-coded sleep.
func (r *checker) sleepAfter(f *wfunc, line int, field string) (int, string) {
	use := memberUse(field)
	first := 0
	for _, s := range f.sitesOn(siteWait, "") {
		if s.Line() <= line || s.WKind == "poll" {
			continue
		}
		if use.MatchString(waitCond(s)) {
			return s.Line(), s.Text()
		}
		if first == 0 {
			first = s.Line()
		}
	}
	for _, c := range f.F.Calls {
		if c.Line > line && r.p.sleeps[c.Name] && (first == 0 || c.Line < first) {
			first = c.Line
		}
	}
	if first == 0 {
		return 0, ""
	}
	return first, strings.TrimSpace(f.text(first))
}

// flagWaker finds a function other than nw that takes (or asserts it
// holds) lock key, uses field and wakes: the other side of the flag. It
// looks at the patch's functions, the wakers of nw's queues and, with a
// tree, the functions of nw's file. The line is the wake-up's.
func (r *checker) flagWaker(nw *wfunc, field, key string) (*wfunc, int) {
	var cands []*wfunc
	for _, f := range r.news {
		if f != nil && f != nw {
			cands = append(cands, f)
		}
	}
	for _, s := range nw.sitesOn(siteWait, "") {
		for _, w := range r.wakersOf(s.Q) {
			cands = append(cands, w.Fn)
		}
	}
	if r.tree != nil {
		if file := r.pass.Index.File(nw.File); file != nil {
			for _, fn := range file.Funcs {
				if !r.inPatch[nw.File+":"+fn.Name] {
					cands = append(cands, r.tree.view(fn))
				}
			}
		}
	}
	use := memberUse(field)
	for _, f := range cands {
		if f == nil || f.F == nil || f.Name == nw.Name || !r.holdsLock(f, key) {
			continue
		}
		uses := false
		for _, t := range f.lines {
			if use.MatchString(t) {
				uses = true
				break
			}
		}
		if !uses {
			continue
		}
		if l := r.wakeLine(f); l != 0 {
			return f, l
		}
	}
	return nil, 0
}

// holdsLock reports whether f runs with lock key held: it takes it,
// asserts it (lockdep_assert_held(), also in a callee), or every caller
// the tree knows (up to maxCallers) holds it at the call.
func (r *checker) holdsLock(f *wfunc, key string) bool {
	if r.takesLock(f, key) || r.assertsHeld(f, key) {
		return true
	}
	if r.tree == nil {
		return false
	}
	seen := map[string]bool{}
	for _, c := range f.F.Calls {
		if seen[c.Name] || r.inert(c) {
			continue
		}
		seen[c.Name] = true
		for _, fn := range r.pass.Index.Funcs(c.Name) {
			if fn.File == f.F.File && r.assertsHeld(r.tree.view(fn), key) {
				return true
			}
		}
	}
	callers := r.pass.Index.Callers(f.Name)
	if len(callers) == 0 || len(callers) > maxCallers {
		return false
	}
	for _, cs := range callers {
		if cs.Func == nil || !heldAt(r.locksAt(r.tree.view(cs.Func), cs.Call.Line), key) {
			return false
		}
	}
	return true
}

// assertsHeld reports whether f asserts that lock key is held.
func (r *checker) assertsHeld(f *wfunc, key string) bool {
	if f == nil || f.F == nil {
		return false
	}
	for _, c := range f.F.Calls {
		if strings.HasPrefix(c.Name, "lockdep_assert_held") && len(c.Args) > 0 && lockKey(c.Args[0]) == key {
			return true
		}
	}
	return false
}

// wakeLine returns the line of f's first wake-up (a queue or a task), 0
// if it wakes nothing.
func (r *checker) wakeLine(f *wfunc) int {
	line := 0
	for _, s := range f.sitesOn(siteWake, "") {
		if line == 0 || s.Line() < line {
			line = s.Line()
		}
	}
	for _, c := range f.F.Calls {
		if r.p.taskWakers[c.Name] != nil && (line == 0 || c.Line < line) {
			line = c.Line
		}
	}
	return line
}

// releasedBefore reports whether lock key is released on every path to
// line by an unlock that precedes it in its own block or an enclosing one
// (with no re-lock after it there): an unlock inside a loop that re-locks
// before the next iteration still leaves the rest of that iteration
// unlocked.
func (r *checker) releasedBefore(f *wfunc, key string, line int) bool {
	if f.F == nil || f.F.Body == nil {
		return false
	}
	path := blockPath(f.F.Body, line)
	for i := len(path) - 1; i >= 0; i-- {
		b, idx := path[i].b, path[i].idx
		for j := idx - 1; j >= 0; j-- {
			es, ok := b.Stmts[j].(*cscan.ExprStmt)
			if !ok {
				continue
			}
			for k := len(es.Calls) - 1; k >= 0; k-- {
				c, _ := r.wrapperLock(es.Calls[k], f.File)
				if kk, ok := r.p.unlockCall(c); ok && kk == key {
					return true
				}
				if kk, ok := r.p.lockCall(c); ok && kk == key {
					return false
				}
			}
		}
	}
	return false
}

// blockAt is a block on the way to a line and the index of the statement
// in it that holds the line.
type blockAt struct {
	b   *cscan.Block
	idx int
}

// blockPath returns the blocks enclosing line, outermost first.
func blockPath(b *cscan.Block, line int) []blockAt {
	for i, s := range b.Stmts {
		if cscan.StmtLine(s) > line || stmtEnd(s) < line {
			continue
		}
		out := []blockAt{{b: b, idx: i}}
		for _, sub := range subStmts(s) {
			if inner, ok := sub.(*cscan.Block); ok && inner.Line <= line && stmtEnd(inner) >= line {
				return append(out, blockPath(inner, line)...)
			}
		}
		return out
	}
	return nil
}

// subStmts returns the statements nested directly in s.
func subStmts(s cscan.Stmt) []cscan.Stmt {
	switch x := s.(type) {
	case *cscan.Block:
		return []cscan.Stmt{x}
	case *cscan.IfStmt:
		if x.Else != nil {
			return []cscan.Stmt{x.Then, x.Else}
		}
		return []cscan.Stmt{x.Then}
	case *cscan.LoopStmt:
		return []cscan.Stmt{x.Body}
	case *cscan.SwitchStmt:
		return []cscan.Stmt{x.Body}
	case *cscan.ScopedGuardStmt:
		return []cscan.Stmt{x.Body}
	}
	return nil
}
