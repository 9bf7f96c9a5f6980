package wakeup

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// A removed barrier that was not needed: the pair it ordered is still
// ordered by another full barrier, before it (a doubled barrier) or after
// it, up to the check for sleepers it stood in front of.

// redundantFull reports whether a removed full barrier is still provided
// on its path by another full-barrier operation (a value-returning atomic,
// set_current_state()) with no store between it and where the barrier
// stood: removing a doubled barrier loses no ordering.
func (r *checker) redundantFull(old, nw *wfunc, o orderOp) bool {
	if o.strength != "full" || nw.F == nil {
		return false
	}
	pos := r.newLineNear(old, nw, o.call.Line)
	for _, c := range nw.F.Calls {
		if c.Line >= pos {
			break
		}
		if r.p.ordering(c.Name) == "full" && r.p.actives[c.Name] == nil && !storeBetween(nw, c.Line, pos) {
			return true
		}
	}
	return false
}

// orderedOnward reports whether the load that a removed full barrier o
// ordered after the stores before it is still ordered by what follows in
// nw: the wake-up or sleeper check that followed o, left as it was, has
// a full barrier of its own before its lockless test (wq_has_sleeper(),
// rcuwait_wake_up()), or a full barrier stands between o's place and it.
// A check the patch removed or changed with the barrier is no evidence,
// nor is a later one of the same text, nor a check's own barrier when
// code between (a lockless load of a flag) was what the removed barrier
// ordered.
func (r *checker) orderedOnward(old, nw *wfunc, o orderOp) bool {
	if o.strength != "full" || nw.F == nil {
		return false
	}
	first := func(f *wfunc, from int, text string) *wsite {
		var next *wsite
		for _, s := range f.Sites {
			if s.Line() > from && (s.Kind == siteWake || s.Kind == siteActive) &&
				(text == "" || lockctx.CallText(s.Call) == text) && (next == nil || s.Line() < next.Line()) {
				next = s
			}
		}
		return next
	}
	was := first(old, o.call.Line, "")
	if was == nil || old.changed(was.Line()) {
		return false
	}
	pos := r.newLineNear(old, nw, o.call.Line)
	next := first(nw, pos-1, lockctx.CallText(was.Call))
	if next == nil {
		return false
	}
	own := next.Kind == siteActive && next.BuiltinBarrier
	if w := r.p.waker(next.Call.Name); next.Kind == siteWake && w != nil && w.Lockless && !w.NeedsBarrier {
		own = true
	}
	if own && nothingBetween(nw, pos, next) {
		return true
	}
	for _, c := range nw.F.Calls {
		if c.Line >= pos && c.Line < next.Line() && r.p.ordering(c.Name) == "full" && r.p.actives[c.Name] == nil {
			return true
		}
	}
	return false
}

// nothingBetween reports whether no code lies from line pos up to site
// s: no code line before it, and on its own line nothing before its call
// but an if or a return ("if (wq_has_sleeper(q))", not "if
// (READ_ONCE(flag) && wq_has_sleeper(q))").
func nothingBetween(f *wfunc, pos int, s *wsite) bool {
	for l := pos; l < s.Line(); l++ {
		if t, ok := f.lines[l]; ok {
			if c := strings.TrimSpace(codeOnly(t)); c != "" && c != "{" && c != "}" {
				return false
			}
		}
	}
	t := codeOnly(f.lines[s.Line()])
	i := strings.Index(t, s.Call.Name+"(")
	return i >= 0 && leadRe.MatchString(t[:i])
}

// leadRe matches what may stand before a sleeper check on its line.
var leadRe = regexp.MustCompile(`^\s*(?:(?:if|while)\s*\(\s*!?\s*|return\s+)?$`)
