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
	return checks, checksTo(fn.Body, line, checks)
}

// require adds the terms a path takes when cond is true (or false, for
// !holds) to checks.
func require(checks map[string]pathCheck, cond string, holds bool, from string) {
	pc := pathCheck{from: from, cond: strings.Join(strings.Fields(cond), " ")}
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
		var before []string
		for _, c := range v.Stmts {
			if checksTo(c, line, checks) {
				for _, e := range before {
					require(checks, e, false, "exit")
				}
				return true
			}
			if iff, ok := c.(*cscan.IfStmt); ok && iff.Else == nil && exits(iff.Then) {
				before = append(before, iff.Cond)
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
			require(sub, v.Cond, true, "if")
		case v.Else != nil && checksTo(v.Else, line, sub):
			require(sub, v.Cond, false, "else")
		default:
			return false
		}
		maps.Copy(checks, sub)
		return true
	case *cscan.LoopStmt:
		return callAt(v.CondCalls) || checksTo(v.Body, line, checks)
	case *cscan.SwitchStmt:
		return callAt(v.CondCalls) || checksTo(v.Body, line, checks)
	case *cscan.ScopedGuardStmt:
		return v.Call.Line == line || checksTo(v.Body, line, checks)
	}
	return false
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
// check); none when either call is not found. A test of the running
// context (contextTest) that another takes the place of is no lifted
// check: which of them is stricter is not known here
// (z_erofs_in_atomic() for in_atomic() || irqs_disabled()).
func liftedChecks(of, nf *cscan.Func, oldLine, newLine int, contextTest func(string) bool) []pathCheck {
	was, ok := pathChecks(of, oldLine)
	if !ok {
		return nil
	}
	now, ok := pathChecks(nf, newLine)
	if !ok {
		return nil
	}
	tested := false
	for k := range now {
		tested = tested || contextTest(k)
	}
	var out []pathCheck
	for k, c := range was {
		if _, kept := now[k]; kept || errorCheckRe.MatchString(k) && !contextTest(k) || tested && contextTest(k) || slices.Contains(out, c) {
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b pathCheck) int { return strings.Compare(a.cond, b.cond) })
	return out
}

// lifted returns the checks the patch removed from the path to a
// sleeping call of nf at newLine that every call of of taking the same
// path (at oldLines) made; nil when one of them made none (the old
// version took the path unchecked too). Of several old calls, the one
// whose path the new call's is nearest to (the fewest checks lifted) is
// the one it stands for.
func (r *checker) lifted(of, nf *cscan.Func, oldLines []int, newLine int) []pathCheck {
	var out []pathCheck
	for _, ol := range oldLines {
		cs := liftedChecks(of, nf, ol, newLine, r.contextTest)
		if len(cs) == 0 {
			return nil
		}
		if out == nil || len(cs) < len(out) {
			out = cs
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

// liftLevel is what a lifted check makes of a chain (liftMatters).
type liftLevel int

const (
	// liftRisk: the check kept the chain's caller off the sleep, or no
	// check was lifted.
	liftRisk liftLevel = iota
	// liftNote: the check was a test of the running context that failed
	// with the chain's contexts held. Such tests are what the kernel
	// removes on purpose once its callers say what they may do (a gfp_t
	// or a flag handed down: in_atomic() misses a spinlock without
	// CONFIG_PREEMPT_COUNT): worth a note, not an alarm.
	liftNote
	// liftNone: the check says nothing of this caller.
	liftNone
)

// liftMatters says whether a chain from fn (holding the contexts held)
// down to callee, a function newly reaching a sleep because the patch
// lifted checks from its path (liftedBy), is one those checks kept off
// the sleep. A risk when a function of the chain above callee (or a
// helper of its file it calls) sets up what a check read: a member set
// to a constant or to a variable the check names, or a global variable
// the check reads (ftrace_dump()'s trace_init_global_iter() sets
// iter->temp = static_temp_buf, which trace_find_next_entry() tested);
// or when a check of a parameter fails for the value the chain passes
// (paramVerdict). A note when a check tested the running context and
// failed with those contexts held (the table's context_tests:
// in_interrupt() in a timer callback), or was a context test of the
// file's own. Other checks (a size limit, a mode nobody on the chain
// sets) say nothing of this caller: its chain was there before the
// patch.
func (r *checker) liftMatters(fn *cscan.Func, held []lockctx.Held, proof *lockctx.Reach, callee string) liftLevel {
	cs, ok := r.liftedBy[callee]
	if !ok {
		return liftRisk
	}
	var calleeFn *cscan.Func
	for _, st := range proof.Steps {
		if st.Func == callee {
			if defs := cscan.PickDefs(r.p.Index.Funcs(callee), st.File); len(defs) > 0 {
				calleeFn = defs[0]
			}
			break
		}
	}
	if calleeFn == nil {
		return liftNone
	}
	if r.setUpByChain(fn, proof, calleeFn, cs) {
		return liftRisk
	}
	if level, ok := r.paramVerdict(proof, calleeFn, cs); ok {
		return level
	}
	if sl, ok := r.m.Target().(*sleeper); ok {
		kinds := heldKinds(held)
		for _, c := range cs {
			if v, ok := sl.testValue(c.term, kinds); ok && !v || !ok && r.contextTest(c.term) {
				return liftNote // failed here, or a test of its own (z_erofs_in_atomic())
			}
		}
	}
	return liftNone
}

// setUpByChain reports whether a function of the chain from fn down to
// callee (or a helper of its file) sets up what lifted checks cs read
// (liftMatters).
func (r *checker) setUpByChain(fn *cscan.Func, proof *lockctx.Reach, calleeFn *cscan.Func, cs []pathCheck) bool {
	var names []checkName
	var values []string
	params, calleeBody := r.newR.Params(calleeFn), r.funcBody(calleeFn)
	for _, c := range cs {
		for _, n := range readNames(c.cond) {
			// A member (->temp), or a global variable: neither a
			// parameter of callee (what it was handed says nothing of
			// who set it up), nor the base of a member (iter), nor a
			// local of callee.
			global := !n.member && !n.base && !slices.Contains(params, n.name) && !declares(calleeBody, n.name)
			if !slices.Contains(names, n) && (n.member || global) {
				names = append(names, n)
			}
			if global {
				values = append(values, n.name)
			}
		}
	}
	for _, body := range r.chainBodies(fn, proof, calleeFn.Name) {
		for _, n := range names {
			if n.member && setsMember(body, n.name, values) || !n.member && regexp.MustCompile(`\b`+n.name+`\b`).MatchString(body) {
				return true
			}
		}
	}
	return false
}

// chainBodies returns the text of fn and of the functions of the chain
// below it down to callee, and of the helpers of their own files they
// call: those set up what they hand on too (trace_init_global_iter(&iter)
// in ftrace_dump()).
func (r *checker) chainBodies(fn *cscan.Func, proof *lockctx.Reach, callee string) []string {
	funcs := []*cscan.Func{fn}
	for _, st := range proof.Steps {
		if st.Func == callee {
			break
		}
		if st.Func != fn.Name {
			if defs := cscan.PickDefs(r.p.Index.Funcs(st.Func), st.File); len(defs) > 0 {
				funcs = append(funcs, defs[0])
			}
		}
	}
	for _, f := range funcs {
		for _, call := range f.Calls {
			if call.Name == callee {
				continue
			}
			if defs := cscan.PickDefs(r.p.Index.Funcs(call.Name), f.File); len(defs) > 0 && defs[0].File == f.File && !slices.Contains(funcs, defs[0]) {
				funcs = append(funcs, defs[0])
			}
		}
	}
	var out []string
	for _, f := range funcs {
		out = append(out, r.funcBody(f))
	}
	return out
}

// funcBody returns the text of fn's lines ("" when its file cannot be
// read).
func (r *checker) funcBody(fn *cscan.Func) string {
	text, err := r.p.Index.Text(fn.File)
	if err != nil {
		return ""
	}
	lines := strings.Split(text, "\n")
	if fn.Start < 1 || fn.End > len(lines) || fn.Start > fn.End {
		return ""
	}
	return strings.Join(lines[fn.Start-1:fn.End], "\n")
}

// checkName is a name a check reads: a member (after -> or .) or not,
// and the base of a member access (before one) or not.
type checkName struct {
	name         string
	member, base bool
}

// readNames returns the names a condition reads, calls aside.
func readNames(cond string) []checkName {
	var out []checkName
	for i := 0; i < len(cond); {
		if !cscan.IsIdentStart(cond[i]) || i > 0 && cscan.IsIdentChar(cond[i-1]) {
			i++
			continue
		}
		j := i
		for j < len(cond) && cscan.IsIdentChar(cond[j]) {
			j++
		}
		before := strings.TrimRight(cond[:i], " \t")
		after := strings.TrimLeft(cond[j:], " \t")
		if !strings.HasPrefix(after, "(") {
			out = append(out, checkName{name: cond[i:j],
				member: strings.HasSuffix(before, "->") || strings.HasSuffix(before, "."),
				base:   strings.HasPrefix(after, "->") || strings.HasPrefix(after, ".")})
		}
		i = j
	}
	return out
}

// setsMember reports whether body sets member name (p->x = v, s.x = v)
// to a constant (a number, true or false, an upper-case macro) or to one
// of values: a count stepped on the way or a computed value sets up no
// path a check can tell.
func setsMember(body, name string, values []string) bool {
	re := regexp.MustCompile(`(?:\.|->)\s*` + name + `\s*=\s*([^=;][^;]*);`)
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		v := strings.TrimSpace(m[1])
		if constRe.MatchString(v) || slices.Contains(values, v) {
			return true
		}
	}
	return false
}

// constRe matches a constant value: a number, true, false, an
// upper-case macro.
var constRe = regexp.MustCompile(`^(?:-?\d\w*|true|false|[A-Z][A-Z0-9_]*)$`)

// declares reports whether body declares or sets variable name: a local
// of the function, not a global the check reads.
func declares(body, name string) bool {
	if regexp.MustCompile(`\b` + name + `\s*=[^=]`).MatchString(body) {
		return true
	}
	for _, m := range regexp.MustCompile(`(\w+)[\s*]+`+name+`\s*[;=,\[)]`).FindAllStringSubmatch(body, -1) {
		switch m[1] {
		case "return", "case", "sizeof", "else", "goto", "do":
		default:
			return true
		}
	}
	return false
}
