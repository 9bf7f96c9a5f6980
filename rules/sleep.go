package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
)

// SleepRuleName is the rule name in findings.
const SleepRuleName = "sleep-in-atomic"

// maxReverseCallers bounds the caller functions the reverse analysis walks
// per patch.
const maxReverseCallers = 400

// NewSleepInAtomic builds the sleep-in-atomic rule: sleeping calls in
// atomic context (spinlocks, rwlocks, RCU read-side sections, irq/bh/
// preempt disabled) that a patch introduces, forward (a new or widened
// atomic region calling something that may sleep, at any depth) and in
// reverse (a function that newly may sleep, reached from callers in
// atomic context).
func NewSleepInAtomic(opts Options) (*Rule, error) {
	var t sleepTables
	if err := LoadTables("sleep", opts.TableFiles, &t); err != nil {
		return nil, err
	}
	m, err := compileSleepTables(&t)
	if err != nil {
		return nil, err
	}
	return &Rule{
		Name: SleepRuleName,
		Doc: "Sleeping calls in atomic context: a sleeping primitive (mutex, semaphore, msleep, " +
			"wait_event, GFP_KERNEL allocation, user copy, ...) or a function whose summary may sleep, " +
			"reached while a spinlock, rwlock or RCU read lock is held or irqs/bh/preemption are off. " +
			"Reports what the patch introduces, with the call chain; with a tree it also checks every " +
			"caller chain of a function that newly may sleep.",
		Run: func(p *Pass) ([]report.Finding, error) { return runSleep(p, m) },
	}, nil
}

// sleepRun is one run of the rule over one patch.
type sleepRun struct {
	p        *Pass
	m        *sleepModel
	depth    int
	newR     *resolver
	oldR     *resolver
	newFuncs map[*diffcheck.FuncChange]*cscan.Func
	oldFuncs map[*diffcheck.FuncChange]*cscan.Func
	lines    map[string][]string
	out      []report.Finding
	seen     map[string]bool
}

func runSleep(p *Pass, m *sleepModel) ([]report.Finding, error) {
	if p.Change == nil {
		return nil, nil
	}
	depth := p.Options.Depth
	if depth <= 0 {
		depth = 4
	}
	r := &sleepRun{p: p, m: m, depth: depth, newFuncs: map[*diffcheck.FuncChange]*cscan.Func{},
		oldFuncs: map[*diffcheck.FuncChange]*cscan.Func{}, lines: map[string][]string{}, seen: map[string]bool{}}
	newPatch := map[string][]*cscan.Func{}
	oldPatch := map[string][]*cscan.Func{}
	for _, fc := range p.Change.Funcs {
		if !diffcheck.IsCSource(fc.File) {
			continue
		}
		if fn := sideFunc(fc, fc.New); fn != nil {
			r.newFuncs[fc] = fn
			newPatch[fn.Name] = append(newPatch[fn.Name], fn)
		}
		if fn := sideFunc(fc, fc.Old); fn != nil {
			r.oldFuncs[fc] = fn
			oldPatch[fn.Name] = append(oldPatch[fn.Name], fn)
		}
	}
	var newIx, oldIx *index.Index
	if p.Index != nil {
		newIx, oldIx = p.Index, p.Index.Base()
	}
	r.newR = newResolver(m, newIx, newPatch, depth)
	r.oldR = newResolver(m, oldIx, oldPatch, depth)
	for _, fc := range p.Change.Funcs {
		nf := r.newFuncs[fc]
		if nf == nil {
			continue
		}
		of := r.oldFuncs[fc]
		if of == nil {
			of = r.movedFrom(nf)
		}
		r.forward(fc, nf, of)
		r.reverse(fc, nf, of)
		r.lockChange(nf, of)
	}
	if p.Index == nil && len(r.newR.unresolved) > 0 {
		var names []string
		for n := range r.newR.unresolved {
			names = append(names, n+"()")
		}
		sort.Strings(names)
		if len(names) > 6 {
			names = append(names[:6], "...")
		}
		p.Note(fmt.Sprintf("sleep-in-atomic: callees outside the patch (%s) were not followed: no --tree", strings.Join(names, ", ")))
	}
	sort.SliceStable(r.out, func(i, j int) bool {
		a, b := r.out[i], r.out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return r.out, nil
}

// startVisible reports whether the new side of nf shows every line from
// the function's header down to line (so an unlock there without a lock
// before it is really unbalanced, not a lock outside the hunks).
func (r *sleepRun) startVisible(nf *cscan.Func, line int) bool {
	for fc, fn := range r.newFuncs {
		if fn != nf {
			continue
		}
		if !fc.New.Partial {
			return true
		}
		if nf.Start == 0 {
			return false
		}
		prev := 0
		for _, l := range fc.New.Lines {
			if l > line {
				break
			}
			if l >= nf.Start && prev >= nf.Start && l != prev+1 {
				return false
			}
			prev = l
		}
		return prev >= nf.Start
	}
	return false
}

// movedFrom finds the pre-patch definition of a function the patch adds:
// one the patch deletes elsewhere (a function moved to a header), or one
// already in the tree.
func (r *sleepRun) movedFrom(nf *cscan.Func) *cscan.Func {
	for fc, of := range r.oldFuncs {
		if fc.Name == nf.Name && r.newFuncs[fc] == nil {
			return of
		}
	}
	if r.oldR.ix != nil {
		if defs := pickDefs(r.oldR.ix.Funcs(nf.Name), nf.File); len(defs) > 0 {
			return r.oldR.ix.Full(defs[0])
		}
	}
	return nil
}

// sideFunc parses one side of a touched function.
func sideFunc(fc *diffcheck.FuncChange, s diffcheck.Side) *cscan.Func {
	if s.Text == "" {
		return nil
	}
	fn := cscan.ParseBody(s.Text, s.Lines)
	if fn.Name == "" || fn.Name != fc.Name {
		fn.Name = fc.Name
	}
	fn.File = fc.File
	if strings.HasSuffix(fc.File, ".h") {
		fn.Static = true
	}
	return fn
}

// sleepEvent is a call that may sleep reached with contexts held.
type sleepEvent struct {
	call  cscan.Call
	state ctxState
	proof *sleepProof
}

// events walks fn and returns its sleeping calls made in atomic context.
func events(r *resolver, fn *cscan.Func) []sleepEvent {
	if fn == nil {
		return nil
	}
	var out []sleepEvent
	w := newWalker(r, fn, func(v callVisit) {
		if v.sleep == nil || v.state.dead || v.state.empty() {
			return
		}
		st := effective(v.state, v.sleep)
		if st.empty() {
			return
		}
		out = append(out, sleepEvent{call: v.call, state: st, proof: v.sleep})
	})
	w.run(ctxState{})
	return out
}

// effective removes from st the contexts the sleeping callee drops before
// it sleeps (a function that unlocks its caller's spinlock around a
// sleep). RCU is kept: an unbalanced rcu_read_unlock()/rcu_read_lock()
// pair inside a callee does not end the caller's read-side section.
func effective(st ctxState, p *sleepProof) ctxState {
	if len(p.drops) == 0 {
		return st
	}
	st = st.clone()
	for _, d := range p.drops {
		if d.kind != "rcu" {
			st.release(d.kind, "")
		}
	}
	return st
}

func eventKey(e sleepEvent) string {
	var kinds []string
	for _, h := range e.state.held {
		kinds = append(kinds, h.kind)
	}
	sort.Strings(kinds)
	return e.call.Name + "|" + e.proof.prim + "|" + strings.Join(kinds, ",")
}

// forward reports sleeping calls in atomic context in the new version of
// a touched function that the old version did not have.
func (r *sleepRun) forward(fc *diffcheck.FuncChange, nf, of *cscan.Func) {
	old := map[string]bool{}
	for _, e := range events(r.oldR, of) {
		old[eventKey(e)] = true
	}
	for _, e := range events(r.newR, nf) {
		if old[eventKey(e)] {
			continue
		}
		r.report(nf, e.call.Line, e.state, e.proof, "")
	}
}

// reverse handles a function that newly may sleep: every caller chain (to
// the depth) reaching it in atomic context.
func (r *sleepRun) reverse(fc *diffcheck.FuncChange, nf, of *cscan.Func) {
	ns := r.newR.summaryOf(nf, r.depth)
	if ns.sleep == nil {
		return
	}
	if of != nil && r.oldR.summaryOf(of, r.depth).sleep != nil {
		return
	}
	proof := ns.sleep
	if r.p.Index == nil {
		r.patchOnlyReverse(nf, of, proof)
		return
	}
	type frame struct {
		name, file string
		static     bool
		chain      []report.Step
		level      int
	}
	queue := []frame{{name: nf.Name, file: nf.File, static: nf.Static && !strings.HasSuffix(nf.File, ".h"), chain: proof.steps}}
	visited := map[string]bool{}
	walked := 0
	truncated := false
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, site := range r.p.Index.Callers(cur.name) {
			if cur.static && site.Func.File != cur.file {
				continue
			}
			if site.Func.Name == cur.name {
				continue // recursion
			}
			id := site.Func.File + ":" + site.Func.Name + "->" + cur.name
			if visited[id] {
				continue
			}
			visited[id] = true
			if walked >= maxReverseCallers {
				truncated = true
				break
			}
			walked++
			caller := r.callerBody(site.Func)
			if caller == nil {
				continue
			}
			type at struct {
				call cscan.Call
				st   ctxState
			}
			var sites []at
			w := newWalker(r.newR, caller, func(v callVisit) {
				if v.call.Name == cur.name && !v.state.dead {
					sites = append(sites, at{v.call, v.state})
				}
			})
			w.run(ctxState{})
			for _, s := range sites {
				st := effective(s.st, proof)
				callStep := stepOf(caller, s.call.Line, "calls "+cur.name+"()")
				chain := append([]report.Step{callStep}, cur.chain...)
				if !st.empty() {
					r.report(caller, s.call.Line, st, &sleepProof{steps: chain, prim: proof.prim, why: proof.why,
						drops: proof.drops, retakes: proof.retakes}, nf.Name)
					continue
				}
				if cur.level+1 < r.depth {
					queue = append(queue, frame{name: caller.Name, file: caller.File,
						static: caller.Static && !strings.HasSuffix(caller.File, ".h"), chain: chain, level: cur.level + 1})
				}
			}
		}
	}
	if truncated {
		r.p.Note(fmt.Sprintf("sleep-in-atomic: %s() may now sleep; only %d caller functions were checked", nf.Name, maxReverseCallers))
	}
}

// lockChange handles a function that now returns with an atomic context
// held that it did not enter before (a lock helper turned from a mutex
// into a spinlock): every caller's region after the call is re-checked
// for sleeping calls.
func (r *sleepRun) lockChange(nf, of *cscan.Func) {
	ns := r.newR.summaryOf(nf, r.depth)
	if len(ns.acquires)+len(ns.condAcquires) == 0 {
		return
	}
	var os *summary
	if of != nil {
		os = r.oldR.summaryOf(of, r.depth)
	}
	had := func(kind string) bool {
		if os == nil {
			return false
		}
		for _, e := range append(append([]effect(nil), os.acquires...), os.condAcquires...) {
			if e.kind == kind {
				return true
			}
		}
		return false
	}
	newKinds := map[string]bool{}
	for _, e := range append(append([]effect(nil), ns.acquires...), ns.condAcquires...) {
		if !had(e.kind) {
			newKinds[e.kind] = true
		}
	}
	if len(newKinds) == 0 {
		return
	}
	if r.p.Index == nil {
		r.p.Note(fmt.Sprintf("sleep-in-atomic: %s() now returns in atomic context; its callers' regions were not checked: no --tree", nf.Name))
		return
	}
	static := nf.Static && !strings.HasSuffix(nf.File, ".h")
	seen := map[string]bool{}
	n := 0
	for _, site := range r.p.Index.Callers(nf.Name) {
		if static && site.Func.File != nf.File {
			continue
		}
		id := site.Func.File + ":" + site.Func.Name
		if seen[id] {
			continue
		}
		seen[id] = true
		if n++; n > maxReverseCallers {
			r.p.Note(fmt.Sprintf("sleep-in-atomic: %s() now returns in atomic context; only %d callers were re-checked", nf.Name, maxReverseCallers))
			break
		}
		caller := r.callerBody(site.Func)
		if caller == nil {
			continue
		}
		for _, e := range events(r.newR, caller) {
			via := false
			for _, h := range e.state.held {
				if newKinds[h.kind] && h.at.What == "calls "+nf.Name+"()" {
					via = true
				}
			}
			if via {
				r.report(caller, e.call.Line, e.state, e.proof, "")
			}
		}
	}
}

// callerBody returns the post-patch body of a caller: the patch's version
// when the patch touches it, else the tree's.
func (r *sleepRun) callerBody(fn *cscan.Func) *cscan.Func {
	for fc, nf := range r.newFuncs {
		if fc.Name == fn.Name && fc.File == fn.File {
			return nf
		}
	}
	return r.p.Index.Full(fn)
}

// patchOnlyReverse says what the hunks show about a function that newly
// may sleep when no tree is available for its callers.
func (r *sleepRun) patchOnlyReverse(nf, of *cscan.Func, proof *sleepProof) {
	name := nf.Name + "()"
	r.p.Note(fmt.Sprintf("sleep-in-atomic: callers of %s were not checked: no --tree", name))
	var hints []string
	var weak []string
	for _, d := range proof.drops {
		if !r.startVisible(nf, d.steps[0].Line) {
			last := d.steps[len(d.steps)-1]
			weak = append(weak, fmt.Sprintf("the lines the hunks show leave a %s with %s at %s:%d and none enters it before",
				kindName(d.kind), last.What, last.File, last.Line))
			continue
		}
		hints = append(hints, fmt.Sprintf("it leaves an atomic context it did not enter (%s: %s at %s:%d), so its callers are in it",
			kindName(d.kind), d.steps[len(d.steps)-1].What, d.steps[len(d.steps)-1].File, d.steps[len(d.steps)-1].Line))
	}
	if of != nil {
		var oldKinds []string
		for _, c := range of.Calls {
			if p, ok := r.m.acquire[c.Name]; ok && !hasCall(nf, c.Name) {
				oldKinds = append(oldKinds, fmt.Sprintf("the old version entered a %s there (%s)", kindName(p.kind), callText(c)))
			}
		}
		hints = append(hints, oldKinds...)
	}
	if len(hints) == 0 {
		return
	}
	hints = append(hints, weak...)
	last := proof.steps[len(proof.steps)-1]
	f := report.Finding{
		Rule:      SleepRuleName,
		Severity:  report.SeverityNote,
		Patch:     r.p.Patch,
		File:      nf.File,
		Func:      nf.Name,
		Line:      proof.steps[0].Line,
		Key:       proof.prim,
		NeedsTree: true,
		Message:   fmt.Sprintf("%s may sleep now (%s); its callers need a tree to check", name, chainText(proof.steps)),
		Explanation: fmt.Sprintf("%s now reaches %s, which %s (%s:%d). %s. Whether any caller runs in atomic "+
			"context cannot be decided from the patch alone: run with --tree.", name, last.What, proof.why, last.File, last.Line,
			capitalize(strings.Join(hints, "; "))),
		Chain: proof.steps,
	}
	for _, s := range proof.steps {
		if t := r.lineText(s.File, s.Line); t != "" {
			f.Evidence = append(f.Evidence, fmt.Sprintf("%s:%d: %s", s.File, s.Line, t))
		}
	}
	r.add(f)
}

func hasCall(fn *cscan.Func, name string) bool {
	for _, c := range fn.Calls {
		if c.Name == name {
			return true
		}
	}
	return false
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// chainText renders "a() -> b() -> mutex_lock_nested()".
func chainText(steps []report.Step) string {
	var parts []string
	for _, s := range steps {
		w := s.What
		if strings.HasPrefix(w, "calls ") {
			w = strings.TrimPrefix(w, "calls ")
		} else if i := strings.Index(w, "("); i > 0 {
			w = w[:i] + "()"
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, " -> ")
}

// report adds one finding: in fn at line, contexts st held, proof the
// sleeping chain (outermost first, starting in fn). callee names the
// function that newly may sleep for reverse findings ("" for forward).
func (r *sleepRun) report(fn *cscan.Func, line int, st ctxState, proof *sleepProof, callee string) {
	sev := report.SeverityNote
	if st.anyMust() {
		sev = report.SeverityRisk
	}
	var steps []report.Step
	var ctxs, keys []string
	hs := append([]held(nil), st.held...)
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].at.Line < hs[j].at.Line })
	addStep := func(s report.Step) {
		for _, x := range steps {
			if x == s {
				return
			}
		}
		steps = append(steps, s)
	}
	for _, h := range hs {
		addStep(h.at)
		for _, v := range h.via {
			addStep(v)
		}
		c := kindName(h.kind)
		if h.key != "" {
			c += " " + h.key
		}
		where := fmt.Sprintf("%s at %s:%d", strings.TrimPrefix(h.at.What, "calls "), h.at.File, h.at.Line)
		if len(h.via) > 0 {
			where += " (" + chainText(append([]report.Step{h.at}, h.via...)) + ")"
		}
		if !h.must {
			where += ", on some paths"
		}
		ctxs = append(ctxs, c+" entered by "+where)
		k := h.key
		if k == "" {
			k = strings.TrimPrefix(h.at.What, "calls ")
		}
		keys = append(keys, k)
	}
	steps = append(steps, proof.steps...)
	last := proof.steps[len(proof.steps)-1]
	target := fn
	tLine := line
	if callee != "" {
		// Reverse finding: it belongs to the function that newly sleeps.
		for _, s := range proof.steps {
			if s.Func == callee {
				target = &cscan.Func{Name: s.Func, File: s.File}
				tLine = s.Line
				break
			}
		}
	}
	msg := fmt.Sprintf("%s() may sleep (%s) in atomic context (%s held in %s())", fn.Name, chainText(proof.steps), strings.Join(uniq(kindsOf(hs)), ", "), fn.Name)
	if callee != "" {
		from := proof.steps
		for i, s := range proof.steps {
			if s.Func == callee {
				from = proof.steps[i:]
				break
			}
		}
		msg = fmt.Sprintf("%s() may sleep now (%s) but %s() calls it in atomic context (%s)", callee, chainText(from), fn.Name, strings.Join(uniq(kindsOf(hs)), ", "))
	}
	expl := fmt.Sprintf("%s (%s:%d) %s; it is reached from %s() with %s.", last.What, last.File, last.Line, proof.why, fn.Name, strings.Join(ctxs, "; "))
	for _, d := range proof.drops {
		if d.kind != "rcu" {
			continue
		}
		rs := d.steps[len(d.steps)-1]
		where := fmt.Sprintf("%s at %s:%d", rs.What, rs.File, rs.Line)
		re := ""
		for _, t := range proof.retakes {
			if t.kind == d.kind {
				ts := t.steps[len(t.steps)-1]
				re = fmt.Sprintf(" and re-takes it with %s at %s:%d", ts.What, ts.File, ts.Line)
			}
		}
		expl += fmt.Sprintf(" %s() drops an RCU read lock it did not take (%s)%s before sleeping: this unbalanced "+
			"rcu_read_unlock()/rcu_read_lock() pair does not end %s()'s read-side critical section, and pointers "+
			"the caller holds under RCU are unprotected while it sleeps.", d.steps[0].Func, where, re, fn.Name)
	}
	if sev == report.SeverityNote {
		expl += " The context is held on some paths only."
	}
	f := report.Finding{
		Rule:        SleepRuleName,
		Severity:    sev,
		Patch:       r.p.Patch,
		File:        target.File,
		Func:        target.Name,
		Line:        tLine,
		Key:         strings.Join(uniq(keys), ", "),
		Message:     msg,
		Explanation: expl,
		Chain:       steps,
	}
	for _, s := range steps {
		if t := r.lineText(s.File, s.Line); t != "" {
			e := fmt.Sprintf("%s:%d: %s", s.File, s.Line, t)
			if len(f.Evidence) == 0 || f.Evidence[len(f.Evidence)-1] != e {
				f.Evidence = append(f.Evidence, e)
			}
		}
	}
	r.add(f)
}

func kindsOf(hs []held) []string {
	var out []string
	for _, h := range hs {
		out = append(out, kindName(h.kind))
	}
	return out
}

func uniq(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func (r *sleepRun) add(f report.Finding) {
	// The same chain found forward (in a touched caller) and in reverse
	// (from a touched callee) is one finding.
	var b strings.Builder
	if len(f.Chain) == 0 {
		fmt.Fprintf(&b, "%s:%s:%d", f.File, f.Func, f.Line)
	}
	for _, s := range f.Chain {
		fmt.Fprintf(&b, "|%s:%d", s.Func, s.Line)
	}
	if r.seen[b.String()] {
		return
	}
	r.seen[b.String()] = true
	r.out = append(r.out, f)
}

// lineText returns one line of the post-patch source: from the patch's
// function text, else from the tree.
func (r *sleepRun) lineText(file string, line int) string {
	for fc := range r.newFuncs {
		if fc.File != file {
			continue
		}
		for i, l := range fc.New.Lines {
			if l == line {
				return strings.TrimSpace(strings.Split(fc.New.Text, "\n")[i])
			}
		}
	}
	if r.p.Index == nil {
		return ""
	}
	ls, ok := r.lines[file]
	if !ok {
		var b []byte
		var err error
		if r.p.Change.Tree != nil {
			b, err = r.p.Change.Tree.ReadFile(file)
		} else {
			b, err = r.p.Index.ReadFile(file)
		}
		if err == nil {
			ls = strings.Split(string(b), "\n")
		}
		r.lines[file] = ls
	}
	if line >= 1 && line <= len(ls) {
		return strings.TrimSpace(ls[line-1])
	}
	return ""
}
