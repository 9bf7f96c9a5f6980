package sleep

import (
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// Which callers a lifted check kept off a sleep (liftedguard.go): those
// whose chain sets up what the check tested, or hands down the value of
// a parameter it refused (liftedparam.go).

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
// helper of its file it hands the same object) sets up what a check
// read: a member it tests set to a value the check compares it with (or
// to any constant, for a bare flag), or a file-scope variable the check
// reads (ftrace_dump()'s trace_init_global_iter(&iter) sets iter->temp =
// static_temp_buf, which trace_find_next_entry() tested); or when a
// check of a parameter fails for the value the chain passes
// (paramVerdict). A note when a check tested the running context and
// failed with those contexts held (the table's context_tests:
// in_interrupt() in a timer callback; or a function of the tree made of
// them, contextwrapper.go). A risk when a check's other way (its exit's
// branch, the other branch of its if) handed the work to a worker in
// process context (the table's process_deferrals: queue_work()): that
// is the way a caller in atomic context went. Other checks (a size limit, a
// mode nobody on the chain sets) say nothing of this caller: its chain
// was there before the patch; nor does a check that moved up the chain
// (a caller or wrapper makes it now), nor one when a check left on the
// path is set up by the chain too (it still keeps this caller off).
func (r *checker) liftMatters(fn *cscan.Func, held []lockctx.Held, proof *lockctx.Reach, callee string) liftLevel {
	i := slices.IndexFunc(proof.Steps, func(s report.Step) bool { return s.Func == callee })
	if i < 0 {
		return liftRisk
	}
	cs, ok := r.liftedBy[proof.Steps[i].File+":"+callee]
	if !ok {
		return liftRisk
	}
	calleeFn := r.defOf(callee, proof.Steps[i].File)
	if calleeFn == nil {
		return liftNone
	}
	if r.checkedOnChain(proof, callee, cs) {
		return liftNone // the check moved up the chain
	}
	bodies := r.chainBodies(fn, proof, callee)
	fileLines := r.fileLines(calleeFn.File)
	if setUpByChain(bodies, fileLines, r.keptChecks(r.callerBody(calleeFn), proof.Steps[i].Line)) {
		return liftNone // a check left on the path still keeps this caller off
	}
	if setUpByChain(bodies, fileLines, cs) {
		return liftRisk
	}
	if level, ok := r.paramVerdict(proof, calleeFn, cs); ok {
		return level
	}
	sl, ok := r.m.Target().(*sleeper)
	if !ok {
		return liftNone
	}
	kinds, level := heldKinds(held), liftNone
	for _, c := range cs {
		// A check whose other way handed the work to a worker chose
		// process context for it: a caller in atomic context went that
		// way, and without the check it does the work itself; unless
		// the check tests the context and holds with this caller's
		// (in_irq() in a timer): it never went the other way.
		v, test := r.contextValue(sl, c.term, kinds, calleeFn.File)
		switch {
		case test && v:
		case r.defers(sl, c.altCalls, calleeFn.File):
			return liftRisk
		case test:
			level = liftNote
		}
	}
	return level
}

// defers reports whether calls, made in file, hand work to a worker in
// process context: one of them is a process deferral, or a function of
// the tree that makes one itself (led_defer() calling schedule_work()).
func (r *checker) defers(sl *sleeper, calls []string, file string) bool {
	for _, n := range calls {
		if sl.processDeferrals[n] {
			return true
		}
		if fn := r.defOf(n, file); fn != nil {
			if full := r.p.Index.Full(fn); full != nil && slices.ContainsFunc(full.Calls, func(c cscan.Call) bool { return sl.processDeferrals[c.Name] }) {
				return true
			}
		}
	}
	return false
}

// checkedOnChain reports whether a function of the chain above callee
// makes one of the lifted checks cs on its way down (the same term, or
// one of its alternatives, on its path to the call): the check moved up
// to a caller or a wrapper.
func (r *checker) checkedOnChain(proof *lockctx.Reach, callee string, cs []pathCheck) bool {
	for _, st := range proof.Steps {
		if st.Func == callee {
			break
		}
		def := r.defOf(st.Func, st.File)
		if def == nil {
			continue
		}
		f := r.callerBody(def)
		if f == nil {
			continue
		}
		checks, ok := pathChecks(f, st.Line)
		if !ok {
			continue
		}
		for _, c := range cs {
			// A check on the chain that is the term or one of its
			// alternatives makes it hold (it->need <= MAX for
			// it->buf != static_buf || it->need <= MAX).
			for _, alt := range lockctx.Terms(c.term, "||") {
				if _, moved := checks[strings.Join(strings.Fields(alt), "")]; moved {
					return true
				}
			}
		}
	}
	return false
}

// setUpByChain reports whether one of the chain's function texts bodies
// (chainBodies) sets up what checks cs of the callee, whose file's lines
// are fileLines, read (liftMatters).
func setUpByChain(bodies, fileLines []string, cs []pathCheck) bool {
	for _, c := range cs {
		names := readNames(c.term)
		var values []string
		for _, n := range names {
			if !n.member && !n.base {
				values = append(values, n.name)
			}
		}
		bare := memberPathRe.MatchString(strings.TrimSpace(strings.TrimLeft(c.term, "! ")))
		for _, n := range names {
			global := !n.member && !n.base && fileScopeVar(fileLines, n.name)
			for _, body := range bodies {
				if n.member && setsMember(body, n.name, values, bare) || global && assigns(body, n.name) {
					return true
				}
			}
		}
	}
	return false
}

// chainBodies returns the text of fn and of the functions of the chain
// below it down to callee, and of the helpers of their own files they
// hand an object they also hand down the chain: those set it up too
// (trace_init_global_iter(&iter) and print_trace_line(&iter) in
// ftrace_dump()).
func (r *checker) chainBodies(fn *cscan.Func, proof *lockctx.Reach, callee string) []string {
	type link struct {
		f    *cscan.Func
		line int // of the call down the chain
	}
	links := []link{}
	for _, st := range proof.Steps {
		if st.Func == callee {
			break
		}
		if def := r.defOf(st.Func, st.File); def != nil {
			links = append(links, link{def, st.Line})
		}
	}
	if len(links) == 0 {
		links = append(links, link{f: fn})
	}
	var out []string
	var seen []*cscan.Func
	for _, l := range links {
		if slices.Contains(seen, l.f) {
			continue
		}
		seen = append(seen, l.f)
		out = append(out, r.funcBody(l.f))
		var handed []string
		for _, c := range l.f.Calls {
			if c.Line == l.line {
				handed = append(handed, argBases(c.Args)...)
			}
		}
		for _, c := range l.f.Calls {
			if c.Line == l.line || !slices.ContainsFunc(argBases(c.Args), func(b string) bool { return slices.Contains(handed, b) }) {
				continue
			}
			if def := r.defOf(c.Name, l.f.File); def != nil && def.File == l.f.File && !slices.Contains(seen, def) {
				seen = append(seen, def)
				out = append(out, r.funcBody(def))
			}
		}
	}
	return out
}

// argBases returns the variables arguments are built on: iter of &iter,
// p of p->q.
func argBases(args []string) []string {
	var out []string
	for _, a := range args {
		a = strings.TrimLeft(strings.TrimSpace(a), "&*( ")
		j := 0
		for j < len(a) && cscan.IsIdentChar(a[j]) {
			j++
		}
		if j > 0 && cscan.IsIdentStart(a[0]) {
			out = append(out, a[:j])
		}
	}
	return out
}

// defOf returns the tree's definition of function name that a call from
// file means (cscan.PickDefs), or nil.
func (r *checker) defOf(name, file string) *cscan.Func {
	if defs := cscan.PickDefs(r.p.Index.Funcs(name), file); len(defs) > 0 {
		return defs[0]
	}
	return nil
}

// funcBody returns the text of fn's lines ("" without a tree, or when
// its file cannot be read).
func (r *checker) funcBody(fn *cscan.Func) string {
	lines := r.fileLines(fn.File)
	if fn.Start < 1 || fn.End > len(lines) || fn.Start > fn.End {
		return ""
	}
	return strings.Join(lines[fn.Start-1:fn.End], "\n")
}

// fileLines returns the lines of a file of the tree, read once per run
// (nil without a tree, or when it cannot be read).
func (r *checker) fileLines(file string) []string {
	if r.p.Index == nil {
		return nil
	}
	if ls, ok := r.lines[file]; ok {
		return ls
	}
	var ls []string
	if text, err := r.p.Index.Text(file); err == nil {
		ls = strings.Split(text, "\n")
	}
	r.lines[file] = ls
	return ls
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

// memberPathRe matches a member path tested bare (it->dumping, d.flags.on).
var memberPathRe = regexp.MustCompile(`^\w+(?:\s*(?:->|\.)\s*\w+)+$`)

// memberStoreRe matches a store to a member: its name and the value.
var memberStoreRe = regexp.MustCompile(`(?:\.|->)\s*(\w+)\s*=\s*([^=;][^;]*);`)

// setsMember reports whether body sets member name (p->x = v, s.x = v)
// to one of values (what the check compares it with), or, for a bare
// flag test, to a constant (a number, true or false, an upper-case
// macro): a count stepped on the way or a computed value sets up no path
// a check can tell.
func setsMember(body, name string, values []string, bare bool) bool {
	for _, m := range memberStoreRe.FindAllStringSubmatch(body, -1) {
		v := strings.TrimSpace(m[2])
		if m[1] == name && (slices.Contains(values, v) || bare && constRe.MatchString(v)) {
			return true
		}
	}
	return false
}

// constRe matches a constant value: a number, true, false, an
// upper-case macro.
var constRe = regexp.MustCompile(`^(?:-?\d\w*|true|false|[A-Z][A-Z0-9_]*)$`)

// fileScopeVar reports whether lines, a C file's, declare variable name
// at file scope (a line starting in column 0 that declares it), in lower
// case: not a macro, a type or NULL.
func fileScopeVar(lines []string, name string) bool {
	if name == "" || strings.ToLower(name) != name {
		return false
	}
	for _, l := range lines {
		if l == "" || !cscan.IsIdentStart(l[0]) || !cscan.ContainsWord(l, name) {
			continue
		}
		if i := strings.Index(l, name); i > 0 && strings.ContainsAny(l[:i], " *") && !strings.Contains(l[:i], "(") {
			rest := strings.TrimSpace(l[i+len(name):])
			if strings.HasPrefix(rest, "[") || strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ";") || strings.HasPrefix(rest, "__") {
				return true
			}
		}
	}
	return false
}
