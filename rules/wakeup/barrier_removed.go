package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// The memory-ordering check (category barrier): a sleeper publishes
// itself (queues an entry, sets its task state) and then loads the
// condition; a waker stores the condition and then loads "is anybody
// sleeping?". Each side needs a full barrier between its store and its
// load (the store-buffering pair of memory-barriers.txt), or both must run
// under one lock. Hand-offs through a flag need release on the waker's
// store and acquire on the sleeper's load. The check finds ordering
// operations a patch removes or weakens in a function that sleeps or
// wakes, looks for the other side (the wakers or waiters of the same
// queues, or the functions of the file that order the same field), and
// whether a lock both sides take orders them anyway.

// orderOp is a memory-ordering operation of one function version.
type orderOp struct {
	call     cscan.Call
	strength string
}

// orderOps returns the ordering operations of f on changed lines.
func (r *checker) orderOps(f *wfunc) []orderOp {
	var out []orderOp
	if f == nil || f.F == nil {
		return nil
	}
	for _, c := range f.F.Calls {
		if !f.changed(c.Line) {
			continue
		}
		if s := r.p.ordering(c.Name); s != "" {
			out = append(out, orderOp{call: c, strength: s})
		}
	}
	return out
}

// covers reports whether an operation of strength a gives at least the
// ordering of one of strength b.
func covers(a, b string) bool {
	switch a {
	case "full":
		return true
	case "acquire":
		return b == "acquire" || b == "read"
	case "release":
		return b == "release" || b == "write"
	}
	return a == b
}

// peer is a function on the other side of a sleeper/waker pair.
type peer struct {
	fn, file string
	line     int
	text     string
	cond     string
	wf       *wfunc
}

func peerOf(s *wsite) peer {
	return peer{fn: s.Fn.Name, file: s.Fn.File, line: s.Line(), text: s.Text(), cond: waitCond(s), wf: s.Fn}
}

// checkOrdering reports ordering operations removed or weakened in a
// function that takes part in a sleep/wake protocol.
func (r *checker) checkOrdering() {
	for i := range r.pass.Change.Funcs {
		old, nw := r.olds[i], r.news[i]
		if old == nil || nw == nil {
			continue
		}
		if !r.checkLockedWake(old, nw) {
			r.checkLockRemoved(old, nw)
			r.checkStoreLockRemoved(old, nw)
			r.checkDecisionBeforeLock(old, nw)
		}
		r.checkHelperBreadth(old, nw)
		r.checkQueueingSnapshot(old, nw)
		removed := r.orderOps(old)
		if len(removed) == 0 {
			continue
		}
		added := r.orderOps(nw)
		// A new wait primitive sets the task state with a full barrier
		// (prepare_to_wait*, wait_event*).
		for _, st := range nw.Sites {
			if st.Kind == siteWait && (st.WKind == "wait" || strings.HasPrefix(st.Call.Name, "prepare_to_")) && st.Changed() {
				added = append(added, orderOp{call: st.Call, strength: "full"})
			}
		}
		used := make([]bool, len(added))
		ro := r.rolesOf(old, nw)
		if !ro.sleeper() && !ro.waker() {
			// A helper of waiters' conditions is on their side.
			ro.waitQs = r.condHelperQueues(nw.Name)
		}
		if !ro.sleeper() && !ro.waker() {
			continue
		}
		for _, o := range removed {
			if r.p.actives[o.call.Name] != nil || r.p.unlinks[o.call.Name] != nil {
				continue // checkActive and the wake-function check own these
			}
			replaced := false
			for j, a := range added {
				if !used[j] && covers(a.strength, o.strength) && !r.misplacedFull(nw, a) {
					used[j], replaced = true, true
					break
				}
			}
			if replaced || r.stateSetBeforeSleep(old, o) || r.redundantFull(old, nw, o) || r.orderedOnward(old, nw, o) || r.movedIntoHelper(old, nw, o) {
				continue
			}
			r.reportOrdering(old, nw, o, added, ro)
		}
	}
}

// weakenedTo names the added call that replaces a removed ordering
// operation with a weaker form on the same change block, "" if none.
func (r *checker) weakenedTo(old, nw *wfunc, o orderOp) string {
	b := r.blockOf(old, o.call.Line)
	if b == 0 || nw.F == nil {
		return ""
	}
	base := strings.TrimPrefix(strings.TrimPrefix(o.call.Name, "__"), "smp_")
	for _, c := range nw.F.Calls {
		if !nw.changed(c.Line) || r.blockOf(nw, c.Line) != b {
			continue
		}
		n := strings.TrimPrefix(c.Name, "__")
		switch {
		case n == base, c.Name == "__"+o.call.Name:
			return c.Name
		case r.p.actives[c.Name] != nil, c.Name == "READ_ONCE", c.Name == "WRITE_ONCE":
			return c.Name
		case strings.HasPrefix(c.Name, "atomic") && strings.HasPrefix(o.call.Name, "atomic"):
			return c.Name
		}
	}
	for l, t := range nw.lines {
		if nw.changed(l) && r.blockOf(nw, l) == b {
			for _, a := range o.call.Args {
				a = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(a), "&"))
				if a != "" && strings.Contains(t, a) {
					return "a plain access to " + a
				}
			}
		}
	}
	return ""
}

func (r *checker) reportOrdering(old, nw *wfunc, o orderOp, added []orderOp, ro roles) {
	line := o.call.Line
	opText := strings.TrimSpace(old.text(line))
	before, after, fields := orderedPair(old, o)
	for _, a := range added {
		// The barrier that stands in for it sits before the store: the
		// pair it leaves unordered is that store and the lockless check.
		if st, wk := r.misplacedAt(nw, a); wk != 0 {
			before, after = strings.TrimSpace(nw.text(st)), strings.TrimSpace(nw.text(wk))
			break
		}
	}
	peers := r.orderingPeers(nw, ro, fields, o.strength)
	queues := append(append([]string(nil), ro.waitQs...), ro.wakeQs...)
	orderedBy := r.lockOrdering(old, line, queues, peers)
	if orderedBy == "" {
		orderedBy = r.newLockOrdering(old, nw, line, queues, peersOn(peers, append(fieldsIn(strings.Join(o.call.Args, ",")), fields...)))
	}
	side := "waker"
	if ro.sleeper() && (!ro.waker() || o.strength == "acquire" || strings.HasSuffix(o.call.Name, "_state")) {
		side = "sleeper"
	}
	if orderedBy == "" && side == "waker" {
		orderedBy = r.sectionOrdersActive(nw, ro.wakeQs)
	}
	what := "removed"
	if w := r.weakenedTo(old, nw, o); w != "" {
		what = "weakened to " + w
	}
	f := report.Finding{
		Category: CategoryBarrier,
		Severity: report.SeverityNote,
		File:     nw.File, Func: nw.Name, Line: r.newLineNear(old, nw, line),
		Old: []string{old.evidence(line)},
	}
	if len(queues) > 0 {
		f.Key = queues[0]
	}
	pair := strings.Join(fields, ", ")
	if pair == "" {
		pair = "the condition and the sleeper state"
	}
	f.Message = fmt.Sprintf("%s %s in %s() (the %s side of a sleep/wake-up pair; orders %s)", o.call.Name, what, nw.Name, side, pair)
	strengthWords := map[string]string{
		"full":    "a full barrier (the store before it is visible before the load after it)",
		"acquire": "an acquire load (later accesses cannot move before it)",
		"release": "a release store (earlier accesses cannot move after it)",
		"read":    "a read barrier (pairs with a write barrier on the other side)",
		"write":   "a write barrier (pairs with a read barrier on the other side)",
	}[o.strength]
	switch {
	case orderedBy != "":
		f.Explanation = fmt.Sprintf("%s was %s. Here it is covered by a lock both sides take (%s): the unlock/lock pair orders the %s's accesses against the other side, so no wake-up should be lost. Check that every other side takes it.",
			o.call.Name, strengthWords, orderedBy, side)
		r.add(f)
		return
	case o.strength == "full" && side == "waker" && r.unconditionalWakeAfter(nw, o, ro.wakeQs):
		f.Explanation = fmt.Sprintf("%s was %s. The wake-up that follows it on this path is unconditional: it takes the queue lock, which the sleeper takes to queue itself before it tests its condition, so either the waker finds the sleeper queued or the sleeper sees the store. No wake-up is lost.",
			o.call.Name, strengthWords)
		r.add(f)
		return
	case (o.strength == "release" || o.strength == "write") && r.wakeFollows(old, o.call) && !r.ordersStoresBeforeWake(old, o):
		f.Explanation = fmt.Sprintf("%s was %s. An unconditional wake-up follows on the same path, and a wake-up that wakes a task implies a full barrier (memory-barriers.txt), so a sleeper that re-checks after being woken still sees the stores; only a task polling without sleeping would miss the ordering.",
			o.call.Name, strengthWords)
		r.add(f)
		return
	case len(peers) == 0:
		f.Explanation = fmt.Sprintf("%s was %s in a function that %s; the other side of the pair was not found (a tree shows the wakers and waiters of its queues). Without it the sleeper can miss the wake-up or see stale data.",
			o.call.Name, strengthWords, map[string]string{"waker": "wakes sleepers", "sleeper": "sleeps"}[side])
		r.add(f)
		return
	}
	f.Severity = report.SeverityRisk
	p := peers[0]
	for _, q := range peers {
		if q.file == nw.File {
			p = q // the protocol's own other side, in the same file
			break
		}
	}
	var names []string
	for _, q := range peers {
		names = appendUnique(names, fmt.Sprintf("%s() %s:%d", q.fn, q.file, q.line))
	}
	if len(names) > 3 {
		names = append(names[:3], "...")
	}
	f.Chain = append(f.Chain, report.Step{Func: old.Name, File: old.File, Line: line, What: "ordering removed: " + opText})
	f.Chain = append(f.Chain, report.Step{Func: p.fn, File: p.file, Line: p.line, What: "other side: " + p.text})
	cur := nw.Name + "()"
	rows := orderingRows(o, side, p, before, after, pair)
	f.Evidence = append(f.Evidence, interleaving(cur, p.fn+"()", rows)...)
	f.Explanation = fmt.Sprintf("%s() is the %s side of a sleep/wake-up pair with %s, and %s was %s between %s. Without it (and with no lock that both sides take) the two CPUs can each miss the other's store, as shown: the sleeper sleeps although its condition is true and no wake-up comes (or a woken task runs on stale data). Keep the barrier, or use the helper that has it built in (wq_has_sleeper(), smp_store_mb(), smp_load_acquire()/smp_store_release(), set_current_state()).",
		nw.Name, side, strings.Join(names, ", "), o.call.Name, strengthWords, pair)
	r.add(f)
}

// orderedPair returns what removed operation o ordered in old: the
// access before it, the access after it, and the fields they touch.
func orderedPair(old *wfunc, o orderOp) (before, after string, fields []string) {
	line := o.call.Line
	opText := strings.TrimSpace(old.text(line))
	switch o.strength {
	case "acquire":
		after = opText
		for _, a := range o.call.Args {
			fields = append(fields, fieldsIn(a)...)
		}
	case "release":
		before = opText
		if len(o.call.Args) > 0 {
			fields = append(fields, fieldsIn(o.call.Args[0])...)
		}
	default:
		if strings.HasPrefix(o.call.Name, "atomic") || o.call.Name == "smp_store_mb" || strings.HasSuffix(o.call.Name, "_state") {
			before = opText
		} else {
			before = storeAbove(old, line)
		}
		after = loadAfter(old, line)
		fields = append(append(fields, fieldsIn(before)...), fieldsIn(after)...)
	}
	return before, after, fields
}

// orderingPeers returns the other side of nw's sleep/wake-up pair: the
// wakers and waiters of its queues, else the functions of its file that
// order the same fields.
func (r *checker) orderingPeers(nw *wfunc, ro roles, fields []string, strength string) []peer {
	wakers, waiters := r.otherSides(nw, ro)
	var peers []peer
	for _, s := range wakers {
		peers = append(peers, peerOf(s))
	}
	for _, s := range waiters {
		peers = append(peers, peerOf(s))
	}
	if len(peers) == 0 {
		peers = r.fieldPeers(nw, fields, strength)
	}
	if len(peers) == 0 {
		peers = selfPeers(nw, ro)
	}
	return peers
}

// lockOrdering returns the lock held at line of old that orders the pair
// anyway (the queue's own lock, or one every peer takes), "" if none.
func (r *checker) lockOrdering(old *wfunc, line int, queues []string, peers []peer) string {
	for _, h := range r.heldWithCallers(old, line) {
		if queueLockOf(h.key, queues) || r.aliasQueueLock(old, h.key, queues) {
			if r.locklessPeer(peers) == "" {
				return h.describe()
			}
			continue
		}
		if len(peers) > 0 {
			all := true
			for _, p := range peers {
				if !r.peerHolds(p.wf, h, p.line) {
					all = false
				}
			}
			if all {
				return h.describe()
			}
		}
	}
	return ""
}

// orderingRows is the CPU 0 / CPU 1 interleaving of a removed ordering
// operation o on the given side against peer p.
func orderingRows(o orderOp, side string, p peer, before, after, pair string) [][2]string {
	var rows [][2]string
	switch {
	case o.strength == "acquire" || o.strength == "read":
		rows = [][2]string{
			{"", "stores the data the sleeper will use"},
			{"", p.text},
			{after + " (no ordering)", ""},
			{"sees the hand-off, runs on", ""},
			{"reads the data: may see values from before", ""},
			{"the hand-off (" + pair + ")", ""},
		}
	case o.strength == "release" || o.strength == "write":
		rows = [][2]string{
			{"stores the data the woken task uses", ""},
			{before + " (no longer ordered after it)", ""},
			{"", "sees " + pair + " set: " + p.text},
			{"", "uses the data: may see the old values"},
		}
	case side == "waker":
		cond := p.cond
		if cond == "" {
			cond = "its condition"
		}
		own := "queues itself"
		if p.wf != nil {
			if st := storeAbove(p.wf, p.line); st != "" && isStore(st) {
				own = st
			}
		}
		rows = [][2]string{
			{before, ""},
			{"  (the store sits in the store buffer)", own},
			{"", "  (full barrier: set_current_state())"},
			{"", "checks " + cond + ": old value"},
			{after + " : old value", ""},
			{"  -> no wake-up", "schedule(): sleeps, nobody wakes it"},
		}
	default:
		rows = [][2]string{
			{before, ""},
			{"  (the store sits in the store buffer)", "makes the condition true"},
			{"", p.text + " : sees no sleeper yet / old state"},
			{after + " : reads the old condition", "  -> no wake-up"},
			{"sleeps; the wake-up already went by", ""},
		}
	}
	return rows
}

// newLineNear maps an old-side line to a nearby new-side line of the same
// function (the line after the removed code).
func (r *checker) newLineNear(old, nw *wfunc, line int) int {
	m := r.maps[nw.File]
	if m == nil {
		return line
	}
	best, bestOld := 0, 0
	for nl, ol := range m.newToOld {
		if ol >= line && (bestOld == 0 || ol < bestOld) {
			if _, ok := nw.lines[nl]; ok {
				best, bestOld = nl, ol
			}
		}
	}
	if best == 0 {
		return line
	}
	return best
}

// fieldPeers finds, in the function's file, the other functions that
// order the same fields with the complementary operation: a store-release
// or write barrier for a removed acquire or read barrier, and the reverse.
func (r *checker) fieldPeers(f *wfunc, fields []string, strength string) []peer {
	if r.tree == nil || len(fields) == 0 {
		return nil
	}
	sf := r.pass.Index.File(f.File)
	if sf == nil {
		return nil
	}
	want := map[string]bool{}
	switch strength {
	case "acquire", "read":
		want["release"], want["write"], want["full"] = true, true, true
	case "release", "write":
		want["acquire"], want["read"], want["full"] = true, true, true
	default:
		want["full"] = true
	}
	tf := r.tree.file(r.tree.relPath(sf.Path))
	var out []peer
	for _, fn := range sf.Funcs {
		if fn.Name == f.Name {
			continue
		}
		for _, c := range fn.Calls {
			st := r.p.ordering(c.Name)
			if !want[st] {
				continue
			}
			text := strings.TrimSpace(tf.lines.Line(c.Line - 1))
			hit := false
			for _, a := range c.Args {
				for _, fl := range fieldsIn(a) {
					if contains(fields, fl) {
						hit = true
					}
				}
			}
			if !hit {
				continue
			}
			out = append(out, peer{fn: fn.Name, file: r.tree.relPath(fn.File), line: c.Line, text: text, wf: r.tree.view(fn)})
		}
	}
	return out
}

// stateSetBeforeSleep reports whether o sets the task state right before
// an unconditional sleep (set_current_state(); schedule_timeout();): with
// no condition test in between there is no store-buffering pair, and
// folding it into schedule_timeout_interruptible() and the like is fine.
func (r *checker) stateSetBeforeSleep(f *wfunc, o orderOp) bool {
	if !r.p.stateSets[o.call.Name] || f.F == nil {
		return false
	}
	next, _ := codeLine(f, o.call.Line, +1)
	for _, m := range condCallRe.FindAllStringSubmatch(next, -1) {
		if r.p.sleeps[m[1]] {
			return !strings.HasPrefix(strings.TrimSpace(next), "if") && !strings.HasPrefix(strings.TrimSpace(next), "while")
		}
	}
	return false
}

// loadAfter returns the load a removed barrier ordered after the store:
// the condition of the first wake-up (or lockless check) after it, else
// the next code line.
func loadAfter(f *wfunc, line int) string {
	for _, s := range f.Sites {
		if s.Line() <= line || (s.Kind != siteWake && s.Kind != siteActive) {
			continue
		}
		for i := len(s.Call.Guards) - 1; i >= 0; i-- {
			g := s.Call.Guards[i]
			if g.Line > line && (g.Kind == "if" || g.Kind == "loop") {
				return normLine(g.Cond)
			}
		}
		if s.Kind == siteActive {
			return s.Text()
		}
		break
	}
	t, _ := codeLine(f, line, +1)
	return t
}

// misplacedFull reports whether an added full barrier a sits before a
// store that a lockless check of sleepers after it must see: a store
// follows a, then a wake-up that tests for sleepers without a barrier of
// its own (wake_up_bit(), wake_up_var(), a waitqueue_active() gate), with
// no full barrier between the two (smp_mb(); clear_bit(); wake_up_bit()
// in place of clear_and_wake_up_bit()).
func (r *checker) misplacedFull(nw *wfunc, a orderOp) bool {
	_, wake := r.misplacedAt(nw, a)
	return wake != 0
}

// misplacedAt returns the lines of the store and the lockless wake-up
// that misplacedFull finds after added barrier a (0, 0 if none).
func (r *checker) misplacedAt(nw *wfunc, a orderOp) (store, wake int) {
	if a.strength != "full" || nw == nil {
		return 0, 0
	}
	for l := a.call.Line + 1; l <= a.call.Line+6; l++ {
		t, ok := nw.lines[l]
		if !ok {
			continue
		}
		if store == 0 && isStore(t) {
			store = l
			continue
		}
		if store == 0 {
			continue
		}
		for _, w := range nw.Sites {
			if w.Line() != l {
				continue
			}
			if w.Kind == siteActive && !w.BuiltinBarrier {
				return store, l
			}
			if row := r.p.waker(w.Call.Name); (w.Kind == siteWake || w.Kind == siteGatedWake) && (row != nil && row.Lockless || w.Gated) {
				return store, l
			}
		}
		if r.p.ordering(firstCallName(t)) == "full" {
			return 0, 0
		}
	}
	return 0, 0
}

// firstCallName returns the name of the first call on line t.
func firstCallName(t string) string {
	if m := condCallRe.FindStringSubmatch(codeOnly(t)); m != nil {
		return m[1]
	}
	return ""
}
