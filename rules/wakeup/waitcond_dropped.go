package wakeup

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A waiter's condition is the list of events it wakes up for. A wake-up
// makes a waiter runnable only for it to re-test that condition: when the
// patch drops a term of the condition (a "|| kthread_should_stop()", a
// test of a member a waker sets before waking), the waker's event no
// longer ends the wait, and the waiter goes back to sleep with the event
// pending. kthread_stop() sets the stop flag and wakes the thread itself,
// so a kthread's wait that stops testing kthread_should_stop() sleeps
// through the stop request.

// maxStoreLines bounds how far above a wake-up a waker's store is looked
// for.
const maxStoreLines = 15

// checkCondDropped compares the condition of wait o with its new version
// n and reports a dropped term that some waker's event makes true.
func (r *checker) checkCondDropped(o, n *wsite) {
	oc, nc := waitCond(o), waitCond(n)
	if oc == "" || nc == "" || o.WKind == "bit" || strings.Contains(n.Call.Name, "timeout") {
		return
	}
	norm := func(t string) string {
		return canonCompare(strings.Join(strings.Fields(cscan.StripParens(strings.TrimSpace(t))), ""))
	}
	kept := map[string]bool{}
	for _, t := range splitOr(nc) {
		kept[norm(t)] = true
	}
	whole := norm(nc)
	if newCallTakesOver(nc, oc) {
		return
	}
	for _, t := range splitOr(oc) {
		if kept[norm(t)] || containsTerm(whole, norm(t)) {
			continue
		}
		if stop := r.stopCall(t); stop != "" {
			r.reportCondDropped(o, n, t, stop+"() is made true by a stop request, whose wake-up reaches the task itself (kthread_stop() wakes the thread)", nil)
			return
		}
		if why, w := r.storingWaker(n.Q, n.Fn.Name, t); w != nil {
			r.reportCondDropped(o, n, t, why, w)
			return
		}
	}
}

// Integer comparisons with a non-negative literal, written either way
// round: the expression (no white space) compared, and the literal.
var (
	compareRightRe = regexp.MustCompile(`^(.*[^-<>=!])(<=|>=|<|>)(\d+)$`)
	compareLeftRe  = regexp.MustCompile(`^(\d+)(<=|>=|<|>)([^<>=].*)$`)
	// simpleOperandRe matches an operand once its parenthesised groups
	// are gone and "->" is written ".": names, members, subscripts,
	// dereferences and negations, nothing binding more loosely than a
	// comparison.
	simpleOperandRe = regexp.MustCompile(`^[\w.\[\]*!]+$`)
)

// canonCompare writes a comparison of an expression with a non-negative
// integer literal (white space removed) in one form, x<=N or x>=N, so
// that "cnt < 3", "cnt <= 2" and "2 >= cnt" compare equal; other terms
// (a comparison inside a wider expression, one that would need a
// negative literal) are returned as they are.
func canonCompare(t string) string {
	x, op, lit := "", "", ""
	if m := compareRightRe.FindStringSubmatch(t); m != nil {
		x, op, lit = m[1], m[2], m[3]
	} else if m := compareLeftRe.FindStringSubmatch(t); m != nil {
		x, lit = m[3], m[1]
		op = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}[m[2]]
	} else {
		return t
	}
	n, err := strconv.Atoi(lit)
	if err != nil || n == math.MaxInt || !simpleOperandRe.MatchString(strings.ReplaceAll(cscan.TopLevel(x), "->", ".")) {
		return t
	}
	switch op {
	case "<":
		if n == 0 {
			return t
		}
		op, n = "<=", n-1
	case ">":
		op, n = ">=", n+1
	}
	return x + op + strconv.Itoa(n)
}

// containsTerm reports whether the condition text whole (no white
// space) holds term t whole: not as the start of a longer name or
// number (a>=1 is not in a>=10).
func containsTerm(whole, t string) bool {
	for i := 0; t != ""; {
		j := strings.Index(whole[i:], t)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(t)
		if (j == 0 || !isIdentByte(whole[j-1]) || !isIdentByte(t[0])) && (end == len(whole) || !isIdentByte(whole[end]) || !isIdentByte(t[len(t)-1])) {
			return true
		}
		i = j + 1
	}
	return false
}

// newCallTakesOver reports whether the condition text nc calls a
// function that the old condition oc did not: a helper that may test a
// dropped term itself.
func newCallTakesOver(nc, oc string) bool {
	for _, m := range condCallRe.FindAllStringSubmatch(nc, -1) {
		if !trivialCalls[m[1]] && !strings.Contains(oc, m[1]+"(") {
			return true
		}
	}
	return false
}

// storingWaker returns a waker of queue q, outside the function self,
// that stores a member the condition term reads before it wakes the
// queue, and says so; nil when there is none.
func (r *checker) storingWaker(q, self, term string) (string, *wsite) {
	return r.storingWakerOf(r.wakersOf(q), self, term)
}

// storingWakerOf is storingWaker over the wakers ws (each named by its
// own queue).
func (r *checker) storingWakerOf(ws []*wsite, self, term string) (string, *wsite) {
	fields := fieldsIn(term)
	for _, w := range ws {
		if w.Fn.Name == self || w.Derived {
			continue
		}
		for _, fd := range fields {
			st, by := r.storeBeforeWake(w, fd)
			if st == "" {
				continue
			}
			if by != w.Fn.Name {
				return fmt.Sprintf("%s() stores `%s` before %s() wakes %s", by, st, w.Fn.Name, w.Q), w
			}
			return fmt.Sprintf("%s() stores `%s` and then wakes %s", by, st, w.Q), w
		}
	}
	return "", nil
}

// maxCallLines bounds the lines a call's arguments span.
const maxCallLines = 8

// spanChanged reports whether the patch changed a line of the arguments
// of site s that continue after its call line (a wait condition on the
// lines below wait_event_interruptible()).
func spanChanged(s *wsite) bool {
	for l := s.Line(); l <= s.Line()+maxCallLines; l++ {
		if l > s.Line() && s.Fn.changed(l) {
			return true
		}
		if t, ok := s.Fn.lines[l]; !ok || strings.Contains(codeOnly(t), ";") {
			return false
		}
	}
	return false
}

// stopCall returns the stop test a condition term calls
// (kthread_should_stop), "" if none.
func (r *checker) stopCall(term string) string {
	for _, m := range condCallRe.FindAllStringSubmatch(term, -1) {
		if r.p.stopConds[m[1]] {
			return m[1]
		}
	}
	return ""
}

// storeOfFields returns the nearest line above line in f that stores one
// of fields, "" if none.
func storeOfFields(f *wfunc, line int, fields map[string]bool) string {
	for l := line - 1; l > 0 && l >= line-maxStoreLines; l-- {
		t, ok := f.lines[l]
		if !ok || !isStore(t) {
			continue
		}
		for _, x := range fieldsIn(codeOnly(t)) {
			if fields[x] {
				return strings.TrimSpace(t)
			}
		}
	}
	return ""
}

func (r *checker) reportCondDropped(o, n *wsite, term, why string, w *wsite) {
	term = strings.Join(strings.Fields(term), " ")
	f := report.Finding{
		Category: CategoryWaiterCond,
		Severity: report.SeverityRisk,
		File:     n.Fn.File, Func: n.Fn.Name, Line: n.Line(), Key: n.Q,
		Message:  fmt.Sprintf("%s() no longer ends its wait on %s when `%s` holds", n.Fn.Name, n.Q, term),
		Evidence: []string{n.Fn.evidence(n.Line())},
		Old:      []string{o.Fn.evidence(o.Line())},
	}
	f.Chain = append(f.Chain, step(n, "waits without the term: "+n.Text()))
	waker := "the waker"
	if w != nil {
		waker = w.Fn.Name + "()"
		f.Chain = append(f.Chain, step(w, "wakes for it: "+w.Text()))
	}
	f.Evidence = append(f.Evidence, interleaving(waker, n.Fn.Name+"()", [][2]string{
		{"", "sleeps: condition false"},
		{"makes `" + term + "` true, wakes", ""},
		{"", "re-tests the condition: the term is gone"},
		{"", "sleeps again; the event is never seen"},
	})...)
	f.Explanation = fmt.Sprintf("The old condition of %s() also ended the wait when `%s`; %s. The new condition drops that term, so the waiter that this wake-up makes runnable re-tests, finds its condition false and goes back to sleep, and nothing wakes it for that event again. Keep the term in the condition.",
		n.Fn.Name, term, why)
	r.add(f)
}
