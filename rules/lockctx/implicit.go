package lockctx

import (
	"fmt"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
)

// Implicit returns the atomic contexts fn runs in because of how it is
// registered (hard IRQ handler, timer, tasklet, RCU callback, NAPI poll,
// ops members called with a lock held...), or because it asserts it
// (assertcontext.go) or its kernel-doc says so (doccontext.go), each with
// the registration, the assertion or the comment as the place it is
// entered; nil when none is known.
func (r *Resolver) Implicit(fn *cscan.Func) []Held {
	if fn == nil || len(r.m.callbacks) == 0 && len(r.m.doc.atomic) == 0 && len(r.m.asserts) == 0 {
		return nil
	}
	var out []Held
	seen := map[string]int{}
	add := func(c *Callback, st report.Step) {
		h := Held{Kind: c.Kind, Must: true, At: st, Why: c.Why, UnlessSleeps: c.UnlessSleeps, Shutdown: c.Shutdown}
		if i, ok := seen[c.Kind]; ok {
			out[i] = mergeImplicit(out[i], h)
			return
		}
		seen[c.Kind] = len(out)
		out = append(out, h)
	}
	for _, reg := range r.regs.Of(fn.Name) {
		if fn.Static && !strings.HasSuffix(fn.File, ".h") && reg.File != fn.File || r.lifted(reg.Row, reg.File) {
			continue
		}
		add(reg.Row, reg.Step)
	}
	for _, reg := range r.regs.Decl(fn.File, fn.Name) {
		if !r.lifted(reg.Row, fn.File) {
			add(reg.Row, reg.Step)
		}
	}
	if r.ix != nil {
		for _, a := range append(r.ix.AssignsOf(fn.Name), r.ownAddrAssigns(fn)...) {
			if fn.Static && !strings.HasSuffix(fn.File, ".h") && a.File != fn.File {
				continue
			}
			for _, reg := range r.regs.Members(a) {
				if !r.liftedAt(reg.Row, a) {
					add(reg.Row, reg.Step)
				}
			}
			if h, ok := r.memberDocContext(a); ok {
				if _, dup := seen[h.Kind]; !dup {
					seen[h.Kind] = len(out)
					out = append(out, h)
				}
			}
			for i := range r.m.callbacks {
				c := &r.m.callbacks[i]
				if len(c.Members) == 0 || !slices.Contains(c.Members, a.Member) || !r.memberMatches(c, a) || r.liftedAt(c, a) {
					continue
				}
				if c.HeldFrom != "" {
					out = append(out, r.heldFrom(fn, c, a)...)
					continue
				}
				add(c, report.Step{Func: fn.Name, File: a.File, Line: a.Line,
					What: fmt.Sprintf("assigned to %s.%s", c.Struct, a.Member)})
			}
		}
	}
	for i := range r.m.callbacks {
		c := &r.m.callbacks[i]
		if st, ok := r.containerCallback(fn, c); ok && !r.lifted(c, fn.File) {
			add(c, st)
		}
	}
	if len(out) == 0 {
		if h, ok := r.assertContext(fn); ok {
			out = append(out, h)
		} else if h, ok := r.docContext(fn); ok {
			out = append(out, h)
		}
	}
	return out
}

// mergeImplicit returns the one implicit context standing for prev and
// h, two of the same kind: it is lifted for a callback that already slept
// only when both are (Held.UnlessSleeps), and entered on the way down
// only when both are (Held.Shutdown); it names the registration of the
// one that holds in more cases (prev on a tie).
func mergeImplicit(prev, h Held) Held {
	out := prev
	if prev.UnlessSleeps && !h.UnlessSleeps || prev.UnlessSleeps == h.UnlessSleeps && prev.Shutdown && !h.Shutdown {
		out = h
	}
	out.UnlessSleeps = prev.UnlessSleeps && h.UnlessSleeps
	out.Shutdown = prev.Shutdown && h.Shutdown
	return out
}

// containerCallback reports whether fn is a callback of row c by how it
// reaches its own object: its only parameter is the pointer argument of
// one of the row's container macros (from_tasklet(p, t, member),
// from_timer(p, t, member)), which exist to turn the tasklet or timer a
// callback is handed back into the object embedding it. It returns the
// macro call as the place the context is entered.
func (r *Resolver) containerCallback(fn *cscan.Func, c *Callback) (report.Step, bool) {
	if len(c.Container) == 0 {
		return report.Step{}, false
	}
	params := r.typ.Params(fn)
	if len(params) != 1 || params[0] == "" {
		return report.Step{}, false
	}
	for _, call := range fn.Calls {
		if slices.Contains(c.Container, call.Name) && len(call.Args) == 3 && strings.TrimSpace(call.Args[1]) == params[0] {
			return report.Step{Func: fn.Name, File: fn.File, Line: call.Line,
				What: fmt.Sprintf("recovers its object with %s(..., %s, ...)", call.Name, params[0])}, true
		}
	}
	return report.Step{}, false
}

// heldFrom returns the contexts fn, assigned by a to a member of a
// held_from row, runs in: what the function assigned to the row's
// HeldFrom member of the same object holds when it returns.
func (r *Resolver) heldFrom(fn *cscan.Func, c *Callback, a index.Assign) []Held {
	var out []Held
	for _, s := range r.ix.AssignsTo(c.HeldFrom) {
		if s.File != a.File || (a.Var == "" || s.Var != a.Var) && (a.Base == "" || s.Base != a.Base) {
			continue
		}
		defs := r.lookup(s.Func, s.File)
		if len(defs) != 1 {
			continue
		}
		for _, e := range r.SummaryOf(defs[0]).Acquires {
			out = append(out, Held{Kind: e.Kind, Key: e.Key, Must: true,
				At: report.Step{Func: s.Func, File: s.File, Line: s.Line,
					What: fmt.Sprintf("%s.%s %s() runs after %s %s() returns", c.Struct, a.Member, fn.Name, c.HeldFrom, s.Func)},
				Via: e.Steps, Why: c.Why})
		}
	}
	return out
}

// memberMatches reports whether assignment a installs the function in
// the struct type of row c.
func (r *Resolver) memberMatches(c *Callback, a index.Assign) bool {
	if a.Struct != "" {
		return a.Struct == c.Struct
	}
	if a.Base == "" {
		// A nested designated initializer (".states[1] = { .enter = fn }"
		// inside a struct cpuidle_driver): typed through the designators.
		return r.typ.InitTag(a.File, a.Line, a.Func) == c.Struct
	}
	f := r.ix.File(a.File)
	if f == nil {
		return false
	}
	// A plain assignment ("urb->complete = fn"): the base's type as the
	// assigning function declares it.
	for _, fn := range f.Funcs {
		if fn.Start <= a.Line && a.Line <= fn.End {
			if r.typ.ExprTag(a.Base, fn) == c.Struct {
				return true
			}
			break
		}
	}
	if len(c.Init) == 0 {
		return false
	}
	want := normKey(a.Base)
	for _, fn := range f.Funcs {
		for _, call := range fn.Calls {
			if slices.Contains(c.Init, call.Name) && len(call.Args) > 0 && normKey(call.Args[0]) == want {
				return true
			}
		}
	}
	return false
}

// Registration is a function a registration call makes run in an
// atomic context: Func by name, Held the context with the call as the
// place it is entered.
type Registration struct {
	Func string
	Held Held
}

// Registered returns the functions fn's own calls register to run in an
// atomic context (the callback rows' registration calls), in call order.
// A patch that changes such a call changes the context of a function it
// may leave alone: request_threaded_irq(irq, NULL, fn) made
// request_irq(irq, fn), INIT_WORK() made timer_setup().
func (r *Resolver) Registered(fn *cscan.Func) []Registration {
	if fn == nil || len(r.m.callbacks) == 0 {
		return nil
	}
	var out []Registration
	for _, reg := range r.regs.By(fn) {
		if r.lifted(reg.Row, fn.File) {
			continue
		}
		out = append(out, Registration{Func: reg.Func, Held: Held{Kind: reg.Row.Kind, Must: true, At: reg.Step, Why: reg.Row.Why, Shutdown: reg.Row.Shutdown}})
	}
	return out
}

// PatchWrapper reports whether the patch makes function name a wrapper
// of a registration to an atomic context (fb_register_client() made to
// pass its notifier block to atomic_notifier_chain_register()), and the
// call it wraps: the registration or, for a wrapper of such a wrapper in
// the tree, that wrapper.
func (r *Resolver) PatchWrapper(name string) (via string, ok bool) {
	if len(r.m.callbacks) == 0 {
		return "", false
	}
	return r.regs.PatchWrapper(name)
}

// WrapsAs reports whether fn, the version of a function before the patch,
// already wrapped registration via the way the patch's version does
// (PatchWrapper): passing one of its parameters as the callback.
func (r *Resolver) WrapsAs(fn *cscan.Func, via string) bool {
	return fn != nil && len(r.m.callbacks) > 0 && r.regs.Wraps(fn, via)
}
