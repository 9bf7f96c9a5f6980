package wakeup

import (
	"fmt"
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
const maxEntryDepth = 3

// entryLocks returns the typed locks every caller of f that the tree
// knows (at most maxCallers) holds at its call, counting what their own
// callers hold, up to depth levels; none when f has no known caller or
// too many. A static function's callers are those of its file.
func (r *checker) entryLocks(f *wfunc, depth int) []heldLock {
	if r.tree == nil || f == nil || f.F == nil || depth <= 0 {
		return nil
	}
	memo := fmt.Sprintf("%s:%s:%d", f.File, f.Name, depth)
	if hs, ok := r.entryHeld[memo]; ok {
		return hs
	}
	if r.entryHeld == nil {
		r.entryHeld = map[string][]heldLock{}
	}
	r.entryHeld[memo] = nil // a recursive call holds nothing more
	var out []heldLock
	n := 0
	for _, cs := range r.pass.Index.Callers(f.Name) {
		if cs.Func == nil || cs.Func.Name == f.Name || (f.F.Static && r.tree.relPath(cs.Func.File) != f.File) {
			continue
		}
		n++
		if n > maxCallers {
			out = nil
			break
		}
		held := r.typedHeldAt(r.tree.view(cs.Func), cs.Call.Line, depth-1)
		if n == 1 {
			out = held
			continue
		}
		var both []heldLock
		for _, h := range out {
			if typedHeld(held, h.typed) {
				both = append(both, h)
			}
		}
		out = both
		if len(out) == 0 {
			break
		}
	}
	r.entryHeld[memo] = out
	return out
}

// typedHeldAt returns the typed locks f holds just before line: its own
// and, depth levels up, its callers' that it has not released before
// line.
func (r *checker) typedHeldAt(f *wfunc, line, depth int) []heldLock {
	var held []heldLock
	for _, h := range r.locksAt(f, line) {
		if h.typed != "" && !typedHeld(held, h.typed) {
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
// it touches the shared state: it takes the lock (by h's key or its typed
// key), asserts it, or runs with every caller holding it and has not
// released it before line.
func (r *checker) peerHolds(f *wfunc, h heldLock, line int) bool {
	if r.takesLock(f, h.key) || r.assertsHeld(f, h.key) {
		return true
	}
	if h.typed == "" || f == nil || f.F == nil {
		return false
	}
	for k, tk := range r.walkLocks(f).typed {
		if tk == h.typed && r.walkLocks(f).taken[k] {
			return true
		}
	}
	return typedHeld(r.entryLocks(f, maxEntryDepth), h.typed) && !r.releasedTypedBefore(f, h.typed, line)
}
