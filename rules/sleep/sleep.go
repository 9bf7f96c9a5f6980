package sleep

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// Name is the rule family name in findings.
const Name = "sleep-in-atomic"

// Categories of the family.
const (
	// CategoryChain is a sleeping call reached in atomic context, with the
	// chain from the context's entry down to the sleeping primitive.
	CategoryChain = "sleep-in-atomic"
	// CategoryNeedsTree is a function that newly may sleep, seen without a
	// tree: its callers could not be checked.
	CategoryNeedsTree = "sleep-needs-tree"
)

// maxReverseCallers bounds the caller functions the reverse analysis walks
// per patch.
const maxReverseCallers = 400

// New builds the sleep-in-atomic rule: sleeping calls in atomic context
// (spinlocks, rwlocks, RCU read-side sections, irq/bh/preempt disabled)
// that a patch introduces, forward (a new or widened atomic region calling
// something that may sleep, at any depth) and in reverse (a function that
// newly may sleep, reached from callers in atomic context).
func New(opts rules.Options) (*rules.Rule, error) {
	var t tables
	if err := rules.LoadTables("sleep", opts.TableFiles, &t); err != nil {
		return nil, err
	}
	var locks lockmodel.Table
	if err := rules.LoadTables("locks", opts.TableFiles, &locks); err != nil {
		return nil, err
	}
	m, err := compile(&t, &locks)
	if err != nil {
		return nil, err
	}
	if err := t.RegmapBus.compile(); err != nil {
		return nil, err
	}
	return &rules.Rule{
		Name: Name,
		Doc: "Sleeping calls in atomic context: a sleeping primitive (mutex, semaphore, msleep, " +
			"wait_event, GFP_KERNEL allocation, user copy, ...) or a function whose summary may sleep, " +
			"reached while a spinlock, rwlock or RCU read lock is held or irqs/bh/preemption are off. " +
			"Reports what the patch introduces, with the call chain; with a tree it also checks every " +
			"caller chain of a function that newly may sleep.",
		Categories: []rules.Category{
			{Name: CategoryChain, Doc: "a sleeping call the patch brings into atomic context: in a touched function, " +
				"in a caller of a function that newly may sleep, or after a call to a function that now returns " +
				"in atomic context; risk when the context is held on every path, note on some"},
			{Name: CategoryNeedsTree, Doc: "patch-only: a function newly may sleep and the hunks suggest its callers " +
				"are in atomic context (it leaves a context it did not enter, or used to enter one); run with --tree"},
		},
		Run: func(p *rules.Pass) error { return run(p, m, t.InterruptSafe, &t.RegmapBus) },
		Prepare: func(ctx context.Context, ix *index.Index, log *slog.Logger) error {
			return lockctx.Prepare(ctx, m, ix, log)
		},
	}, nil
}

// checker is one run of the rule over one patch.
type checker struct {
	p        *rules.Pass
	m        *lockctx.Model
	newR     *lockctx.Resolver
	oldR     *lockctx.Resolver
	newFuncs map[*diffcheck.FuncChange]*cscan.Func
	oldFuncs map[*diffcheck.FuncChange]*cscan.Func
	// dirs caches the C files of tree directories, words which of their
	// files spell a name, argUses the arguments of their calls by the
	// name they may be (argsites.go).
	dirs    map[string][]string
	words   map[string]ctype.WordSet
	argUses map[string]map[string][]argUse
	// siteTags caches memberCallTag.
	siteTags map[siteKey]siteTag
	// interruptSafePrims and regmapRules are the table's interrupt_safe
	// primitives (interruptsafe.go) and regmap_bus rows (regmapbus.go).
	interruptSafePrims []string
	regmapRules        *regmapBusRules
	// fileHas caches whether a file holds a shutdown_safe row's
	// file_has texts, by file and texts (shutdown.go).
	fileHas map[string]bool
	// liftedBy are the checks the patch lifted from the path to a
	// sleep, by the function that newly reaches it only for that
	// (liftedguard.go).
	liftedBy map[string][]pathCheck
	// lines caches the tree's files by line for the lifted checks'
	// callers (liftedcaller.go).
	lines map[string][]string
	// reverseHeld are the reverse findings held back to be merged by
	// caller, reverseOrder their keys in the order found (callers.go).
	reverseHeld  map[string]*callerFinding
	reverseOrder []string
}

func run(p *rules.Pass, m *lockctx.Model, interruptSafe []string, regmapRules *regmapBusRules) error {
	if p.Change == nil {
		return nil
	}
	r := newChecker(p, m)
	r.interruptSafePrims, r.regmapRules = interruptSafe, regmapRules
	// The forward checks of every touched function come first: a chain
	// found both from a touched caller holding the context and from a
	// touched callee that newly sleeps is the caller's (findings with the
	// same chain are reported once, the first time).
	for _, forward := range []bool{true, false} {
		for _, fc := range p.Change.Funcs {
			nf := r.newFuncs[fc]
			if nf == nil {
				continue
			}
			of := r.oldFuncs[fc]
			if of == nil {
				of = r.movedFrom(nf)
			}
			if forward {
				r.forward(fc, nf, of)
				r.argForward(nf, of)
				continue
			}
			r.reverse(fc, nf, of)
			r.lockChange(nf, of)
			r.contextChange(nf, of)
			r.wrapperChange(nf, of)
			r.walkers(nf, of)
		}
	}
	r.flushReverse()
	r.implicitChange()
	r.regmapBus()
	if unres := r.newR.Unresolved(); p.Index == nil && len(unres) > 0 {
		var names []string
		for _, n := range unres {
			names = append(names, n+"()")
		}
		if len(names) > 6 {
			names = append(names[:6], "...")
		}
		p.Note(fmt.Sprintf("sleep-in-atomic: callees outside the patch (%s) were not followed: no --tree", strings.Join(names, ", ")))
	}
	return nil
}

// newChecker sets up one run of the rule over pass p: the patch's
// functions on both sides, and a resolver over each view (the post-patch
// one told the hunks' pre-images of the functions whose file did not
// apply, see lockctx.NewPatchResolver).
func newChecker(p *rules.Pass, m *lockctx.Model) *checker {
	r := &checker{p: p, m: m, newFuncs: map[*diffcheck.FuncChange]*cscan.Func{},
		oldFuncs: map[*diffcheck.FuncChange]*cscan.Func{}, liftedBy: map[string][]pathCheck{},
		lines: map[string][]string{}}
	newPatch := map[string][]*cscan.Func{}
	oldPatch := map[string][]*cscan.Func{}
	// preimages are the hunks' pre-images of the functions whose new
	// version is their post-image (the file did not apply to the tree).
	var preimages map[*cscan.Func]*cscan.Func
	for _, fc := range p.Change.Funcs {
		if !diffcheck.IsCSource(fc.File) {
			continue
		}
		if fn := sideFunc(fc, fc.New); fn != nil {
			r.newFuncs[fc] = fn
			newPatch[fn.Name] = append(newPatch[fn.Name], fn)
			if pre := sideFunc(fc, fc.Preimage); pre != nil {
				if preimages == nil {
					preimages = map[*cscan.Func]*cscan.Func{}
				}
				preimages[fn] = pre
			}
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
	r.newR = lockctx.NewPatchResolver(m, newIx, newPatch, preimages)
	r.oldR = lockctx.NewResolver(m, oldIx, oldPatch)
	return r
}

// startVisible reports whether the new side of nf shows every line from
// the function's header down to line (so an unlock there without a lock
// before it is really unbalanced, not a lock outside the hunks).
func (r *checker) startVisible(nf *cscan.Func, line int) bool {
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
func (r *checker) movedFrom(nf *cscan.Func) *cscan.Func {
	for fc, of := range r.oldFuncs {
		if fc.Name == nf.Name && r.newFuncs[fc] == nil {
			return of
		}
	}
	if ix := r.oldR.Index(); ix != nil {
		if defs := cscan.PickDefs(ix.Funcs(nf.Name), nf.File); len(defs) > 0 {
			return ix.Full(defs[0])
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

// event is a call that may sleep reached with contexts held.
type event struct {
	call  cscan.Call
	state lockctx.State
	proof *lockctx.Reach
}

// events walks fn and returns its sleeping calls made in atomic context.
func events(r *lockctx.Resolver, fn *cscan.Func) []event {
	if fn == nil {
		return nil
	}
	return eventsFrom(r, fn, lockctx.State{Held: r.Implicit(fn)})
}

// eventsFrom is events with the contexts held on entry given.
func eventsFrom(r *lockctx.Resolver, fn *cscan.Func, entry lockctx.State) []event {
	var out []event
	lockctx.WalkFrom(r, fn, entry, func(v lockctx.Visit) {
		if v.Reach == nil || v.State.Dead || v.State.Empty() || !lockctx.Unconditional(v.Reach) && !ownContextChoice(r, fn, v) {
			return
		}
		st := effective(v.State, v.Reach)
		if st.Empty() {
			return
		}
		out = append(out, event{call: v.Call, state: st, proof: v.Reach})
	})
	return out
}

// ownContextChoice reports whether visit v's reach, which counts only for
// callers that pass a certain value in one of fn's parameters (a mask
// chosen by a flag: opf & REQ_NOWAIT ? GFP_NOWAIT : GFP_NOIO), happens
// under a context fn enters itself on every path, and some caller may
// pass that value (or none is known). The callers then do not decide the
// context, only the branch: every caller that takes the sleeping one
// (here, every write without REQ_NOWAIT) sleeps in it.
func ownContextChoice(r *lockctx.Resolver, fn *cscan.Func, v lockctx.Visit) bool {
	return v.Reach.Cond != nil && v.Reach.Cond.Strict && entersOwnContext(fn, v.State) && r.SomeCallerMay(fn, v.Reach.Cond)
}

// entersOwnContext reports whether fn enters one of st's contexts itself
// on every path (not its registration, not a caller).
func entersOwnContext(fn *cscan.Func, st lockctx.State) bool {
	for _, h := range st.Held {
		if h.Must && h.Why == "" && h.At.Func == fn.Name {
			return true
		}
	}
	return false
}

// chosenBranch explains a proof that counts for the callers passing a
// value in one of fn's parameters (ownContextChoice), "" for another.
func (r *checker) chosenBranch(fn *cscan.Func, st lockctx.State, proof *lockctx.Reach) string {
	c := proof.Cond
	if c == nil || !c.Strict || !entersOwnContext(fn, st) {
		return "" // a condition that counts anyway (or not this case)
	}
	name := fmt.Sprintf("parameter %d", c.Param+1)
	if ps := r.newR.Params(fn); c.Param >= 0 && c.Param < len(ps) && ps[c.Param] != "" {
		name = ps[c.Param]
	}
	var what string
	switch {
	case c.Value != "":
		what = name + " equal to " + c.Value
	case c.Bit != "" && c.True:
		what = name + " with " + c.Bit + " set"
	case c.Bit != "":
		what = name + " without " + c.Bit
	case c.True:
		what = name + " nonzero"
	default:
		what = name + " zero"
	}
	return fmt.Sprintf(" The sleeping branch is taken for callers passing %s; %s() enters the context itself, whatever they pass, so each of them sleeps in it.", what, fn.Name)
}

// effective removes from st the contexts the sleeping callee drops before
// it sleeps (a function that unlocks its caller's spinlock around a
// sleep), as a call's drops end them (lockctx.State.ReleaseDrop). RCU is kept: an unbalanced rcu_read_unlock()/rcu_read_lock()
// pair inside a callee does not end the caller's read-side section.
func effective(st lockctx.State, p *lockctx.Reach) lockctx.State {
	if len(p.Drops) == 0 {
		return st
	}
	st = st.Clone()
	for _, d := range p.Drops {
		if d.Kind != "rcu" {
			st.ReleaseDrop(d)
		}
	}
	return st
}

func eventKey(e event) string {
	var kinds []string
	for _, h := range e.state.Held {
		kinds = append(kinds, h.Kind)
	}
	sort.Strings(kinds)
	return e.call.Name + "|" + e.proof.Prim + "|" + strings.Join(kinds, ",")
}

// eventLevel ranks how surely an event sleeps in atomic context: 2 when
// a context is held on every path to it and the sleep is proven (a
// risk), 1 otherwise (a note).
func eventLevel(e event) int {
	if e.state.AnyMust() && !e.proof.Weak {
		return 2
	}
	return 1
}

// forward reports sleeping calls in atomic context in the new version of
// a touched function that the old version did not have, or had only on
// some paths: a patch that takes away the path on which the code stayed
// out of the context before sleeping (a bounce buffer used when the
// mapping cannot sleep, an unlock on one branch) makes the sleep certain.
//
// A call through a pointer that the patch newly makes in atomic context
// (the old version made no call of that name there) is a risk when an
// implementation of the struct type it is called through sleeps, though
// others do not: the patch wrote the indirect call under the lock, so
// the member must not sleep in any implementation (newIndirect).
func (r *checker) forward(fc *diffcheck.FuncChange, nf, of *cscan.Func) {
	old := map[string]int{}
	oldCalls := map[string]bool{}
	for _, e := range events(r.oldR, of) {
		k := eventKey(e)
		old[k] = max(old[k], eventLevel(e))
		oldCalls[calleeKey(e.call.Name)] = true
		if of != nil && e.call.Name == of.Name {
			k = selfKey(e)
			old[k] = max(old[k], eventLevel(e))
		}
	}
	for _, e := range events(r.newR, nf) {
		if !oldCalls[calleeKey(e.call.Name)] && e.call.Name != nf.Name {
			e.proof = newIndirect(e)
		}
		if old[eventKey(e)] >= eventLevel(e) {
			continue
		}
		// The function's own entry into its context (a registered
		// callback) names the first sleep its summary finds: when the
		// patch removes that sleep (a fix), the next one it finds was
		// there before, not new.
		if e.call.Name == nf.Name && old[selfKey(e)] >= eventLevel(e) {
			continue
		}
		r.report(nf, e.call.Line, e.state, e.proof, "")
	}
}

// selfKey is eventKey without the primitive, for the event of a
// function's own entry into its context.
func selfKey(e event) string {
	k := eventKey(e)
	if i := strings.Index(k, "|"); i >= 0 {
		if j := strings.Index(k[i+1:], "|"); j >= 0 {
			return k[:i] + "|*" + k[i+1+j:]
		}
	}
	return k
}

// argForward reports calls in atomic context in nf whose sleeping depends
// on a parameter of nf (an allocation with the caller's gfp_t) when a
// caller of nf passes a value that sleeps (GFP_KERNEL), and the old
// version did not make that call in atomic context.
func (r *checker) argForward(nf, of *cscan.Func) {
	if r.p.Index == nil {
		return
	}
	type cond struct {
		call  cscan.Call
		state lockctx.State
		ar    lockctx.ArgReach
	}
	collect := func(res *lockctx.Resolver, fn *cscan.Func) []cond {
		if fn == nil {
			return nil
		}
		var out []cond
		lockctx.WalkFrom(res, fn, lockctx.State{Held: res.Implicit(fn)}, func(v lockctx.Visit) {
			if v.Reach != nil || v.State.Dead || v.State.Empty() || len(v.ArgReaches) == 0 {
				return
			}
			for _, ar := range v.ArgReaches {
				out = append(out, cond{v.Call, v.State, ar})
			}
		})
		return out
	}
	old := map[string]bool{}
	for _, c := range collect(r.oldR, of) {
		old[c.call.Name+"|"+c.ar.Prim] = true
	}
	for _, c := range collect(r.newR, nf) {
		if old[c.call.Name+"|"+c.ar.Prim] {
			continue
		}
		site, arg, why, weak := r.passesSleeping(nf, c.ar)
		if site == nil {
			continue
		}
		proof := &lockctx.Reach{Prim: c.ar.Prim, Weak: c.ar.Weak || weak,
			Why:   fmt.Sprintf("%s: %s() passes %s at %s:%d", why, site.Func, arg, site.File, site.Line),
			Steps: c.ar.Steps}
		if len(proof.Steps) == 0 || proof.Steps[0].Line != c.call.Line {
			proof.Steps = append([]report.Step{lockctx.StepOf(nf, c.call.Line, "calls "+c.call.Name+"()")}, proof.Steps...)
		}
		r.report(nf, c.call.Line, c.state, proof, "")
	}
}

// maxArgCallers bounds the callers searched for the value of a parameter.
const maxArgCallers = 200

// passesSleeping searches the callers of fn, and their callers while the
// value is passed on as a parameter, for one passing a value of parameter
// ar.Param that reaches the target (GFP_KERNEL for a gfp_t handed down to an
// allocator). It returns the call site as a step, the argument, why, and
// whether the path goes through a pointer member shared by several
// functions.
func (r *checker) passesSleeping(fn *cscan.Func, ar lockctx.ArgReach) (*report.Step, string, string, bool) {
	type item struct {
		fn    *cscan.Func
		param int
		weak  bool
		wraps *cscan.Func
	}
	queue := []item{{fn, ar.Param, false, nil}}
	seen := map[string]bool{}
	n := 0
	for len(queue) > 0 && n < maxArgCallers {
		cur := queue[0]
		queue = queue[1:]
		for _, cs := range r.callSites(cur.fn.Name, cur.fn.File, fileLocal(cur.fn, cur.wraps != nil), cur.wraps) {
			id := cs.caller.File + ":" + cs.caller.Name + ":" + cs.call
			if seen[id] {
				continue
			}
			seen[id] = true
			if n++; n > maxArgCallers {
				break
			}
			for _, c := range cs.caller.Calls {
				if c.Name != cs.call || cur.param >= len(c.Args) {
					continue
				}
				arg := strings.TrimSpace(c.Args[cur.param])
				if why, ok := r.newR.ReachesWith(cs.caller, ar, arg); ok {
					st := lockctx.StepOf(cs.caller, c.Line, lockctx.CallText(c))
					return &st, arg, why, cur.weak || cs.weak && !r.contract(cs, cur.fn, cur.param)
				}
				if j := r.newR.ParamIndex(cs.caller, arg); j >= 0 {
					queue = append(queue, item{cs.caller, j, cur.weak || cs.weak && !r.contract(cs, cur.fn, cur.param), cs.wraps})
				}
			}
		}
	}
	return nil, "", "", false
}

// contract reports whether a call through a struct member (cs.via set)
// passes its value into a parameter of fn that is the member's contract
// (a gfp_t): whichever implementation the call reaches may use it that
// way, so the implementations sharing the member do not make the link
// uncertain.
func (r *checker) contract(cs callSite, fn *cscan.Func, param int) bool {
	return len(cs.via) > 0 && r.newR.ContractParam(fn, param)
}

// callerBody returns the post-patch body of a caller: the patch's version
// when the patch touches it, else the tree's.
func (r *checker) callerBody(fn *cscan.Func) *cscan.Func {
	for fc, nf := range r.newFuncs {
		if fc.Name == fn.Name && fc.File == fn.File {
			return nf
		}
	}
	return r.p.Index.Full(fn)
}
