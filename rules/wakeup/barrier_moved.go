package wakeup

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A patch that factors a waker's code into a helper (the decrement, its
// barrier and the wake-up moved as they are into a new function called
// where they were) removes ordering operations from the function and adds
// them to the helper. The pair is as ordered as before: the helper runs
// the same operation on the same variable at the same point of the path.

// operandOf returns the member or variable an ordering operation works on:
// the last identifier of its address argument (&x->n: n), else of its
// first argument (WRITE_ONCE(x->n, v): n); "" without arguments.
func operandOf(c cscan.Call) string {
	if len(c.Args) == 0 {
		return ""
	}
	arg := c.Args[0]
	for _, a := range c.Args {
		if strings.HasPrefix(strings.TrimSpace(a), "&") {
			arg = a
			break
		}
	}
	if m := lastIdentRe.FindStringSubmatch(strings.TrimRight(arg, ") \t")); m != nil {
		return m[1]
	}
	return ""
}

// movedIntoHelper reports whether the removed ordering operation o went
// into a function that the new version of the function calls in its place:
// a call added in the change block that removed o, to a function (the
// patch's new version, else the tree's) whose body makes the same
// operation on the same member or variable.
func (r *checker) movedIntoHelper(old, nw *wfunc, o orderOp) bool {
	b := r.blockOf(old, o.call.Line)
	if b == 0 || nw.F == nil {
		return false
	}
	target := operandOf(o.call)
	if len(o.call.Args) > 0 && target == "" {
		return false
	}
	op := regexp.MustCompile(`\b` + regexp.QuoteMeta(o.call.Name) + `\s*\(`)
	for _, c := range nw.F.Calls {
		if !nw.changed(c.Line) || r.blockOf(nw, c.Line) != b || c.Name == o.call.Name || strings.Contains(c.Name, "->") {
			continue
		}
		body, ok := r.funcText(c.Name, nw.File)
		if !ok {
			continue
		}
		for _, line := range strings.Split(body, "\n") {
			code := codeOnly(line)
			if op.MatchString(code) && (target == "" || containsWord(code, target)) {
				return true
			}
		}
	}
	return false
}
