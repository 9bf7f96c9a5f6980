package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
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
func (r *checker) changesStateBefore(o *wsite) bool {
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
		if _, store := r.storedFields(f, t); store {
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

// localInitRe matches a statement that only gives a local variable a
// value: a declaration with an initialiser or an assignment to a plain
// name (isStore already rules out members).
var localInitRe = regexp.MustCompile(`^\s*(?:[A-Za-z_][\w\s]*[\s*])?\**\s*[A-Za-z_]\w*\s*=[^=]`)

// checkCallRe matches the calls a statement may make and still have no
// effect on what a waiter observes: assertions and debug output.
var checkCallRe = regexp.MustCompile(`^(?:WARN\w*|BUG\w*|VM_BUG_ON\w*|lockdep_\w+|might_sleep|might_fault|pr_\w+|dev_dbg|dev_vdbg|printk\w*|trace_\w+)$`)

// soleSignal reports whether wake-up o was all its function did: every
// other statement assigns a plain name (whatever its right side calls:
// the look-up of the queue's object) or asserts, none stores a member,
// and the wake-up is the last statement. Such a helper (do_notify_pidfd():
// task_pid(), then wake_up_all()) exists to tell the waiters that its
// callers changed what they wait for, so removing its wake-up leaves
// them asleep whatever the function itself stores. decideRemoved asks it
// only when no waiter states its condition (a poll queue): with the
// conditions known, the callers' stores are compared with them.
func soleSignal(o *wsite) bool {
	f := o.Fn.F
	if f == nil || f.Body == nil || len(f.Body.Stmts) == 0 {
		return false
	}
	stmts := f.Body.Stmts
	last, ok := stmts[len(stmts)-1].(*cscan.ExprStmt)
	if !ok || last.Line != o.Line() {
		return false
	}
	for _, s := range stmts[:len(stmts)-1] {
		e, ok := s.(*cscan.ExprStmt)
		if !ok || isStore(e.Text) {
			return false
		}
		if localInitRe.MatchString(codeOnly(e.Text)) {
			continue
		}
		for _, c := range e.Calls {
			if !checkCallRe.MatchString(c.Name) {
				return false
			}
		}
	}
	return true
}

// anyWaitCond reports whether one of the waiters states its condition
// (wait_event*(), wait_var_event*(), wait_on_bit*()).
func anyWaitCond(waiters []*wsite) bool {
	for _, w := range waiters {
		if waitCond(w) != "" {
			return true
		}
	}
	return false
}
