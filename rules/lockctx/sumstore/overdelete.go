package sumstore

import (
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// maxOverDelete bounds the functions overDelete dirties before the
// climb falls back to dirtying everything above a loss.
const maxOverDelete = maxSettle

// overDelete handles a function x whose summary in the view (val, as
// value encodes it) lost something its stored one (stored) has: the
// first half of delete-and-rederive. A stored summary may hold a fact
// only because it was derived through x's lost one, possibly round a
// recursive component (members of a component computed from each other
// would keep it forever), so every function above x whose stored
// summary holds a fact with a lost origin is dirtied: the analysis
// summarises it again, from the code. A fact's origin is where its
// chain ends (the primitive call: a sleep, a lock, a release), which
// every caller's chain built on it keeps, drops included; every other
// caller keeps its stored summary, since each of its facts comes from
// an origin that still holds. The dirtied functions are queued, so that
// what their new summaries gain climbs on (a lock no longer taken can
// give a caller a reach).
//
// It reports false, dirtying nothing, when the set exceeds
// maxOverDelete; the caller then dirties everything above x.
func (c *climb) overDelete(x index.Ref, stored []byte, val string) bool {
	lost := lostOrigins(stored, val)
	in := map[index.Ref]bool{x: true}
	var found []index.Ref
	frontier := []index.Ref{x}
	for len(frontier) > 0 {
		y := frontier[len(frontier)-1]
		frontier = frontier[:len(frontier)-1]
		over := false
		c.v.src.eachRdep(y, func(p index.Ref) {
			if over || in[p] || c.s.closed.has(p) {
				return
			}
			in[p] = true
			if !holdsOrigin(c.v.storedEnc(p), lost) {
				return
			}
			found = append(found, p)
			frontier = append(frontier, p)
			over = len(found) > maxOverDelete
		})
		if over {
			return false
		}
	}
	for _, p := range found {
		c.reached(x, p)
		c.over[p] = true
		c.s.dirty[p] = true
		if g := c.root.FuncOf(p); g != nil {
			c.e.Forget(g)
		}
		if !c.queued[p] {
			c.queued[p] = true
			c.queue = append(c.queue, p)
		}
	}
	return true
}

// unknownOrigin stands for a fact whose chain is empty: its origin is
// not known, so it may come from anything lost.
const unknownOrigin = "?"

// lostOrigins returns the origins of the facts of the stored summary
// that the summary in the view (val, as climb.value encodes it) lacks;
// every stored origin when val is not a single summary (deleted, missing,
// several versions).
func lostOrigins(stored []byte, val string) map[string]bool {
	was, ok := summary.Decode(stored)
	if !ok {
		return map[string]bool{unknownOrigin: true}
	}
	lost := origins(was)
	now, ok := summary.Decode([]byte(val))
	if !ok || strings.HasPrefix(val, "versions:") {
		return lost
	}
	for o := range origins(now) {
		delete(lost, o)
	}
	return lost
}

// holdsOrigin reports whether the encoded stored summary holds a fact
// of one of the origins in lost, or one of unknown origin.
func holdsOrigin(enc []byte, lost map[string]bool) bool {
	if len(lost) == 0 || enc == nil {
		return false // nothing lost, or nothing stored to keep it alive
	}
	s, ok := summary.Decode(enc)
	if !ok {
		return true
	}
	for o := range origins(s) {
		if o == unknownOrigin || lost[o] || lost[unknownOrigin] {
			return true
		}
	}
	return false
}

// origins returns the origins of s's facts: for each reach, effect and
// reach through an argument, its kind and the last step of its chain.
func origins(s *summary.Summary) map[string]bool {
	out := map[string]bool{}
	if s == nil {
		return out
	}
	add := func(kind string, steps []report.Step) {
		if len(steps) == 0 {
			out[unknownOrigin] = true
			return
		}
		l := steps[len(steps)-1]
		out[kind+"\x00"+l.File+"\x00"+strconv.Itoa(l.Line)+"\x00"+l.What] = true
	}
	effects := func(tag string, es []summary.Effect) {
		for _, e := range es {
			add(tag+e.Kind, e.Steps)
		}
	}
	reach := func(r *summary.Reach) {
		if r != nil {
			add("reach", r.Steps)
			effects("drop", r.Drops)
			effects("retake", r.Retakes)
		}
	}
	reach(s.Reach)
	reach(s.Alt)
	effects("acquire", s.Acquires)
	effects("acquire", s.CondAcquires)
	effects("drop", s.Drops)
	for i := range s.ArgReaches {
		reach(&s.ArgReaches[i].Reach)
	}
	return out
}
