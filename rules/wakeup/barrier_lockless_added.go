package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// A wake-up that tests for sleepers without a barrier of its own
// (wake_up_bit(), wake_up_var(): waitqueue_active() inside) that the
// patch puts after a store to the word or variable it names, with no full
// barrier between the two. The kernel-doc of both asks the caller for one
// (typically smp_mb__after_atomic() after clear_bit()): without it the
// CPU may load the queue head before its store is visible, see no
// sleeper, while the sleeper, queued, still reads the old value.

// checkLocklessAdded reports such a pair made by the patch: the wake-up
// or the store is on an added line, and no version of the patch's
// functions before it had the same wake-up after the same kind of
// unordered store. A wake-up of a queue the function already woke is
// checkOrdering's: it judges the barriers the patch removed or moved
// around it (barrier_removed.go).
func (r *checker) checkLocklessAdded() {
	for i := range r.pass.Change.Funcs {
		old, nw := r.oldVersion(i), r.news[i]
		if nw == nil {
			continue
		}
		for _, w := range nw.Sites {
			if w.Kind != siteWake || w.Derived || w.Obj != "" {
				continue
			}
			row := r.p.waker(w.Call.Name)
			if row == nil || !row.NeedsBarrier || old != nil && len(old.sitesOn(siteWake, w.Q)) > 0 {
				continue
			}
			store := r.unorderedStore(nw, w)
			if store == 0 || (!nw.changed(store) && !w.Changed()) {
				continue
			}
			if r.hadUnorderedPair(w) {
				continue
			}
			r.reportLocklessAdded(nw, w, store)
		}
	}
}

// hadUnorderedPair reports whether an old version of a function of the
// patch already made wake-up w's call on the same object after an
// unordered store to it: the patch moved the pair, it did not make it.
func (r *checker) hadUnorderedPair(w *wsite) bool {
	for _, old := range r.olds {
		if old == nil {
			continue
		}
		for _, o := range old.Sites {
			if o.Kind == siteWake && o.Call.Name == w.Call.Name && normArg(o.Arg) == normArg(w.Arg) && r.unorderedStore(old, o) != 0 {
				return true
			}
		}
	}
	return false
}

// unorderedStore returns the line of the last store before wake-up w in f
// to the object w names (its bit, for a bit wake-up made with a bit
// operation), when no full barrier or fully ordered atomic follows it
// before w; 0 if there is none.
func (r *checker) unorderedStore(f *wfunc, w *wsite) int {
	obj := normArg(w.Arg)
	if obj == "" || f.F == nil {
		return 0
	}
	bit := ""
	if w.Call.Name == "wake_up_bit" && len(w.Call.Args) > 1 {
		bit = normArg(w.Call.Args[1])
	}
	assign := assignRe(obj)
	callsAt := map[int][]int{}
	for i, c := range f.F.Calls {
		callsAt[c.Line] = append(callsAt[c.Line], i)
	}
	last := 0
	for _, l := range sortedLines(f) {
		if l <= f.F.Start || l >= w.Line() {
			continue
		}
		full, stored := false, false
		for _, i := range callsAt[l] {
			c := f.F.Calls[i]
			if r.p.ordering(c.Name) == "full" {
				full = true
				continue
			}
			if unorderedStoreRe.MatchString(c.Name) && callStoresTo(c.Name, c.Args, obj, bit) {
				stored = true
			}
		}
		switch {
		case full:
			last = 0
		case stored || assign.MatchString(codeOnly(f.lines[l])):
			last = l
		}
	}
	return last
}

// unorderedStoreRe matches the names of the calls that store to their pointer argument
// without ordering it before later loads: bit operations, plain and
// release stores, atomics that return nothing.
var unorderedStoreRe = regexp.MustCompile(`^(__)?(set|clear|change)_bit(_unlock)?$|^(WRITE_ONCE|smp_store_release)$|^(atomic|atomic64|atomic_long)_(set|inc|dec|add|sub|or|and|andnot|xor)(_release|_relaxed)?$`)

// callStoresTo reports whether a store call's arguments name obj (and, for
// a bit operation where bit is known, the same bit).
func callStoresTo(name string, args []string, obj, bit string) bool {
	named := false
	for _, a := range args {
		if normArg(a) == obj {
			named = true
		}
	}
	if !named {
		return false
	}
	if bit != "" && (strings.HasSuffix(name, "_bit") || strings.HasSuffix(name, "_bit_unlock")) {
		return len(args) > 0 && normArg(args[0]) == bit
	}
	return true
}

// assignRe returns the pattern of a code line that assigns obj (=, op=,
// ++, --).
func assignRe(obj string) *regexp.Regexp {
	q := regexp.QuoteMeta(obj)
	return regexp.MustCompile(`(^|[^\w>.])` + q + `\s*((<<|>>|[-+*/|&^])?=[^=]|\+\+|--)|(\+\+|--)\s*` + q + `\b`)
}

// normArg returns an argument without its & and outer parentheses
// (stripAddr) and spaces: the object a queue or store argument names.
func normArg(a string) string {
	return strings.Join(strings.Fields(stripAddr(a)), "")
}

// sameBitWaiters returns the waiters of ws outside f that wake-up w can
// be for. wake_bit_function() wakes a bit waiter only for its own bit: of
// a bit wake-up whose bit is a constant, the waiters of that bit and
// those whose bit is not a constant (it may be the same); every waiter
// of another wake-up.
func sameBitWaiters(w *wsite, ws []*wsite, f *wfunc) []*wsite {
	bit := ""
	if w.Call.Name == "wake_up_bit" && len(w.Call.Args) > 1 && constBitRe.MatchString(normArg(w.Call.Args[1])) {
		bit = normArg(w.Call.Args[1])
	}
	var out []*wsite
	for _, s := range ws {
		if s.Fn == f {
			continue
		}
		if bit != "" && s.WKind == "bit" && len(s.Call.Args) > 1 {
			if b := normArg(s.Call.Args[1]); constBitRe.MatchString(b) && b != bit {
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// constBitRe matches a bit number written as a constant: a number or an
// upper-case name.
var constBitRe = regexp.MustCompile(`^(?:[0-9]+|[A-Z_][A-Z0-9_]*)$`)

// orderedByLock returns a lock held at wake-up w that every one of
// waiters takes where it tests its condition (in its function, or in a
// helper the condition calls), "" if none: the lock orders the store
// before the test as a barrier would (later kernels call such a wake-up
// wake_up_var_locked()).
func (r *checker) orderedByLock(nw *wfunc, w *wsite, waiters []*wsite) string {
	if len(waiters) == 0 {
		return ""
	}
	for _, h := range r.heldWithCallers(nw, w.Line()) {
		all := true
		for _, s := range waiters {
			if !r.holdsAt(s.Fn, s.Line(), h) && !r.condHelperTakes(s, h) {
				all = false
				break
			}
		}
		if all {
			return h.describe()
		}
	}
	return ""
}

// condHelperTakes reports whether a function of waiter s's file that its
// condition calls takes lock h (by its key, or its typed key).
func (r *checker) condHelperTakes(s *wsite, h heldLock) bool {
	if r.tree == nil {
		return false
	}
	for _, m := range condCallNameRe.FindAllStringSubmatch(waitCond(s), -1) {
		for _, fn := range r.pass.Index.Funcs(m[1]) {
			if r.tree.relPath(fn.File) != s.Fn.File {
				continue
			}
			v := r.tree.view(fn)
			if r.takesLock(v, h.key) {
				return true
			}
			lw := r.walkLocks(v)
			for k, tk := range lw.typed {
				if h.typed != "" && tk == h.typed && lw.taken[k] {
					return true
				}
			}
		}
	}
	return false
}

// condCallNameRe finds the names of the calls in a condition.
var condCallNameRe = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(`)

// reportLocklessAdded reports wake-up w, made after the unordered store
// at line store, with the interleaving that loses it.
func (r *checker) reportLocklessAdded(nw *wfunc, w *wsite, store int) {
	obj := normArg(w.Arg)
	storeText := strings.TrimSpace(nw.text(store))
	f := report.Finding{
		Category: CategoryBarrier,
		Severity: report.SeverityNote,
		File:     nw.File, Func: nw.Name, Line: w.Line(), Key: w.Q,
		Message:  fmt.Sprintf("%s() after a store to %s with no full barrier between them", w.Call.Name, obj),
		Evidence: []string{nw.evidence(store), nw.evidence(w.Line())},
	}
	waiters := sameBitWaiters(w, r.waitersOf(w.Q), nw)
	if r.orderedByLock(nw, w, waiters) != "" {
		return
	}
	advice := "smp_mb__after_atomic() after a bit operation or an atomic, smp_mb() after a plain store"
	if w.Call.Name == "wake_up_bit" {
		advice = "smp_mb__after_atomic() between them, or clear_and_wake_up_bit()"
	}
	if len(waiters) == 0 {
		f.Explanation = fmt.Sprintf("%s() tests for sleepers on %s without a lock and without a barrier of its own; its kernel-doc asks the caller for a full barrier after the store the sleepers wait for (%s). No sleeper of %s was found (a tree shows them), so this is a note.",
			w.Call.Name, w.Q, advice, w.Q)
		r.add(f)
		return
	}
	s := waiters[0]
	cond := waitCond(s)
	if cond == "" {
		cond = "its condition"
	}
	var names []string
	for _, x := range waiters {
		names = appendUnique(names, siteWhere(x))
	}
	if len(names) > 3 {
		names = append(names[:3], "...")
	}
	f.Severity = report.SeverityRisk
	f.Chain = append(f.Chain,
		step(s, "sleeps on "+w.Q+": "+s.Text()),
		report.Step{Func: nw.Name, File: nw.File, Line: store, What: "store the sleepers wait for: " + storeText},
		step(w, "lockless test for sleepers, no barrier after the store: "+w.Text()))
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", s.Fn.Name+"()", [][2]string{
		{storeText, ""},
		{"  (store still in the store buffer)", s.Text()},
		{"", "  (queued; the barrier in prepare_to_wait())"},
		{"", "checks " + cond + ": old value"},
		{strings.TrimSuffix(w.Text(), ";") + ": no sleeper seen", ""},
		{"  -> nobody woken", "schedule(): sleeps, nobody wakes it"},
	})...)
	f.Explanation = fmt.Sprintf("%s() looks for sleepers on %s with waitqueue_active(), without the queue's lock and without a barrier of its own, and the store before it (%s) is not ordered before that load: a release, an unlock or a plain atomic is no full barrier. A sleeper (%s) queues itself and then tests its condition; each side can read the other's old value, as shown, and the sleeper waits for a wake-up that saw nobody. The kernel-doc of %s() asks for %s.",
		w.Call.Name, w.Q, storeText, strings.Join(names, ", "), w.Call.Name, advice)
	r.add(f)
}
