package sleep

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// A sleeping call the old version made too is new for a caller when the
// patch removed a check that kept it off the caller's path: an early exit
// before it (if (iter->temp == static_temp_buf && ...) return NULL;) or a
// term of a condition around it (&& !WARN_ON_ONCE(...)). ftrace_dump()
// runs with interrupts off and relied on such a check to never reach
// trace_find_next_entry()'s kmalloc(GFP_KERNEL). Checks that only test
// for an error or a missing object do not choose a context and do not
// count.

// pathCheck is one term a path to a call requires, and where it comes
// from for the report.
type pathCheck struct {
	// from is "if" (a term of the condition of an if around the call),
	// "else" (the condition of an if whose else branch holds it) or
	// "exit" (the condition of an exit before it).
	from string
	// cond is that condition (or term) as written, white space squeezed.
	cond string
	// term is the term the path requires (the negation of an exit's
	// alternative, say).
	term string
	// altCalls are the calls made the other way: by an exit's branch
	// before it leaves, by the else branch of an if around the call, by
	// the then branch for an else (queue_work() hands the work on to a
	// worker there).
	altCalls []string
}

// pathChecks returns the terms a path from fn's entry to the call at line
// requires, keyed by their text without white space (the patch may
// re-indent them): each term of the conditions of the ifs around it,
// negated for an else branch, and the negated alternatives of each exit
// (a return or goto) before it in the blocks around it, so that an exit
// `if (a) return;` and an `if (!a)` around the call are the same check.
// ok is false when no call is at line.
func pathChecks(fn *cscan.Func, line int) (checks map[string]pathCheck, ok bool) {
	checks = map[string]pathCheck{}
	if fn.Body == nil {
		return checks, false
	}
	ok = checksTo(fn.Body, line, checks)
	for k, c := range checks {
		var alt []string
		for _, n := range c.altCalls {
			if label, isGoto := strings.CutPrefix(n, gotoMark); isGoto {
				alt = append(alt, labelCalls(fn.Body, label)...)
			} else {
				alt = append(alt, n)
			}
		}
		c.altCalls = alt
		checks[k] = c
	}
	return checks, ok
}

// require adds the terms a path takes when cond is true (or false, for
// !holds) to checks.
func require(checks map[string]pathCheck, cond string, holds bool, from string, altCalls []string) {
	pc := pathCheck{from: from, cond: strings.Join(strings.Fields(cond), " "), altCalls: altCalls}
	terms := lockctx.Terms(cond, "&&")
	if !holds {
		terms = nil
		for _, t := range lockctx.Terms(cond, "||") {
			terms = append(terms, lockctx.Negate(t))
		}
	}
	for _, t := range terms {
		pc.term = strings.Join(strings.Fields(t), " ")
		if from == "if" {
			pc.cond = pc.term
		}
		checks[strings.Join(strings.Fields(t), "")] = pc
	}
}

// checksTo adds the checks on the way to the call at line within s to
// checks and reports whether s holds that call.
func checksTo(s cscan.Stmt, line int, checks map[string]pathCheck) bool {
	callAt := func(cs []cscan.Call) bool {
		return slices.ContainsFunc(cs, func(c cscan.Call) bool { return c.Line == line })
	}
	switch v := s.(type) {
	case *cscan.Block:
		// before are the exits met so far: their conditions, and the
		// calls their branches make.
		var before []string
		var calls [][]string
		for _, c := range v.Stmts {
			if checksTo(c, line, checks) {
				for i, e := range before {
					require(checks, e, false, "exit", calls[i])
				}
				return true
			}
			switch c := c.(type) {
			case *cscan.IfStmt:
				if c.Else == nil && exits(c.Then) {
					before, calls = append(before, c.Cond), append(calls, callNames(c.Then))
				}
			case *cscan.SwitchStmt:
				conds, cs := switchExits(c)
				before, calls = append(before, conds...), append(calls, cs...)
			case *cscan.LabelStmt, *cscan.CaseStmt:
				// A jump lands here from before those exits (goto
				// alloc;), or another case's exits are not on this
				// one's path.
				before, calls = nil, nil
			}
		}
	case *cscan.ExprStmt:
		return callAt(v.Calls)
	case *cscan.ReturnStmt:
		return callAt(v.Calls)
	case *cscan.IfStmt:
		if callAt(v.CondCalls) {
			return true
		}
		sub := map[string]pathCheck{}
		switch {
		case checksTo(v.Then, line, sub):
			require(sub, v.Cond, true, "if", callNames(v.Else))
		case v.Else != nil && checksTo(v.Else, line, sub):
			require(sub, v.Cond, false, "else", callNames(v.Then))
		default:
			return false
		}
		maps.Copy(checks, sub)
		return true
	case *cscan.LoopStmt:
		if callAt(v.CondCalls) {
			return true
		}
		sub := map[string]pathCheck{}
		if !checksTo(v.Body, line, sub) {
			return false
		}
		cond := v.Cond
		if v.Kind == "for" {
			if parts := strings.Split(cond, ";"); len(parts) == 3 {
				cond = parts[1]
			}
		}
		if v.Kind != "do" && v.Kind != "macro" && strings.TrimSpace(cond) != "" {
			require(sub, cond, true, "if", nil)
		}
		maps.Copy(checks, sub)
		return true
	case *cscan.SwitchStmt:
		return callAt(v.CondCalls) || checksTo(v.Body, line, checks)
	case *cscan.ScopedGuardStmt:
		return v.Call.Line == line || checksTo(v.Body, line, checks)
	}
	return false
}

// callNames returns the names of the calls made in s, and for a goto
// in it gotoMark and the label (resolved by pathChecks).
func callNames(s cscan.Stmt) []string {
	var out []string
	cscan.Inspect(s, func(st cscan.Stmt) {
		if g, ok := st.(*cscan.GotoStmt); ok {
			out = append(out, gotoMark+g.Label)
		}
		for _, c := range cscan.StmtCalls(st) {
			out = append(out, c.Name)
		}
	})
	return out
}

// gotoMark starts an entry of pathCheck.altCalls that names the label a
// goto of the other way jumps to.
const gotoMark = "goto "

// labelCalls returns the calls body makes from label on, up to the
// first statement that leaves the function (an exit's deferral written
// at its label: defer: schedule_work(&w); return;).
func labelCalls(body *cscan.Block, label string) []string {
	var out []string
	in, done := false, false
	var walk func(s cscan.Stmt)
	walk = func(s cscan.Stmt) {
		if done || s == nil {
			return
		}
		if b, ok := s.(*cscan.Block); ok {
			for _, c := range b.Stmts {
				walk(c)
			}
			return
		}
		if l, ok := s.(*cscan.LabelStmt); ok && l.Label == label {
			in = true
			return
		}
		if !in {
			if v, ok := s.(*cscan.IfStmt); ok {
				walk(v.Then)
				walk(v.Else)
			}
			return
		}
		for _, c := range cscan.StmtCalls(s) {
			out = append(out, c.Name)
		}
		done = exits(s)
	}
	walk(body)
	return out
}

// exits reports whether statement s always leaves the function: a return
// or a goto, or a block that ends in one.
func exits(s cscan.Stmt) bool {
	switch v := s.(type) {
	case *cscan.ReturnStmt, *cscan.GotoStmt:
		return true
	case *cscan.Block:
		return len(v.Stmts) > 0 && exits(v.Stmts[len(v.Stmts)-1])
	}
	return false
}

// errorCheckRe matches a term (white space dropped) that only tests for
// an error or a missing object: IS_ERR(p), p, !p, p == NULL, ret < 0,
// !err.
var errorCheckRe = regexp.MustCompile(`^!*(?:IS_ERR(?:_OR_NULL)?\(.*\)|[A-Za-z_][\w.>-]*(?:[=!]=NULL|<0|>=0|!=0|==0)?|NULL[=!]=[A-Za-z_][\w.>-]*)$`)

// liftedChecks returns the checks of of the patch lifted from the path to
// a sleeping call: those on the way to the old call (at oldLine) that
// are not on the way to the new one (at newLine) and test more than an
// error (a bare flag of the context, oops_in_progress, is no error
// check), nor are still written in the new function's text newText
// (split into nested ifs, moved below a log line). None when either call
// is not found, or when the new path has a check the old one lacked: the
// check was rewritten (a renamed variable, operands swapped, moved into
// a helper, one context test for another), not lifted.
func liftedChecks(of, nf *cscan.Func, oldLine, newLine int, newText string, contextTest func(string) bool) []pathCheck {
	was, ok := pathChecks(of, oldLine)
	if !ok {
		return nil
	}
	now, ok := pathChecks(nf, newLine)
	if !ok {
		return nil
	}
	errorCheck := func(k string) bool { return errorCheckRe.MatchString(k) && !contextTest(k) }
	for k := range now {
		if _, had := was[k]; !had && (!errorCheck(k) || memberPathRe.MatchString(strings.TrimLeft(k, "!"))) {
			return nil
		}
	}
	text := strings.Join(strings.Fields(newText), "")
	var out []pathCheck
	same := func(c pathCheck) func(pathCheck) bool {
		return func(o pathCheck) bool { return o.from == c.from && o.cond == c.cond && o.term == c.term }
	}
	for k, c := range was {
		if _, kept := now[k]; kept || errorCheck(k) || slices.ContainsFunc(out, same(c)) || stillWritten(c.cond, text) {
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b pathCheck) int { return strings.Compare(a.cond, b.cond) })
	return out
}

// stillWritten reports whether every test of condition cond (its terms
// at && and ||, a leading ! dropped) is still in text, the new
// function's text without white space.
func stillWritten(cond, text string) bool {
	for _, alt := range lockctx.Terms(cond, "||") {
		for _, t := range lockctx.Terms(alt, "&&") {
			t = strings.TrimLeft(strings.Join(strings.Fields(t), ""), "!")
			if !strings.Contains(text, t) {
				return false
			}
		}
	}
	return true
}

// lifted returns the checks the patch removed from the path to the
// sleeping call of nf at newLine that the call of of at oldLine, taking
// the same path, made (liftedChecks); nil when none, or without a tree.
func (r *checker) lifted(of, nf *cscan.Func, oldLine, newLine int) []pathCheck {
	if r.p.Index == nil {
		return nil // no tree: no caller to judge a lifted check by
	}
	return liftedChecks(of, nf, oldLine, newLine, condsText(nf.Body, newLine), r.contextTest)
}

// keptChecks returns the checks on the way to the call of nf at line that
// test more than an error: what still keeps callers off it.
func (r *checker) keptChecks(nf *cscan.Func, line int) []pathCheck {
	if nf == nil {
		return nil
	}
	now, _ := pathChecks(nf, line)
	var out []pathCheck
	for k, c := range now {
		if !errorCheckRe.MatchString(k) || r.contextTest(k) {
			out = append(out, c)
		}
	}
	return out
}

// contextTest reports whether a condition tests the running context or
// a reference count (the table's cond_sleep_guards and
// cond_sleep_else_guards).
func (r *checker) contextTest(cond string) bool {
	sl, ok := r.m.Target().(*sleeper)
	if !ok {
		return false
	}
	in := func(p string) bool { return strings.Contains(cond, p) }
	return slices.ContainsFunc(sl.condSleep, in) || slices.ContainsFunc(sl.condSleepElse, in)
}

// describeLifted says what the patch removed, for the finding's
// explanation.
func describeLifted(cs []pathCheck) string {
	var qs []string
	for _, c := range cs {
		q := "`" + c.cond + "`"
		switch c.from {
		case "exit":
			q = "returning early when " + q
		case "else":
			q = "taking it only unless " + q
		default:
			q = "calling it only if " + q
		}
		if !slices.Contains(qs, q) {
			qs = append(qs, q)
		}
	}
	what := "the check "
	if len(qs) > 1 {
		what = "the checks "
	}
	return "the patch removed " + what + strings.Join(qs, " and ") + ", which kept this call off some paths"
}

// condsText returns the conditions tested in s on lines up to before
// (ifs, loops, switches) and its ?: expressions, one per line: what a
// lifted check may still be written in (stillWritten), comments,
// strings and the signature aside.
func condsText(s cscan.Stmt, before int) string {
	var b strings.Builder
	cscan.Inspect(s, func(s cscan.Stmt) {
		cond, _ := cscan.CondOf(s)
		switch v := s.(type) {
		case *cscan.ExprStmt:
			if strings.Contains(v.Text, "?") {
				b.WriteString(v.Text + "\n")
			}
			return
		case *cscan.ReturnStmt:
			if strings.Contains(v.Expr, "?") {
				b.WriteString(v.Expr + "\n")
			}
			return
		}
		if cond != "" && cscan.StmtLine(s) <= before {
			b.WriteString(cond + "\n")
		}
	})
	return b.String()
}

// switchExits returns the conditions under which switch s leaves the
// function, cond == label for each case label whose statements (up to
// the next label) end in an exit with no break among them, and the calls
// those statements make (queue_work() before the return).
func switchExits(s *cscan.SwitchStmt) (conds []string, calls [][]string) {
	b, ok := s.Body.(*cscan.Block)
	if !ok {
		return nil, nil
	}
	var labels []string
	var run []cscan.Stmt
	flush := func() {
		if len(run) > 0 && exits(run[len(run)-1]) && !slices.ContainsFunc(run, breaks) {
			var names []string
			for _, st := range run {
				names = append(names, callNames(st)...)
			}
			for _, l := range labels {
				if l != "default" {
					conds = append(conds, strings.TrimSpace(s.Cond)+" == "+strings.TrimSpace(l))
					calls = append(calls, names)
				}
			}
		}
		labels, run = nil, nil
	}
	for _, st := range b.Stmts {
		if c, ok := st.(*cscan.CaseStmt); ok {
			if len(run) > 0 {
				flush()
			}
			labels = append(labels, c.Label)
			continue
		}
		run = append(run, st)
	}
	flush()
	return conds, calls
}

// breaks reports whether s may break out of the switch it is in: a break
// outside any loop or switch of its own.
func breaks(s cscan.Stmt) bool {
	switch v := s.(type) {
	case *cscan.BreakStmt:
		return true
	case *cscan.Block:
		return slices.ContainsFunc(v.Stmts, breaks)
	case *cscan.IfStmt:
		return breaks(v.Then) || v.Else != nil && breaks(v.Else)
	case *cscan.ScopedGuardStmt:
		return breaks(v.Body)
	}
	return false
}
