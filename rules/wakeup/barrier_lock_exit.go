package wakeup

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A wake decision taken before the lock that orders it (category
// wakeup-barrier): the waker decides under a lock whether anybody waits
// (s2idle_wake(): under s2idle_lock, wake only if s2idle_state says a
// sleeper is entering), and the sleeper checks for its event and
// announces itself under the same lock (s2idle_enter(): under
// s2idle_lock, test pm_wakeup_pending(), then set s2idle_state). A patch
// that adds an exit before the lock on a lockless read of that state
// ("nobody is entering: skip the lock") takes the decision outside it,
// as if the lock were gone: the read can see the state from before the
// sleeper's section while the sleeper's check missed the waker's event,
// and nobody wakes it. The lock removed outright is checkLockRemoved's.

// gateIdentRe finds the identifiers of a condition.
var gateIdentRe = regexp.MustCompile(`\b[A-Za-z_]\w*\b`)

// checkDecisionBeforeLock reports a new exit of nw before a lock whose
// region decides whom to wake, gated on state that region reads again.
func (r *checker) checkDecisionBeforeLock(old, nw *wfunc) {
	if r.tree == nil || nw.F == nil {
		return
	}
	for i, c := range nw.F.Calls {
		key, ok := r.p.lockCall(c)
		if !ok || key == "" || nw.changed(c.Line) {
			continue
		}
		region := r.lockRegion(nw, i)
		dec := r.wakeDecision(nw, region)
		if dec == "" || len(region) == 0 {
			continue
		}
		end := region[len(region)-1].Line
		for _, ex := range exitsBefore(nw, c.Line, end) {
			g := ex.guards[len(ex.guards)-1]
			if g.Kind != "if" {
				continue
			}
			state := r.retestedState(nw, g.Cond, c.Line, end)
			if state == "" || r.isActiveCheckOf(cscan.StripParens(strings.TrimSpace(g.Cond)), "", nw) {
				continue
			}
			for _, sl := range r.lockSleepers(nw, key) {
				// A full barrier on each side, before the waker's
				// lockless test and in the sleeper, orders the pair
				// without the lock (store, barrier, load each).
				if storesState(sl, state) && !(r.fullBarrierBefore(nw, g.Line, ex.guards[:len(ex.guards)-1]) && r.fullBarrierIn(sl)) {
					r.reportDecisionBeforeLock(nw, ex.line, g, c, key, dec, state, sl)
					return
				}
			}
		}
	}
}

// anExit is a return, or a goto past a lock region, and its guards.
type anExit struct {
	line   int
	guards []cscan.Guard
}

// exitsBefore returns the exits the patch added to nw before the lock at
// line from whose region ends at line to, under at least one guard: its
// returns, and its gotos to a label past the region.
func exitsBefore(nw *wfunc, from, to int) []anExit {
	var out []anExit
	for _, ret := range nw.F.Returns {
		if ret.Line < from && nw.changed(ret.Line) && len(ret.Guards) > 0 {
			out = append(out, anExit{ret.Line, ret.Guards})
		}
	}
	if nw.F.Body == nil {
		return out
	}
	gotos, labels := gotosOf(nw.F.Body)
	for _, g := range gotos {
		if g.Line >= from || !nw.changed(g.Line) || labels[g.Label] <= to {
			continue
		}
		if gs := stmtGuards(nw.F.Body, g.Line); len(gs) > 0 {
			out = append(out, anExit{g.Line, gs})
		}
	}
	return out
}

// fullBarrierBefore reports whether f makes a fully ordering call
// (smp_mb(), a fully ordered atomic of the table) before line on every
// path to it: under no guards but outer, those of the test at line.
func (r *checker) fullBarrierBefore(f *wfunc, line int, outer []cscan.Guard) bool {
	for _, c := range f.F.Calls {
		if c.Line < line && r.p.ordering(c.Name) == "full" && len(c.Guards) <= len(outer) && slices.Equal(c.Guards, outer[:len(c.Guards)]) {
			return true
		}
	}
	return false
}

// fullBarrierIn reports whether f makes a fully ordering call.
func (r *checker) fullBarrierIn(f *wfunc) bool {
	return f.F != nil && slices.ContainsFunc(f.F.Calls, func(c cscan.Call) bool { return r.p.ordering(c.Name) == "full" })
}

// retestedState returns a name the condition cond reads that the lock
// region of nw between lines from and to reads as well (a global, or a
// member): the region decides on it again under the lock. Locals and
// parameters of nw, calls and constants are not such state.
func (r *checker) retestedState(nw *wfunc, cond string, from, to int) string {
	var region strings.Builder
	for l := from + 1; l <= to; l++ {
		region.WriteString(codeOnly(nw.text(l)))
		region.WriteByte('\n')
	}
	text := region.String()
	params := paramNames(nw.header(), nw.Name)
	for _, m := range memberPartRe.FindAllStringSubmatch(cond, -1) {
		if memberUse(m[1]).MatchString(text) && !weakMembers[m[1]] {
			return m[1]
		}
	}
	calls := helperCalls(cond)
	named := map[string]bool{} // the plain names the region reads
	for _, m := range chainHeadRe.FindAllStringSubmatch(text, -1) {
		named[m[1]] = true
	}
	for _, id := range gateIdentRe.FindAllString(cond, -1) {
		if calls[id] || accessorCalls.MatchString(id) || trivialCalls[id] || strings.ToUpper(id) == id ||
			slices.Contains(params, id) || nw.vt != nil && (nw.vt.locals[id] || nw.vt.types[id] != "") ||
			strings.Contains(cond, id+"->") || strings.Contains(cond, id+".") {
			continue
		}
		if named[id] {
			return id
		}
	}
	return ""
}

// reportDecisionBeforeLock reports the exit at line (gate g) before the
// lock call c of nw (key, around the decision dec), reading state, with
// sleeper sl on the other side of the lock.
func (r *checker) reportDecisionBeforeLock(nw *wfunc, line int, g cscan.Guard, c cscan.Call, key, dec, state string, sl *wfunc) {
	cond := strings.Join(strings.Fields(g.Cond), " ")
	f := report.Finding{
		Category: CategoryBarrier,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: line,
		Message:  fmt.Sprintf("%s() now decides on %s before taking %s, which orders its wake-up against %s()", nw.Name, state, key, sl.Name),
		Evidence: []string{nw.evidence(g.Line), nw.evidence(line), nw.evidence(c.Line)},
	}
	f.Chain = append(f.Chain,
		report.Step{Func: nw.Name, File: nw.File, Line: line, What: "new exit without " + key + ": " + cond},
		report.Step{Func: nw.Name, File: nw.File, Line: c.Line, What: "decides under " + key + " (" + dec + "())"},
		report.Step{Func: sl.Name, File: sl.File, Line: sl.F.Start, What: "checks for the event and sleeps under " + key})
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", sl.Name+"()", [][2]string{
		{"", "takes " + key + ": no event yet"},
		{"(the event is posted)", ""},
		{cond + ": reads the old " + state, ""},
		{"returns without " + key, ""},
		{"", "sets " + state + ", drops " + key + ", sleeps"},
		{"", "  the event's wake-up never comes"},
	})...)
	f.Explanation = fmt.Sprintf("%s() tests %s under %s before it wakes (%s()), and %s() checks for the event and updates %s under the same lock before it sleeps: the lock makes each side see the other. The new exit reads %s without the lock (`%s`). It can see the value from before %s()'s section while %s() missed the event, and then neither side acts: the sleeper sleeps with the event pending. Take the decision under %s, or order both sides with full barriers.",
		nw.Name, state, key, dec, sl.Name, state, state, cond, sl.Name, sl.Name, key)
	r.add(f)
}

// storesState reports whether sleeper sl stores state (a member or a
// global): it announces itself in it, which is what the waker's test
// reads.
func storesState(sl *wfunc, state string) bool {
	global := regexp.MustCompile(`(?:^|[^\w>.])` + regexp.QuoteMeta(state) + `\s*(?:[-+|&^]?=[^=]|\+\+|--)|\b(?:WRITE_ONCE|smp_store_release|atomic_set)\s*\(\s*&?\s*` + regexp.QuoteMeta(state) + `\s*,`)
	member := memberStoreRe(state)
	for _, l := range sortedLines(sl) {
		t := codeOnly(sl.lines[l])
		if member.MatchString(t) || global.MatchString(t) {
			return true
		}
	}
	return false
}
