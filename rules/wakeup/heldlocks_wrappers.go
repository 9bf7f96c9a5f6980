package wakeup

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// Lock wrappers: a driver's foo_lock(dev), foo_trylock(dev) and
// foo_unlock(dev) that take, try or release a lock of the object they are
// handed (dm_bufio_lock(c) taking c->lock; a trylock wrapper returns the
// primitive's answer). With a tree, the lock walk reads a call of such a helper as
// the primitive call it makes, on the caller's object: foo_lock(c) is
// mutex_lock(&c->lock), keyed c.lock like a direct user of that lock. A
// helper that takes one of several locks by a condition (a spinlock for
// a no-sleep client, the mutex otherwise) is read as its last one, the
// branch its configuration falls through to.

// maxLockWrapperLines bounds the size of a function read as a lock
// wrapper.
const maxLockWrapperLines = 12

// lockWrapper is what a call of a lock wrapper does: the primitive call it
// makes, with the parameter its lock argument is rooted in.
type lockWrapper struct {
	prim cscan.Call
	// arg is the index of the primitive's lock argument; param the
	// wrapper's parameter it starts with, rest what follows it ("->lock").
	arg   int
	param int
	rest  string
}

// rootIdentRe splits a lock expression into the variable it starts with
// and the rest ("c->lock": "c", "->lock").
var rootIdentRe = regexp.MustCompile(`^\(?\s*([A-Za-z_]\w*)\s*(.*)$`)

// wrapperLock returns c as the primitive lock call it makes when c calls
// a lock wrapper, and false otherwise.
func (r *checker) wrapperLock(c cscan.Call, file string) (cscan.Call, bool) {
	if r.tree == nil || r.pass == nil || r.pass.Index == nil || r.p.locks.Classify(c).Op != lockmodel.None {
		return c, false
	}
	w := r.lockWrapperOf(c.Name, file)
	if w == nil || w.param >= len(c.Args) {
		return c, false
	}
	out := w.prim
	out.Line = c.Line
	out.Args = append([]string(nil), w.prim.Args...)
	out.Args[w.arg] = "&" + stripAddr(c.Args[w.param]) + w.rest
	return out, true
}

// lockWrapperOf returns the wrapper a call of name from file reaches
// (memoised per run), nil when it is none: a small function whose lock primitives,
// on a lock reached through one of its parameters, all take or all
// release.
func (r *checker) lockWrapperOf(name, file string) *lockWrapper {
	// Which definition a call reaches depends on the name and the
	// calling file alone: the memo spares the index lookup of every
	// other call of every walked function.
	memo := file + "|" + name
	if w, ok := r.lockWrappers[memo]; ok {
		return w
	}
	if r.lockWrappers == nil {
		r.lockWrappers = map[string]*lockWrapper{}
	}
	r.lockWrappers[memo] = nil
	fns := cscan.PickDefs(r.pass.Index.Funcs(name), file)
	if len(fns) == 0 || fns[0].End-fns[0].Start > maxLockWrapperLines {
		return nil
	}
	v := r.tree.view(fns[0])
	params := paramNames(v.header(), name)
	var w *lockWrapper
	op := lockmodel.None
	for _, c := range v.F.Calls {
		a := r.p.locks.Classify(c)
		if a.Op == lockmodel.None {
			continue
		}
		if (a.Op != lockmodel.Take && a.Op != lockmodel.Drop && a.Op != lockmodel.TryTake) || (op != lockmodel.None && a.Op != op) || a.Arg < 0 || a.Arg >= len(c.Args) {
			return nil
		}
		if a.Op == lockmodel.TryTake && !strings.HasPrefix(strings.TrimSpace(v.lines[c.Line]), "return") {
			return nil // a trylock wrapper returns the trylock's answer
		}
		op = a.Op
		m := rootIdentRe.FindStringSubmatch(stripAddr(c.Args[a.Arg]))
		if m == nil {
			return nil
		}
		p := -1
		for i, n := range params {
			if n != "" && n == m[1] {
				p = i
			}
		}
		if p < 0 {
			return nil
		}
		w = &lockWrapper{prim: c, arg: a.Arg, param: p, rest: strings.TrimSpace(m[2])}
	}
	r.lockWrappers[memo] = w
	return w
}
