package wakeup

import (
	"fmt"
	"strings"
)

// Whether the path to a removed wake-up changes what its waiters wait
// for: a wake-up with no change of state before it on its path wakes
// nobody who could now go on, and its removal is a note. The path starts
// in the function's callers when the function itself changes nothing
// before the wake-up: a helper that only wakes (a driver's
// complete_xxx_wait(dev) around wake_up()) is called after its callers
// stored the state.

// changesStateBefore reports whether the path before wake-up o changes
// state its sleepers may wait for: a store, or a call handed the object
// that holds the queue (put_ctx(ctx) before wake_up_var(&ctx->refcount)).
func changesStateBefore(o *wsite) bool {
	base := ""
	if ws := identWords(strings.TrimPrefix(strings.TrimSpace(o.Arg), "&")); len(ws) > 0 {
		base = ws[0]
	}
	f := o.Fn
	start := 0
	if f.F != nil {
		start = f.F.BodyStart
	}
	for l := o.Line() - 1; l > start && l >= o.Line()-maxStateLines; l-- {
		t, ok := f.lines[l]
		if !ok {
			continue
		}
		if isStore(t) {
			return true
		}
		if base == "" {
			continue
		}
		for _, m := range condCallRe.FindAllStringSubmatchIndex(t, -1) {
			rest := t[m[1]:]
			if end := strings.IndexByte(rest, ')'); end >= 0 && containsWord(rest[:end], base) && !trivialCalls[t[m[2]:m[3]]] {
				return true
			}
		}
	}
	return false
}

// storesWaited returns the line before wake-up o (within maxStateLines lines) that
// assigns a variable one of the waiters' conditions reads, by name: a
// global or a plain variable the waiter tests (s2idle_state = ...) is
// state as much as a member is. "" if none.
func storesWaited(o *wsite, waiters []*wsite) string {
	names := map[string]bool{}
	for _, w := range waiters {
		for _, id := range identWords(waitCond(w)) {
			if id != "" && (id[0] < '0' || id[0] > '9') {
				names[id] = true
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	f := o.Fn
	for l := o.Line() - 1; l > 0 && l >= o.Line()-maxStateLines; l-- {
		t, ok := f.lines[l]
		if !ok {
			continue
		}
		for _, m := range plainStoreRe.FindAllStringSubmatch(t, -1) {
			if names[m[1]] {
				return strings.TrimSpace(t)
			}
		}
	}
	return ""
}

// maxStateLines is how far above a wake-up, or a call, a store is looked
// for.
const maxStateLines = 15

// callerChangesState returns a call of wake-up o's function that its
// caller makes after storing state one of the waiters' conditions reads
// (within maxStateLines lines before the call, on the call's path), as
// "caller() at file:line", or "" if no caller does: the removal takes
// the wake-up from that store.
func (r *checker) callerChangesState(o *wsite, waiters []*wsite) string {
	if r.tree == nil || r.pass.Index == nil || o.Fn.F == nil {
		return ""
	}
	var conds []map[string]bool
	for _, w := range waiters {
		if c := waitCond(w); c != "" {
			conds = append(conds, stateTokens(c))
		}
	}
	if len(conds) == 0 {
		return ""
	}
	callers := r.pass.Index.Callers(o.Fn.Name)
	if len(callers) > maxCallers {
		callers = callers[:maxCallers]
	}
	static := o.Fn.F.Static && !strings.HasSuffix(o.Fn.File, ".h")
	for _, cs := range callers {
		if cs.Func == nil || cs.Func.Name == o.Fn.Name || static && cs.Func.File != o.Fn.File {
			continue
		}
		v := r.tree.view(cs.Func)
		if v == nil {
			continue
		}
		fl := flowOf(v)
		for l := cs.Call.Line - 1; l > cs.Func.BodyStart && l >= cs.Call.Line-maxStateLines; l-- {
			t, ok := v.lines[l]
			if !ok || !isStore(t) || !fl.reaches(l, cs.Call.Line) {
				continue
			}
			for _, c := range conds {
				if sharesState(stateTokens(t), c) {
					return fmt.Sprintf("%s() at %s:%d", cs.Func.Name, cs.Func.File, cs.Call.Line)
				}
			}
		}
	}
	return ""
}
