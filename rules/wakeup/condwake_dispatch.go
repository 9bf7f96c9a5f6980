package wakeup

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// Interrupt dispatch: a handler reads what the device reports, acks it,
// and announces each event its status names, one call per bit:
//
//	st = readl(DISR); writel(st, DISR);
//	if (st & WAVI) snd_pcm_period_elapsed(chip->psubs);
//
// Each such call is owed whenever its bit is set, as a notifier's
// wake-up is owed on every call (condwake_notify.go): the device said the
// event happened and the ack took it away. A new exit gated on another
// bit of the same status (an abort, an error) is taken while the call's
// own bit may be set too, and that event is acked and never announced.
// An exit on "no event" (!st, !(st & MASK)) or on the call's own bit
// loses nothing.

// statusBitRe matches a constant a status test masks with.
var statusBitRe = regexp.MustCompile(`\b[A-Z][A-Z0-9_]*[A-Z0-9]\b`)

// likelyWrapRe matches a branch hint around a condition.
var likelyWrapRe = regexp.MustCompile(`^(?:unlikely|likely)\s*\(`)

// dispatchBits returns the constants of the device tests among the
// guards of wake-up o in old, and ok when each guard is an if whose every
// conjunct is such a test or a NULL test of the woken object (or a loop
// over objects); bits is empty when o is under no device test.
func (r *checker) dispatchBits(old *wfunc, o *wsite) (bits []string, ok bool) {
	devLocals := r.deviceLocals(old, o.Line())
	for _, g := range o.Call.Guards {
		if g.Kind == "loop" {
			continue
		}
		if g.Kind != "if" {
			return nil, false
		}
		for _, p := range splitTop(cscan.StripParens(strings.TrimSpace(g.Cond)), "&&") {
			p = strings.TrimSpace(p)
			switch {
			case nullCheckRe.MatchString(p) && nullTestOfWoken(o, cscan.StripParens(p)):
				// the object the call is made on, present or not
			case r.readsDevice(p, old.File) || anyHead(p, devLocals):
				bits = append(bits, statusBits(p)...)
			default:
				return nil, false
			}
		}
	}
	return bits, true
}

// statusBits returns the constants of status test p, but NULL.
func statusBits(p string) []string {
	var out []string
	for _, b := range statusBitRe.FindAllString(p, -1) {
		if b != "NULL" && !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// otherEvent reports whether conjunct p of a new exit's gate in nw tests
// the device for an event other than bits, those of the call the exit
// skips: a positive test of the status (not "no event") whose constants
// are all other than bits.
func (r *checker) otherEvent(nw *wfunc, devLocals map[string]bool, p string, bits []string) bool {
	if len(bits) == 0 || !r.readsDevice(p, nw.File) && !anyHead(p, devLocals) {
		return false
	}
	t := stripLikely(p)
	if noEventTest(t) || strings.Contains(t, "==") {
		return false
	}
	own := statusBits(t)
	if len(own) == 0 {
		return false
	}
	for _, b := range own {
		if slices.Contains(bits, b) {
			return false
		}
	}
	return true
}

// earlierReturnsDevice reports whether every return of old before line
// is taken on what the device reports (no event, not this device's
// interrupt): such a return does not make the call after it optional.
func (r *checker) earlierReturnsDevice(old *wfunc, line int) bool {
	for _, ret := range old.F.Returns {
		if ret.Line < line && !irqNoneRe.MatchString(codeOnly(old.text(ret.Line))) && !r.deviceGate(old, ret.Guards) {
			return false
		}
	}
	return true
}

// dispatchExplanation explains the risk of a new exit gated on gate (or,
// exit false, of an else of the test gate negates) that skips call n,
// made when the device reports bits (w the waiter).
func dispatchExplanation(nw *wfunc, n, w *wsite, gate string, bits []string, exit bool) string {
	how := fmt.Sprintf("The new exit is taken when the device reports another event (`%s`)", gate)
	if !exit {
		how = fmt.Sprintf("The patch makes the call the else of the test for another event (`%s`)", strings.TrimSuffix(strings.TrimPrefix(gate, "!("), ")"))
	}
	return fmt.Sprintf("%s() calls %s() at line %d whenever the device reports %s: the call announces that event to the sleepers of %s. "+
		"%s, and both can be pending in one status read, which the handler has already taken: "+
		"the first event is then never announced, and %s waits for %s although it happened. Announce every pending event, whatever else the status reports.",
		nw.Name, n.Call.Name, n.Line(), strings.Join(bits, " or "), n.Q, how, siteWhere(w), condOrState(w))
}

// exitExcludesEvent reports whether an exit under guards in nw is taken
// only when the device reports none of the events wake-up n is made for:
// a conjunct of its gate tests the status negated ("!(st & (RX | TX))")
// for every bit n's own device test names. Such an exit skips nothing n
// owed.
func (r *checker) exitExcludesEvent(nw *wfunc, n *wsite, guards []cscan.Guard) bool {
	bits, ok := r.dispatchBits(nw, n)
	if !ok || len(bits) == 0 {
		return false
	}
	devLocals := r.deviceLocals(nw, lastGuard(guards))
	for _, g := range guards {
		if g.Kind != "if" {
			continue
		}
		for _, p := range splitTop(cscan.StripParens(strings.TrimSpace(g.Cond)), "&&") {
			t := stripLikely(p)
			if len(splitTop(t, "||")) > 1 || !noEventTest(t) || !r.readsDevice(t, nw.File) && !anyHead(t, devLocals) {
				// ("!(st & RX) || suspended" is taken with RX pending.)
				continue
			}
			own := statusBits(t)
			if !slices.ContainsFunc(bits, func(b string) bool { return !slices.Contains(own, b) }) {
				return true
			}
		}
	}
	return false
}

// eqZeroRe matches a test written as a comparison with zero.
var eqZeroRe = regexp.MustCompile(`^(?s)(.+?)\s*==\s*0$`)

// noEventTest reports whether t, one conjunct, is a negated test: "!x",
// "!(st & MASK)", "(st & MASK) == 0".
func noEventTest(t string) bool {
	return strings.HasPrefix(t, "!") || eqZeroRe.MatchString(t)
}

// stripLikely returns conjunct p without a branch hint around it.
func stripLikely(p string) string {
	t := strings.TrimSpace(p)
	for likelyWrapRe.MatchString(t) {
		t = cscan.StripParens(t[strings.IndexByte(t, '('):])
	}
	return t
}

// sameEventStores returns the store lines of old but those made while
// handling another event of the device (under a test of other status
// bits than bits, those of the call they precede): an error counter
// bumped for the error bit is not what the period's waiters wait for.
func (r *checker) sameEventStores(old *wfunc, lines []int, bits []string) []int {
	var out []int
	for _, l := range lines {
		gs := guardsOfStmt(old.F.Body, func(s cscan.Stmt) bool {
			e, ok := s.(*cscan.ExprStmt)
			return ok && e.Line == l
		})
		devLocals := r.deviceLocals(old, l)
		other := false
		for _, g := range gs {
			if g.Kind == "if" && r.otherEvent(old, devLocals, strings.TrimSpace(g.Cond), bits) {
				other = true
			}
		}
		if !other {
			out = append(out, l)
		}
	}
	return out
}

// elseCond returns the condition of the if whose else branch guard g is
// in f (a call's else guard carries no condition), "" if not found.
func elseCond(f *wfunc, g cscan.Guard) string {
	if g.Kind != "else" || f.F == nil || f.F.Body == nil {
		return ""
	}
	if g.Cond != "" {
		return g.Cond
	}
	cond := ""
	cscan.Inspect(f.F.Body, func(s cscan.Stmt) {
		if i, ok := s.(*cscan.IfStmt); ok && i.ElseLine == g.Line && cond == "" {
			cond = i.Cond
		}
	})
	return cond
}

// wokenUnder reports whether f also wakes n's queue under an if testing
// cond (the branch n is now the else of): the queue is woken on both
// paths.
func (r *checker) wokenUnder(f *wfunc, n *wsite, cond string) bool {
	for _, s := range f.Sites {
		if s == n || s.Kind != siteWake && s.Kind != siteDeepWake || !r.sameQueue(s.Q, n.Q) {
			continue
		}
		for _, g := range s.Call.Guards {
			if g.Kind == "if" && normLine(g.Cond) == normLine(cond) {
				return true
			}
		}
	}
	return false
}
