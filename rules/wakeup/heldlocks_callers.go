package wakeup

import (
	"fmt"
	"strings"
)

// Locks a function runs under because its callers hold them: a helper
// that wakes, or queues a sleeper, under a lock its callers took
// (__free_buffer_wake() under the client lock of every caller,
// __wait_for_free_buffer() queueing itself before it drops that lock).
// Whether a lock orders a waker against its sleepers is asked of both
// sides with the locks their callers hold counted. A caller names the
// lock through its own variables, so a lock crosses a call only by its
// typed key (the struct type that holds it, or a global's name): the
// lock of a struct dm_bufio_client is one lock whether a caller calls
// the client c or current_client.

// maxEntryDepth bounds how many callers up entry locks are followed.
const maxEntryDepth = 4

// entryLocks returns the typed locks every caller of f that the tree
// knows (at most maxCallers) holds on every path to its call, counting
// what their own callers hold, up to depth levels; none when f has no
// known caller or too many, or when f is also installed in a struct
// member (an ops table, a callback), whose callers the index does not
// list. A static function's callers are those of its file. A caller
// whose own entry locks are being computed (recursion) is taken to hold
// them, less what it releases before its call.
func (r *checker) entryLocks(f *wfunc, depth int) []heldLock {
	if r.tree == nil || f == nil || f.F == nil || depth <= 0 || len(r.pass.Index.AssignsOf(f.Name)) > 0 {
		return nil
	}
	memo := fmt.Sprintf("%s:%s:%d", f.File, f.Name, depth)
	if hs, ok := r.entryHeld[memo]; ok {
		return hs
	}
	if r.entryHeld == nil {
		r.entryHeld = map[string][]heldLock{}
	}
	if r.entryBusy == nil {
		r.entryBusy = map[string]bool{}
	}
	self := f.File + ":" + f.Name
	r.entryBusy[self] = true
	defer delete(r.entryBusy, self)
	var out []heldLock
	var names []string
	// busy are the call sites in callers whose own entry is being
	// computed (mutual recursion: rpm_resume() -> rpm_idle() ->
	// rpm_suspend() -> rpm_resume()): they are entered from the callers
	// counted for them, so a lock holds there unless that caller
	// released it before its call.
	type site struct {
		f    *wfunc
		line int
	}
	var busy []site
	guesses := r.entryGuesses
	n, constrained := 0, false
	for _, cs := range r.pass.Index.Callers(f.Name) {
		if cs.Func == nil || cs.Func.Name == f.Name || (f.F.Static && r.tree.relPath(cs.Func.File) != f.File) {
			continue
		}
		n++
		if n > maxCallers {
			out, constrained = nil, true
			break
		}
		if r.entryBusy[r.tree.relPath(cs.Func.File)+":"+cs.Func.Name] {
			busy = append(busy, site{r.tree.view(cs.Func), cs.Call.Line})
			r.entryGuesses++
			continue
		}
		held := r.typedHeldAt(r.tree.view(cs.Func), cs.Call.Line, depth-1)
		names = appendUnique(names, cs.Func.Name+"()")
		if !constrained {
			out, constrained = held, true
			continue
		}
		out = keepTyped(out, held)
		if len(out) == 0 {
			break
		}
	}
	for _, b := range busy {
		var kept []heldLock
		for _, h := range out {
			if !r.releasedTypedBefore(b.f, h.typed, b.line) {
				kept = append(kept, h)
			}
		}
		out = kept
	}
	if len(names) > 3 {
		names = append(names[:3], "...")
	}
	for i := range out {
		out[i].callers = strings.Join(names, ", ")
	}
	if r.entryGuesses == guesses {
		// What holds with a caller taken on trust, here or in a caller
		// further up, is not kept for the queries made when it is not
		// busy.
		r.entryHeld[memo] = out
	}
	return out
}

// keepTyped returns the locks of out that held also holds, by typed key.
func keepTyped(out, held []heldLock) []heldLock {
	var both []heldLock
	for _, h := range out {
		if typedHeld(held, h.typed) {
			both = append(both, h)
		}
	}
	return both
}

// typedHeldAt returns the typed locks f holds just before line: its own
// and, depth levels up, its callers' that it has not released before
// line.
func (r *checker) typedHeldAt(f *wfunc, line, depth int) []heldLock {
	var held []heldLock
	for _, h := range r.locksAt(f, line) {
		if h.typed != "" && h.must && !typedHeld(held, h.typed) {
			held = append(held, h)
		}
	}
	for _, h := range r.entryLocks(f, depth) {
		if !typedHeld(held, h.typed) && !r.releasedTypedBefore(f, h.typed, line) {
			held = append(held, h)
		}
	}
	return held
}

// typedHeld reports whether held has a lock of typed key t.
func typedHeld(held []heldLock, t string) bool {
	for _, h := range held {
		if t != "" && h.typed == t {
			return true
		}
	}
	return false
}

// releasedTypedBefore reports whether f releases the lock of typed key t
// before line (releasedBefore, by the key f names it with).
func (r *checker) releasedTypedBefore(f *wfunc, t string, line int) bool {
	for k, tk := range r.walkLocks(f).typed {
		if tk == t && r.releasedBefore(f, k, line) {
			return true
		}
	}
	return false
}

// heldWithCallers returns the locks f holds just before line: its own
// (locksAt) and the typed locks its callers hold that it has not released
// before line.
func (r *checker) heldWithCallers(f *wfunc, line int) []heldLock {
	held := r.locksAt(f, line)
	for _, h := range r.entryLocks(f, maxEntryDepth) {
		if !typedHeld(held, h.typed) && !r.releasedTypedBefore(f, h.typed, line) {
			held = append(held, h)
		}
	}
	return held
}

// peerHolds reports whether peer function f holds lock h at line, where
// it touches the shared state: it takes the lock, asserts it, or runs
// with every caller holding it and has not released it before line. A
// lock either side holds because its callers do is matched by its typed
// key; two locks the sides take themselves by their keys, as the rule
// always did.
func (r *checker) peerHolds(f *wfunc, h heldLock, line int) bool {
	if r.takesLock(f, h.key) || r.assertsHeld(f, h.key) {
		return true
	}
	if h.typed == "" || f == nil || f.F == nil {
		return false
	}
	// Two functions' own locks are matched by their keys, as before: a
	// type names every object's lock of that type.
	if h.callers != "" && r.takesTyped(f, h.typed) {
		return true
	}
	return typedHeld(r.entryLocks(f, maxEntryDepth), h.typed) && !r.releasedTypedBefore(f, h.typed, line)
}

// describe names a held lock for a finding: the call that took it, and
// for a lock the callers hold, which callers.
func (h heldLock) describe() string {
	if h.callers == "" {
		return h.text
	}
	return fmt.Sprintf("the lock its callers take (%s in %s)", h.text, h.callers)
}

// checksUnderLock is checksUnder for a lock h a waker holds, matched also
// by its typed key, as a lock the waker's callers hold is named by them:
// a waiter whose condition calls a helper that takes the lock of that
// type (put_unbound_pool()'s wq_manager_inactive(): raw_spin_lock_irq(
// &pool->lock)) looks at its state under it.
func (r *checker) checksUnderLock(s *wsite, h heldLock) bool {
	if h.callers == "" {
		return r.checksUnder(s, h.key)
	}
	if h.typed == "" {
		return false
	}
	for _, name := range calledNames(waitCond(s)) {
		for _, f := range r.funcsNamed(name, s.Fn.File) {
			if r.takesTyped(f, h.typed) {
				return true
			}
		}
	}
	return false
}

// takesTyped reports whether f takes a lock of typed key t itself.
func (r *checker) takesTyped(f *wfunc, t string) bool {
	w := r.walkLocks(f)
	for k, tk := range w.typed {
		if tk == t && w.taken[k] {
			return true
		}
	}
	return false
}

// heldAcross returns the locks nw holds at line and also at line at:
// its own taken once for both (the same acquisition), and its callers'
// by type.
func (r *checker) heldAcross(nw *wfunc, line, at int) []heldLock {
	atHeld := r.heldWithCallers(nw, at)
	var out []heldLock
	for _, h := range r.heldWithCallers(nw, line) {
		for _, a := range atHeld {
			if h.callers != "" && a.callers != "" && h.typed == a.typed || h.callers == "" && a.key == h.key && a.line == h.line {
				out = append(out, h)
				break
			}
		}
	}
	return out
}
