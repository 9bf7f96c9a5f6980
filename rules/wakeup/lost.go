package wakeup

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// waitersOf returns the post-patch waiters of q: the new sides of the
// patch and, with a tree, every other function of the tree.
func (r *checker) waitersOf(q string) []*wsite {
	return r.postSites(siteWait, q)
}

// wakersOf returns the post-patch wakers of q.
func (r *checker) wakersOf(q string) []*wsite {
	return r.postSites(siteWake, q)
}

func (r *checker) postSites(kind siteKind, q string) []*wsite {
	var out []*wsite
	for _, f := range r.news {
		if f != nil {
			out = append(out, f.sitesOn(kind, q)...)
		}
	}
	if kind == siteWait && strings.HasPrefix(q, taskKeyPrefix) {
		out = append(out, r.taskWaiters[q]...)
	}
	if kind == siteWait {
		for _, a := range r.contextAliases(q) {
			out = append(out, r.postSites(kind, a)...)
		}
	}
	if r.tree != nil {
		for _, s := range r.tree.sitesOn(q) {
			if s.Kind == kind {
				out = append(out, s)
			}
		}
	}
	return out
}

// broadcast is why a waker runs on a path that makes the wait condition
// true for every waiter.
type broadcast struct {
	reasons  []string
	counters []string
	// flags are members set true just before the wake-up ("dev->dead =
	// true"): a chained wake-up testing them covers the broadcast.
	flags []string
	// strong is set by a release/hang-up path or poll key, as opposed to a
	// counter test alone.
	strong bool
}

// broadcastOf returns the broadcast evidence of waker w, nil if none.
func (r *checker) broadcastOf(w *wsite) *broadcast {
	b := &broadcast{}
	// A wake-up through a helper (release_sock()) is the helper's: the
	// caller's name says nothing of whom the helper's wake-up is for.
	if r.p.isBroadcastFunc(w.Fn.Name) && r.p.waker(w.Call.Name) != nil {
		b.reasons = append(b.reasons, fmt.Sprintf("%s() is a release/teardown path", w.Fn.Name))
		b.strong = true
	}
	if w.PollKey != "" {
		var bits []string
		for _, k := range r.p.pollKeys {
			if containsWord(w.PollKey, k) {
				bits = append(bits, k)
			}
		}
		if len(bits) > 0 {
			b.reasons = append(b.reasons, "the poll key carries "+strings.Join(bits, "|"))
			b.strong = true
		}
	}
	// Counters decremented and flags set just before the wake-up (the
	// same few lines), and decrements in its guards.
	var decs []string
	for line, text := range w.Fn.lines {
		if line >= w.Line() || line < w.Line()-decrementWindow {
			continue
		}
		for _, m := range flagSetRe.FindAllStringSubmatch(text, -1) {
			b.flags = appendUnique(b.flags, m[1])
		}
		for _, m := range decrementRe.FindAllStringSubmatch(text, -1) {
			for _, c := range m[1:] {
				if c != "" {
					decs = appendUnique(decs, c)
					break
				}
			}
		}
	}
	for _, g := range w.Call.Guards {
		if g.Kind != "if" && g.Kind != "case" {
			continue
		}
		if cs, ok := r.p.zeroCounters(g.Cond, append(decs, "")); ok {
			b.reasons = append(b.reasons, fmt.Sprintf("it runs when `%s` (a count dropped to zero)", strings.Join(strings.Fields(g.Cond), " ")))
			for _, c := range cs {
				b.counters = appendUnique(b.counters, c)
			}
		}
	}
	if len(b.reasons) == 0 {
		return nil
	}
	for _, c := range decs {
		b.counters = appendUnique(b.counters, c)
	}
	sort.Strings(b.counters)
	return b
}

// decrementWindow is how many lines before a waker a counter decrement
// counts as part of its path.
const decrementWindow = 8

// chainCover is what one exclusive waiter does after it is woken.
type chainCover struct {
	waiter *wsite
	chain  *wsite // the chained wake-up of the same queue, nil if none
	covers bool
	why    string
}

// chainOf finds the chained wake-up of waiter e's queue in e's function
// after the wait and says whether it fires whenever the broadcast
// condition b holds.
func (r *checker) chainOf(e *wsite, b *broadcast) chainCover {
	cc := chainCover{waiter: e}
	var best *wsite
	for _, s := range e.Fn.sitesOn(siteWake, e.Q) {
		if s.Line() <= e.Line() {
			continue
		}
		best = s
		extra := extraGuards(s.Call.Guards, e.Call.Guards)
		ok, why := r.guardsCover(extra, b)
		if ok {
			cc.chain, cc.covers, cc.why = s, true, why
			return cc
		}
		cc.why = why
	}
	cc.chain = best
	if best == nil {
		cc.why = fmt.Sprintf("%s() does not wake %s again after its wait", e.Fn.Name, e.Q)
	}
	return cc
}

// guardsCover reports whether every guard is true whenever the broadcast
// condition holds: each must have a disjunct testing one of the broadcast
// counters for zero (any zero test when the counters are unknown).
func (r *checker) guardsCover(gs []cscan.Guard, b *broadcast) (bool, string) {
	for _, g := range gs {
		switch g.Kind {
		case "loop", "scoped_guard":
			continue
		case "if", "case":
		default:
			return false, fmt.Sprintf("the chained wake-up sits in an %s branch", g.Kind)
		}
		covered := false
		for _, d := range splitOr(g.Cond) {
			for _, fl := range b.flags {
				if testsFlag(d, fl) {
					covered = true
				}
			}
			cs, ok := r.p.zeroCounters(d, nil)
			if !ok {
				continue
			}
			if len(b.counters) == 0 {
				covered = true
			}
			for _, c := range cs {
				if contains(b.counters, c) {
					covered = true
				}
			}
		}
		if !covered {
			cond := strings.Join(strings.Fields(g.Cond), " ")
			why := fmt.Sprintf("the chained wake-up only fires when `%s`, which does not test the broadcast condition", cond)
			for _, w := range identWords(cond) {
				if r.p.isChainVar(w) {
					why = fmt.Sprintf("the chained wake-up is gated by `%s` (a pass-it-on flag), which does not fire for the broadcast condition", cond)
				}
			}
			return false, why
		}
	}
	if len(gs) == 0 {
		return true, "the woken waiter always wakes the next one"
	}
	var cs []string
	for _, g := range gs {
		cs = append(cs, strings.Join(strings.Fields(g.Cond), " "))
	}
	return true, fmt.Sprintf("the chained wake-up fires when `%s`, which includes the broadcast condition", strings.Join(cs, " && "))
}

// checkLost is the lost-wakeup rule (7): a queue with exclusive waiters and
// a waker on a broadcast path that wakes only one of them, unless each
// woken waiter passes the wake-up on.
func (r *checker) checkLost(introduced, changedWakers map[string][]*wsite) {
	keys := map[string]bool{}
	for k := range introduced {
		keys[k] = true
	}
	for k := range changedWakers {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, q := range sorted {
		if strings.HasPrefix(q, "completion:") || strings.HasPrefix(q, "var:") {
			continue
		}
		var excl []*wsite
		for _, s := range r.waitersOf(q) {
			if isQueueWait(s) && s.Exclusive {
				excl = append(excl, s)
			}
		}
		if len(excl) == 0 {
			continue
		}
		wakers := changedWakers[q]
		if len(introduced[q]) > 0 {
			wakers = r.wakersOf(q)
		}
		seen := map[*wsite]bool{}
		for _, w := range wakers {
			if seen[w] {
				continue
			}
			seen[w] = true
			if b, ex := r.lostCandidate(q, w, excl); b != nil {
				if len(introduced[q]) == 0 && r.lostBefore(q, w, excl) {
					continue // the same single wake-up on the same path before the patch
				}
				var at *wsite
				if len(introduced[q]) > 0 && w.Fn.Side == ' ' {
					at = introduced[q][0]
				}
				r.reportLost(q, w, b, ex, len(introduced[q]) > 0, at)
			}
		}
	}
}

// lostBefore reports whether waker w's old version, the same call, was
// already a lost-wake-up candidate for the same exclusive waiters: a
// patch that only moves it (or changes what is around it) adds nothing.
func (r *checker) lostBefore(q string, w *wsite, excl []*wsite) bool {
	o := r.oldWaker(w)
	if o == nil || o.Call.Name != w.Call.Name || normLine(o.Text()) != normLine(w.Text()) {
		return false
	}
	b, _ := r.lostCandidate(q, o, excl)
	return b != nil
}

// lostCandidate returns the broadcast evidence of a waker that wakes
// fewer than all of the exclusive waiters excl on a broadcast path, nil
// when it is not one.
func (r *checker) lostCandidate(q string, w *wsite, excl []*wsite) (*broadcast, []*wsite) {
	if weakKey(q) {
		// sk_sleep(sk) or an untyped pointer's field: the same key may
		// name unrelated objects in different files.
		var same []*wsite
		for _, e := range excl {
			if e.Fn.File == w.Fn.File {
				same = append(same, e)
			}
		}
		excl = same
	}
	excl = sameSubsystem(excl, w)
	if len(excl) == 0 || w.Kind != siteWake || w.Breadth == "all" || isChainWake(w, excl) {
		return nil, nil
	}
	b := r.broadcastOf(w)
	if b == nil {
		b = r.terminalBroadcast(w, excl)
	}
	if b == nil {
		return nil, nil
	}
	if !b.strong && !r.countersRelated(b.counters, excl) {
		// Only a count hint, and the count is not what the waiters wait
		// for (a request's refcount, say).
		return nil, nil
	}
	return b, excl
}

// maxWaiterDirs is how many directories the exclusive waiters of a queue
// may sit in for all of them to count as the waker's.
const maxWaiterDirs = 2

// sameSubsystem returns the exclusive waiters excl that may wait on the
// object waker w wakes: all of them, unless w wakes through a helper (a
// socket's sk_error_report()) and they sit in more than maxWaiterDirs
// directories, which makes the queue a generic type's (a socket's wait
// queue, used by every protocol for its own sockets): then only those of
// w's directory. A wake-up the code makes itself (the type's own library
// waking any object of it) keeps them all.
func sameSubsystem(excl []*wsite, w *wsite) []*wsite {
	if !w.Derived && w.Obj == "" {
		return excl
	}
	dirs := map[string]bool{}
	for _, e := range excl {
		dirs[path.Dir(e.Fn.File)] = true
	}
	if len(dirs) <= maxWaiterDirs {
		return excl
	}
	var out []*wsite
	for _, e := range excl {
		if path.Dir(e.Fn.File) == path.Dir(w.Fn.File) {
			out = append(out, e)
		}
	}
	return out
}

// weakKey reports whether a queue key may name different objects in
// different files: a call result ("sk_sleep()") or a field of a pointer of
// unknown type ("*.wait").
func weakKey(q string) bool {
	return strings.HasSuffix(q, "()") || strings.HasPrefix(q, "*.")
}

// reportLost reports the single wake-up w of exclusive waiters excl on a
// broadcast path. at, when set, is the exclusive wait the patch
// introduced and w a waker outside the patch: the finding is placed on
// the patch's line, with the waker in its chain.
func (r *checker) reportLost(q string, w *wsite, b *broadcast, excl []*wsite, introduced bool, at *wsite) {
	var covers, gaps []chainCover
	for _, e := range excl {
		cc := r.chainOf(e, b)
		if cc.covers {
			covers = append(covers, cc)
		} else {
			gaps = append(gaps, cc)
		}
	}
	cond := "the wait condition becomes true for every waiter"
	if len(b.counters) > 0 {
		cond = fmt.Sprintf("the counts %s change", strings.Join(b.counters, ", "))
	}
	where := b.reasons[0]
	f := report.Finding{
		Category: CategoryLostWakeup,
		File:     w.Fn.File, Func: w.Fn.Name, Line: w.Line(), Key: q,
		Evidence: []string{w.Fn.evidence(w.Line())},
	}
	if o := r.oldWaker(w); o != nil {
		f.Old = []string{o.Fn.evidence(o.Line())}
	}
	if at != nil {
		f.File, f.Func, f.Line = at.Fn.File, at.Fn.Name, at.Line()
		f.Evidence = []string{at.Fn.evidence(at.Line()), fmt.Sprintf("%s:%d %s(): %s", w.Fn.File, w.Line(), w.Fn.Name, w.Fn.evidence(w.Line()))}
	}
	for _, e := range excl {
		f.Chain = append(f.Chain, step(e, "waits exclusively: "+e.Text()))
	}
	f.Chain = append(f.Chain, step(w, describeBreadth(w)+" on a broadcast path ("+strings.Join(b.reasons, "; ")+"): "+w.Text()))
	for _, cc := range append(append([]chainCover(nil), covers...), gaps...) {
		if cc.chain != nil {
			f.Chain = append(f.Chain, step(cc.chain, "chained wake-up: "+cc.chain.Text()+" ("+cc.why+")"))
		}
	}
	for _, e := range excl {
		// Waiters live elsewhere: name where.
		f.Evidence = append(f.Evidence, fmt.Sprintf("%s:%d %s(): %s", e.Fn.File, e.Line(), e.Fn.Name, e.Fn.evidence(e.Line())))
	}
	var waiterNames []string
	for _, e := range excl {
		waiterNames = appendUnique(waiterNames, e.Fn.Name+"()")
	}
	if len(gaps) == 0 {
		f.Severity = report.SeverityNote
		f.Message = fmt.Sprintf("single wake-up of %s on a broadcast path is passed on by the woken waiter", q)
		var whys []string
		for _, cc := range covers {
			whys = append(whys, fmt.Sprintf("%s(): %s", cc.waiter.Fn.Name, cc.why))
		}
		f.Explanation = fmt.Sprintf("%s() wakes %s with %s, which %s, when %s (%s). The exclusive waiters (%s) pass the wake-up on, so every waiter sees it: %s.",
			w.Fn.Name, q, w.Call.Name, describeBreadth(w), cond, strings.Join(b.reasons, "; "), strings.Join(waiterNames, ", "), strings.Join(whys, "; "))
		r.add(f)
		return
	}
	f.Severity = report.SeverityRisk
	var gapNames, whys []string
	for _, cc := range gaps {
		gapNames = appendUnique(gapNames, cc.waiter.Fn.Name+"()")
		whys = append(whys, cc.why)
	}
	f.Message = fmt.Sprintf("lost wake-up: %s() wakes only one exclusive waiter of %s, but %s", w.Fn.Name, q, where)
	origin := "now waits"
	if !introduced {
		origin = "waits"
	}
	f.Explanation = fmt.Sprintf("%s %s exclusively on %s, so a single wake-up wakes only one of them. %s() wakes %s with %s, which %s, "+
		"on a path where %s (%s). Only one waiter sees it; the others keep sleeping although their wait condition is now true, and can hang for good (for a pipe: readers that never see EOF, writers that never see EPIPE). "+
		"No chained wake-up covers it: %s. Wake every waiter on this path (a *_all wake-up such as wake_up_interruptible_all()), "+
		"or make the woken waiter pass the wake-up on whenever the broadcast condition holds (test it in the chained wake-up's guard, as in `if (!dev->users || wake_next)`).",
		strings.Join(gapNames, ", "), origin, q, w.Fn.Name, q, w.Call.Name, describeBreadth(w), cond, strings.Join(b.reasons, "; "), strings.Join(whys, "; "))
	r.add(f)
}

// oldWaker returns the pre-patch version of a new-side waker, if any.
func (r *checker) oldWaker(w *wsite) *wsite {
	for i, nw := range r.news {
		if nw != w.Fn {
			continue
		}
		return r.counterpart(r.olds[i], w, map[*wsite]bool{})
	}
	return nil
}

func containsWord(s, w string) bool {
	for _, x := range identWords(s) {
		if x == w {
			return true
		}
	}
	return false
}

// identWords splits text into identifiers.
func identWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
}

// isChainWake reports whether w is an exclusive waiter's own chained
// wake-up (same function, after the wait): it passes a wake-up on rather
// than starting one.
func isChainWake(w *wsite, excl []*wsite) bool {
	for _, e := range excl {
		if e.Fn == w.Fn && w.Line() > e.Line() {
			return true
		}
	}
	return false
}

// testsFlag reports whether condition d tests member flag fl for true
// ("dev->dead", "READ_ONCE(dev->dead)"), not negated.
func testsFlag(d, fl string) bool {
	d = strings.TrimSpace(d)
	if strings.HasPrefix(d, "!") {
		return false
	}
	for _, suf := range []string{"->" + fl, "." + fl} {
		i := strings.Index(d, suf)
		if i < 0 {
			continue
		}
		end := i + len(suf)
		if end == len(d) || !cscan.IsIdentChar(d[end]) {
			return true
		}
	}
	return false
}

// countersRelated reports whether any of the counters appears in what one
// of the waiters waits for: the wait_event condition (with helpers it
// calls expanded from the patch or the tree), or the waiter's function for
// open-coded waits. A condition whose helpers cannot be read counts as
// related (unknown).
func (r *checker) countersRelated(counters []string, excl []*wsite) bool {
	if len(counters) == 0 {
		return true
	}
	for _, e := range excl {
		var text string
		switch {
		case e.WKind == "wait" && len(e.Call.Args) > 1:
			text = strings.Join(e.Call.Args[1:], " ")
			for _, name := range calledNames(text) {
				body, ok := r.funcText(name, e.Fn.File)
				if !ok {
					return true
				}
				text += "\n" + body
			}
		default:
			var b strings.Builder
			for _, l := range e.Fn.lines {
				b.WriteString(l)
				b.WriteByte('\n')
			}
			text = b.String()
		}
		for _, c := range counters {
			if containsWord(text, c) {
				return true
			}
		}
	}
	return false
}

// calledNames returns the names called in an expression.
func calledNames(expr string) []string {
	var out []string
	for _, m := range callInExprRe.FindAllStringSubmatch(expr, -1) {
		switch m[1] {
		case "READ_ONCE", "likely", "unlikely", "sizeof", "typeof":
			continue
		}
		out = appendUnique(out, m[1])
	}
	return out
}

// funcText returns the source of a function by name (the patch's new side
// first, then the tree, preferring the given file).
func (r *checker) funcText(name, file string) (string, bool) {
	join := func(f *wfunc) string {
		var b strings.Builder
		for _, l := range sortedLines(f) {
			b.WriteString(f.lines[l])
			b.WriteByte('\n')
		}
		return b.String()
	}
	for _, f := range r.news {
		if f != nil && f.Name == name {
			return join(f), true
		}
	}
	if r.tree == nil {
		return "", false
	}
	fns := r.pass.Index.Funcs(name)
	if len(fns) == 0 {
		return "", false
	}
	best := fns[0]
	for _, fn := range fns {
		if r.tree.relPath(fn.File) == file {
			best = fn
		}
	}
	tf := r.tree.file(r.tree.relPath(best.File))
	if best.Start < 1 || best.End > tf.lines.Len() || best.End < best.Start {
		return "", false
	}
	return tf.lines.Span(best.Start-1, best.End), true
}
