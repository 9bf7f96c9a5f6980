package sleep

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A function of the tree that only reports the running context is a test
// of the context like the ones it returns. erofs's z_erofs_in_atomic()
// returns true under PREEMPT_RCU in an RCU read-side section, true
// without PREEMPT_COUNT, and !preemptible() otherwise: in softirq context
// every one of its returns is true.

// contextValue returns the value of term, a test of the running context
// negated or not, with kinds held (testValue), as seen from file: a
// context_tests row's, or that of a call without arguments of a function
// every return of which has the same value there (a constant true or
// false, or a row's test, at least one of them a test). ok is false for
// any other term, or when the returns disagree.
func (r *checker) contextValue(sl *sleeper, term string, kinds []string, file string) (val, ok bool) {
	if v, ok := sl.testValue(term, kinds); ok {
		return v, true
	}
	t := testCallRe.FindStringSubmatch(cscan.StripParens(strings.TrimSpace(term)))
	if t == nil || r.p.Index == nil {
		return false, false
	}
	fn := r.defOf(t[3], file)
	if fn == nil || len(fn.Returns) == 0 {
		return false, false
	}
	tests := false
	for i, ret := range fn.Returns {
		v, test, ok := returnValue(sl, ret.Expr, kinds)
		if !ok || i > 0 && v != val {
			return false, false
		}
		val, tests = v, tests || test
	}
	if !tests {
		return false, false // constants only: it tests nothing
	}
	return val != negated(t), true
}

// returnValue is the value of a context wrapper's return expression e
// with kinds held (contextValue); test says e is a test of the context,
// not a constant.
func returnValue(sl *sleeper, e string, kinds []string) (val, test, ok bool) {
	switch e = cscan.StripParens(strings.TrimSpace(e)); {
	case sl.trueConds[e]:
		return true, false, true
	case e == "false" || e == "0":
		return false, false, true
	}
	val, ok = sl.testValue(e, kinds)
	return val, true, ok
}
