package sumstore

import (
	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
)

// settle makes the dirty set: the tree functions whose summary in the
// view differs from the stored one, and which are therefore summarised
// again. It starts from the seeds (the sources, and the functions whose
// members changed) and climbs the reverse deps only as far as summaries
// change. A source's summary in the view is its new versions' (the
// function of that name in the rescanned file, the patch's functions of
// that name; none when it was deleted); another function's is computed
// again when one of its deps changed. A function whose summary comes out
// as stored stops the climb: most functions a patch touches gain no
// sleeping call and leave no lock held, and most callers of one that
// does already reached a sleeping call the same way, first.
//
// Functions are assumed unchanged until found changed, and everything
// summarised from a function that changes is summarised again (a
// worklist), so the result is a fixpoint. Where a change takes something
// away (a sleeping call, an effect), that assumption could keep a
// recursive component's stale summaries alive, so the stored summaries
// holding a fact derived through what was taken away are dirtied
// (overDelete), or, when they are too many, everything above such a
// change, as it is when the climb grows too long.
// The summaries computed here are dropped at the end: the analysis then
// summarises in its own order, as it would without a store (a recursive
// component's summaries depend on where it is entered).
func (v *View) settle(e Engine, seeds []index.Ref) {
	c := &climb{v: v, e: e, s: v.sources, root: v.ix.Underlying(), seeds: seeds,
		versions: map[index.Ref][]*cscan.Func{}, last: map[index.Ref]string{},
		queued: map[index.Ref]bool{}, consulted: map[index.Ref]map[index.Ref]bool{}, from: map[index.Ref]map[index.Ref]bool{},
		above: map[index.Ref]map[index.Ref]bool{},
		over:  map[index.Ref]bool{}}
	c.findVersions()
	c.queue = append([]index.Ref(nil), seeds...)
	for _, x := range c.queue {
		c.queued[x] = true
		c.from[x] = map[index.Ref]bool{x: true} // a seed's change is its own
	}
	for {
		for len(c.queue) > 0 {
			x := c.queue[0]
			c.queue = c.queue[1:]
			delete(c.queued, x)
			if c.visit(x) {
				return
			}
		}
		if c.revisitSources() {
			return
		}
		if len(c.queue) == 0 {
			break
		}
	}
	if c.closesCycle() {
		c.giveUp()
		return
	}
	// A tree function named like one of the patch's is not reached by
	// name any more; unless cut, it is dirty.
	s := c.s
	for ref := range s.funcs {
		if !s.cut[ref] && !s.files[ref.File()] {
			s.dirty[ref] = true
		}
	}
	e.Reset()
}

// climb is the state of one settle: the worklist over the reverse deps
// and each function's summary in the view as last computed.
type climb struct {
	v     *View
	e     Engine
	s     *patchSources
	root  *index.Index
	seeds []index.Ref
	// versions are the sources' new versions (none when deleted), sources
	// the sources in seed order.
	versions map[index.Ref][]*cscan.Func
	sources  []index.Ref
	// last is each visited function's encoded summary in the view; queue
	// and queued the worklist; work counts the visits.
	last   map[index.Ref]string
	queued map[index.Ref]bool
	queue  []index.Ref
	work   int
	// over are the functions overDelete dirtied: they stay dirty, whatever
	// the climb computes for them (it may read a member of their recursive
	// component that still holds the lost fact).
	over map[index.Ref]bool
	// consulted are the tree functions whose summaries the sources' new
	// versions were computed from (their deps, which the store does not
	// know: see revisitSources), each with the sources that read it.
	consulted map[index.Ref]map[index.Ref]bool
	// from are, for each function the climb found changed, the sources
	// whose change reached it (a source is its own).
	from map[index.Ref]map[index.Ref]bool
	// above are, per source isAbove asked about, the first functions above
	// it in the stored reverse deps (about maxSettle of them at most).
	above map[index.Ref]map[index.Ref]bool
}

// findVersions finds the new versions of the seeds that are sources: the
// functions of that name in the rescanned file and the patch's.
func (c *climb) findVersions() {
	s, v := c.s, c.v
	files := map[int]*cscan.File{}
	for _, ref := range c.seeds {
		if !s.files[ref.File()] && !s.funcs[ref] || s.paired[ref] != nil {
			continue
		}
		if _, ok := c.versions[ref]; ok {
			continue
		}
		var news []*cscan.Func
		if old := c.root.FuncOf(ref); old != nil {
			if s.files[ref.File()] {
				f, ok := files[ref.File()]
				if !ok {
					f = v.ix.File(old.File)
					files[ref.File()] = f
				}
				if f != nil {
					news = c.sameRank(ref, old, f)
				}
			}
			news = append(news, v.patch[old.Name]...)
		}
		c.versions[ref] = news
		c.sources = append(c.sources, ref)
	}
}

// sameRank returns the new versions in rescanned file f of old, the
// function ref: the definition of its name with its rank among that
// name's definitions when the file defines the name as often as before
// (a config stub beside the real function is the stub's version, not the
// real one's), else all of them.
func (c *climb) sameRank(ref index.Ref, old *cscan.Func, f *cscan.File) []*cscan.Func {
	var news []*cscan.Func
	for _, fn := range f.Funcs {
		if fn.Name == old.Name {
			news = append(news, fn)
		}
	}
	if len(news) < 2 {
		return news
	}
	rank, count := 0, 0
	for _, r := range c.root.FileRefs(ref.File()) {
		if fo := c.root.FuncOf(r); fo != nil && fo.Name == old.Name {
			if r == ref {
				rank = count
			}
			count++
		}
	}
	if count != len(news) {
		return news
	}
	return news[rank : rank+1]
}

// value returns x's summary in the view, encoded (the new versions' for
// a source), and whether it lost something stored has.
func (c *climb) value(x index.Ref, storedEnc []byte) (string, bool) {
	v, s := c.v, c.s
	stored, _ := summary.Decode(storedEnc)
	if news, ok := c.versions[x]; ok {
		if len(news) == 0 {
			return "deleted", true
		}
		var enc []byte
		lost := false
		read := map[index.Ref]bool{}
		v.consulted = read
		defer func() {
			v.consulted = nil
			for ref := range read {
				if c.consulted[ref] == nil {
					c.consulted[ref] = map[index.Ref]bool{}
				}
				c.consulted[ref][x] = true
			}
		}()
		for _, fn := range news {
			sum := c.e.SummaryOf(fn)
			enc = summary.Append(enc, sum)
			lost = lost || lessThan(sum, stored)
		}
		if len(news) == 1 {
			return string(enc), lost
		}
		return "versions:" + string(enc), lost
	}
	fn := s.paired[x] // an unchanged function of a rescanned file: its new version
	if fn == nil {
		fn = c.root.FuncOf(x)
	}
	if fn == nil {
		return "missing", true
	}
	s.dirty[x] = true // summarised again below, whatever stored says
	c.e.Forget(fn)
	sum := c.e.SummaryOf(fn)
	return string(summary.Append(nil, sum)), lessThan(sum, stored)
}

// closesCycle reports whether a source's new version was computed from a
// function whose summary the change changed and which lies above that
// source, closing a cycle through the change (a changed function that now
// calls what calls it). A recursive component's summaries depend on where
// it is entered, and the climb entered it elsewhere than the analysis
// will: everything above the change is summarised again. (A function the
// climb found as stored is read as stored by the analysis too; inside a
// component the patch creates, the analysis summarises it again, and its
// chains may differ.) A consulted function changed by another source's
// change and not above the source reading it closes no cycle: that source
// is summarised again with it (revisitSources). "Above" is read in the
// stored reverse deps, which do not hold the calls the patch adds: a cycle
// closed by two new calls between two changed functions is not seen
// there. A consulted function dirtied with everything above a loss
// (closed) and never reached by the climb came from no known source, and
// counts. The climb stops as soon as it finds one: a function of
// consulted found changed, or a source's new version reading one.
func (c *climb) closesCycle() bool {
	for ref, readers := range c.consulted {
		if !c.s.isDirty(ref) || c.versions[ref] != nil {
			continue
		}
		from := c.from[ref]
		if from == nil {
			return true // dirtied with everything above a loss: no known source
		}
		for src := range readers {
			if from[src] || c.isAbove(ref, src) {
				return true
			}
		}
	}
	return false
}

// isAbove reports whether ref lies above src in the stored reverse deps
// (it calls src, at any depth), among the first maxSettle functions above
// src. Past them it answers no: a source low in the call graph has much
// of the kernel above it (ops members resolved to every implementation),
// and giving up for each such read would dirty everything above every
// two-function patch. A cycle missed there makes a recursive component's
// summaries those of another entry into it, which differ in their
// chains.
func (c *climb) isAbove(ref, src index.Ref) bool {
	up, ok := c.above[src]
	if !ok {
		up = map[index.Ref]bool{}
		queue := []index.Ref{src}
		for len(queue) > 0 && len(up) <= maxSettle {
			x := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			c.v.src.eachRdep(x, func(p index.Ref) {
				if !up[p] {
					up[p] = true
					queue = append(queue, p)
				}
			})
		}
		c.above[src] = up
	}
	return up[ref]
}

// reached records that the change of x, whose summary moved, reaches p
// above it: p's change comes from x's sources.
func (c *climb) reached(x, p index.Ref) {
	if c.from[p] == nil {
		c.from[p] = map[index.Ref]bool{}
	}
	for src := range c.from[x] {
		c.from[p][src] = true
	}
}

// giveUp dirties everything above the seeds: what the climb visited and
// everything above it (the seeds' closure holds both).
func (c *climb) giveUp() {
	for _, x := range c.seeds {
		c.v.markDirty(x)
	}
	c.e.Reset()
}

// visit summarises x in the view, marks it cut, clean or dirty, and
// queues its reverse deps when its summary moved; it reports whether the
// climb is over (given up).
func (c *climb) visit(x index.Ref) bool {
	v, s := c.v, c.s
	c.work++
	s.climbed = c.work
	if c.work > maxSettle {
		for _, y := range append(c.queue, x) {
			v.markDirty(y)
		}
		c.e.Reset()
		return true
	}
	if s.closed.has(x) {
		return false
	}
	enc := v.storedEnc(x)
	val, lost := c.value(x, enc)
	stored := string(enc)
	same := val == stored
	_, isSource := c.versions[x]
	switch {
	case isSource && same:
		s.cut[x] = true
	case isSource:
		delete(s.cut, x)
	case same && !c.over[x]:
		delete(s.dirty, x) // as stored: x stays clean
	default:
		s.dirty[x] = true
	}
	if (isSource || s.dirty[x]) && c.closesCycle() {
		c.giveUp()
		return true
	}
	prev, ok := c.last[x]
	if !ok {
		prev = stored // what its callers' stored summaries used
	}
	c.last[x] = val
	if prev == val {
		return false // nothing new for its callers
	}
	if lost && !same && !c.overDelete(x, enc, val) {
		v.markDirty(x)
		if c.closesCycle() {
			c.giveUp()
			return true
		}
		return false
	}
	v.forgetAbove(c.e, x)
	v.src.eachRdep(x, func(p index.Ref) {
		c.reached(x, p)
		if !c.queued[p] && !s.closed.has(p) {
			c.queued[p] = true
			c.queue = append(c.queue, p)
		}
	})
	return false
}

// revisitSources queues again the sources whose summary moved with what
// changed since it was computed: the new versions' own deps are not in
// the store. It reports whether the climb is over (given up).
func (c *climb) revisitSources() bool {
	for _, x := range c.sources {
		for _, fn := range c.versions[x] {
			c.e.Forget(fn)
		}
		val, _ := c.value(x, c.v.storedEnc(x))
		if c.closesCycle() {
			c.giveUp()
			return true
		}
		if val != c.last[x] && !c.queued[x] {
			c.queued[x] = true
			c.queue = append(c.queue, x)
		}
	}
	return false
}

// forgetAbove drops the summaries e computed that may have used x's
// previous summary in the view: those of the functions above x, as far
// as they were summarised.
func (v *View) forgetAbove(e Engine, x index.Ref) {
	root := v.ix.Underlying()
	seen := map[index.Ref]bool{x: true}
	queue := []index.Ref{x}
	for len(queue) > 0 {
		y := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		v.src.eachRdep(y, func(p index.Ref) {
			if seen[p] {
				return
			}
			seen[p] = true
			if fn := root.FuncOf(p); fn != nil && e.Forget(fn) {
				queue = append(queue, p)
			}
		})
	}
	// The patch's own functions are not in the store: drop them all.
	for _, fns := range v.patch {
		for _, fn := range fns {
			e.Forget(fn)
		}
	}
	for _, p := range v.ix.OverlaidPaths() {
		if f := v.ix.File(p); f != nil {
			for _, fn := range f.Funcs {
				e.Forget(fn)
			}
		}
	}
}

// lessThan reports whether s lacks something stored has: a reach, an
// effect, a reach through an argument.
func lessThan(s, stored *summary.Summary) bool {
	if stored == nil {
		return false
	}
	if s == nil {
		return true
	}
	return stored.Reach != nil && s.Reach == nil || stored.Alt != nil && (s.Alt == nil || !summary.SameCond(stored.Alt.Cond, s.Alt.Cond)) || len(s.Acquires) < len(stored.Acquires) ||
		len(s.CondAcquires) < len(stored.CondAcquires) || len(s.Drops) < len(stored.Drops) ||
		len(s.ArgReaches) < len(stored.ArgReaches)
}
