package wakeup

import (
	"regexp"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// The locks a function holds at a line are lockctx's answer: its walker
// follows the function's statement tree path-sensitively over the one
// lock model (irqsave/irqrestore, read and write sides, trylocks held when
// true, guard() to the end of its block, scoped_guard() over its body,
// unlocks on an exit path that leave the lock held where the path goes on,
// an unlock and re-lock around a sleep in a loop that leave it held at the
// loop's condition). Wakeup only keys what it is told: a lock is named by
// lockKey, so one object's lock reached through different expressions is
// one lock: the walk runs over a copy of the statement tree whose lock
// arguments are already those keys (heldlocks_probe.go), so that the
// walker pairs and merges by them. With a tree, a call of a lock wrapper
// walks as the primitive it makes (heldlocks_wrappers.go), each key also
// gets the typed key that names it across functions, and the locks a
// function's callers hold count where a rule asks whether a lock orders
// two sides (heldlocks_callers.go).

// lockWalk is what the walker saw of one function version.
type lockWalk struct {
	// lines are the lines of the calls and statements visited, sorted;
	// at is the state just before the first of each line, first its
	// call's name.
	lines []int
	at    map[int]lockctx.State
	first map[int]string
	// end is the state at the end of the body.
	end lockctx.State
	// taken are the keys of every lock held somewhere in the function.
	taken map[string]bool
	// guardTexts are the scoped_guard() calls by line, as written.
	guardTexts map[int]string
	// typed maps each lock key to its typed key (typedLockKey).
	typed map[string]string
}

// walkLocks walks f once (memoised per version) with the wakeup lock
// model over a resolver of the function alone: callees are not followed.
func (r *checker) walkLocks(f *wfunc) *lockWalk {
	if w, ok := r.lockWalks[f]; ok {
		return w
	}
	w := &lockWalk{at: map[int]lockctx.State{}, first: map[int]string{}, taken: map[string]bool{}, guardTexts: map[int]string{}, typed: map[string]string{}}
	if r.lockWalks == nil {
		r.lockWalks = map[*wfunc]*lockWalk{}
	}
	r.lockWalks[f] = w
	if r.p == nil || r.p.walkModel == nil {
		return w
	}
	note := func(st lockctx.State) {
		for _, h := range st.Held {
			if k := lockKey(h.Key); k != "" {
				w.taken[k] = true
			}
		}
	}
	if r.lockRes == nil {
		r.lockRes = lockctx.NewResolver(r.p.walkModel, nil, nil)
	}
	pr := &prober{m: r.p.walkModel, texts: w.guardTexts, vt: f.vt, fn: f.Name, file: f.File, typed: w.typed}
	if r.tree != nil {
		pr.wrap = func(c cscan.Call) (cscan.Call, bool) { return r.wrapperLock(c, f.File) }
	}
	probed := *f.F
	probed.Body = pr.block(f.F.Body, false)
	w.end = lockctx.Walk(r.lockRes, &probed, func(v lockctx.Visit) {
		note(v.State)
		l := v.Call.Line
		first, seen := w.first[l]
		switch {
		case !seen:
			w.lines = append(w.lines, l)
			w.first[l] = v.Call.Name
			w.at[l] = v.State
		case first == v.Call.Name && first != probeName:
			// A do loop's condition, visited again after the body.
			w.at[l] = v.State
		}
	})
	note(w.end)
	sort.Ints(w.lines)
	return w
}

// locksAt returns the locks f holds just before line, innermost last: the
// walker's state before the first statement or call at or after line (at
// the end of the body when there is none), held on every path there or
// on some (a lock an exit path releases is still held where the function
// goes on).
func (r *checker) locksAt(f *wfunc, line int) []heldLock {
	if f == nil || f.F == nil {
		return nil
	}
	w := r.walkLocks(f)
	st := w.end
	if i := sort.SearchInts(w.lines, line); i < len(w.lines) {
		st = w.at[w.lines[i]]
	}
	if st.Dead {
		return nil
	}
	var held []heldLock
	for _, h := range st.Held {
		k := lockKey(h.Key)
		if k == "" || heldAt(held, k) {
			continue
		}
		text := strings.TrimSpace(f.text(h.At.Line))
		if t, ok := w.guardTexts[h.At.Line]; ok || text == "" {
			text = t
		}
		held = append(held, heldLock{key: k, kind: h.Kind, text: text, line: h.At.Line, typed: w.typed[k], must: h.Must})
	}
	return held
}

// takesLock reports whether f holds the lock key anywhere, or is passed it
// (as in wait_event_lock_irq).
func (r *checker) takesLock(f *wfunc, key string) bool {
	if f == nil || f.F == nil || key == "" {
		return false
	}
	if r.walkLocks(f).taken[key] {
		return true
	}
	for _, c := range f.F.Calls {
		if k, ok := r.p.lockCall(c); ok && k == key {
			return true
		}
		if r.p.waiter(c.Name) != nil && strings.Contains(c.Name, "lock") {
			for _, a := range c.Args {
				if lockKey(a) == key {
					return true
				}
			}
		}
	}
	return false
}

// checksUnder reports whether waiter s looks at its state under lock key
// where that orders it after a waker holding the lock. A sleeper that
// re-checks a condition (wait_event*) must wait with the lock held or
// handed to the wait (wait_event_lock_irq()), or test the condition
// through a call that takes it (inline or in a helper): a woken task
// that re-checks without it reads a stale value and sleeps again,
// whatever the function does with the lock before or after the wait. A
// waiter with no condition of its own (a completion, a prepare_to_wait()
// loop whose test the table does not give) is judged by the lock taken
// anywhere in its function, as before.
func (r *checker) checksUnder(s *wsite, key string) bool {
	cond := waitCond(s)
	if cond == "" {
		return r.takesLock(s.Fn, key)
	}
	if heldAt(r.locksAt(s.Fn, s.Line()), key) {
		return true
	}
	if strings.Contains(s.Call.Name, "lock") {
		for _, a := range s.Call.Args {
			if lockKey(a) == key {
				return true
			}
		}
	}
	for _, m := range condLockCallRe.FindAllStringSubmatch(cond, -1) {
		if k, ok := r.p.lockCall(cscan.Call{Name: m[1], Args: strings.Split(m[2], ",")}); ok && k == key {
			return true
		}
	}
	for _, name := range calledNames(cond) {
		for _, h := range r.funcsNamed(name, s.Fn.File) {
			if r.takesLock(h, key) {
				return true
			}
		}
	}
	return false
}

// condLockCallRe finds the calls of a condition with their arguments
// (one level of parentheses inside).
var condLockCallRe = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(((?:[^()]|\([^()]*\))*)\)`)

// funcsNamed returns the functions called name as seen from file: the
// patch's new side, else the tree's definitions.
func (r *checker) funcsNamed(name, file string) []*wfunc {
	var out []*wfunc
	for _, f := range r.news {
		if f != nil && f.Name == name {
			out = append(out, f)
		}
	}
	if len(out) > 0 || r.tree == nil {
		return out
	}
	for _, fn := range cscan.PickDefs(r.pass.Index.Funcs(name), file) {
		out = append(out, r.tree.view(fn))
	}
	return out
}
