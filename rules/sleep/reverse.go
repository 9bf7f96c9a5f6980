package sleep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// Reverse findings: a function that newly may sleep, checked from every
// caller chain that reaches it in atomic context, and the call sites that
// chain is built from.

// reverseFrame is a function (or a function-like macro) the reverse
// caller search has reached, with the chain from it down to the new sleep.
type reverseFrame struct {
	name, file string
	static     bool
	// wraps is, for a function-like macro wrapping the callee, the
	// function the macro stands for; nil for a function.
	wraps *cscan.Func
	chain []report.Step
	weak  bool
	// cond is what the chain needs of the function's parameters.
	cond *lockctx.ParamCond
	// was are the conditions on them under which the old version
	// took the chain already (newReach).
	was []*lockctx.ParamCond
	// drops are the contexts the functions between it and the new sleep
	// release before their call down the chain without having taken
	// them (a caller's lock dropped around the call).
	drops []lockctx.Effect
}

// reverse handles a function that newly may sleep: every caller chain (to
// the depth) reaching it in atomic context.
func (r *checker) reverse(fc *diffcheck.FuncChange, nf, of *cscan.Func) {
	ns := r.newR.SummaryOf(nf)
	if ns.Reach == nil {
		return
	}
	if r.p.Index != nil && registeredContext(r.newR.Implicit(nf)) {
		// nf runs in an atomic context by registration (an irq_chip or
		// stats callback): the forward check reports its new sleeping
		// calls there; its callers through the member add nothing.
		return
	}
	proof := ns.Reach
	var was []*lockctx.ParamCond
	if of != nil {
		switch os := r.oldR.SummaryOf(of); {
		case os.Reach != nil:
			// It could already sleep: only a new path to a sleeping
			// primitive (a call that now sleeps, or a new sleeping call)
			// counts.
			if proof, was, _ = r.newReach(nf, of); proof == nil {
				return
			}
		case len(os.ArgReaches) > 0:
			// It could sleep for some masks its callers pass: a path the
			// patch opened by removing a check on the way is judged by
			// those checks (newReach), anything else is new everywhere.
			if p, w, lifted := r.newReach(nf, of); lifted {
				proof, was = p, w
			}
		}
	}
	if r.p.Index == nil {
		r.patchOnlyReverse(nf, of, proof)
		return
	}
	queue := []reverseFrame{{name: nf.Name, file: nf.File, static: fileLocal(nf, false), chain: proof.Steps, cond: proof.Cond, was: was}}
	visited := map[string]bool{}
	walked := 0
	truncated := false
	for len(queue) > 0 && !truncated {
		cur := queue[0]
		queue = queue[1:]
		for _, site := range r.callSites(cur.name, cur.file, cur.static, cur.wraps) {
			id := site.caller.File + ":" + site.caller.Name + "->" + site.call
			if site.caller.Name == cur.name || visited[id] || !lockctx.SameBuild(site.caller.File, cur.file) {
				continue // recursion, or a caller in another architecture's build
			}
			visited[id] = true
			if walked >= maxReverseCallers {
				truncated = true
				break
			}
			walked++
			caller := r.siteBody(site)
			if caller == nil {
				continue
			}
			for _, s := range r.sitesIn(caller, site.call) {
				keep, cond := r.siteCond(caller, site, s.call, cur.cond)
				if !keep {
					continue
				}
				isNew, left := r.newAt(caller, site, s.call, cur.was)
				if !isNew || !s.st.Empty() && looseCond(left) {
					continue // the old version was (or may have been) reached here too
				}
				st := s.st
				if len(site.inner) > 0 {
					st = lockctx.State{Held: append(append([]lockctx.Held(nil), st.Held...), site.inner...)}
				}
				st = effective(st, proof)
				for _, d := range cur.drops {
					st.ReleaseDrop(d)
				}
				callStep := lockctx.StepOf(caller, s.call.Line, "calls "+site.call+"()")
				chain := append([]report.Step{callStep}, site.via...)
				chain = append(chain, cur.chain...)
				// A typed member call made with the context held reaches
				// every implementation in it: the chain is sure from here.
				// Through a public interface with many implementations
				// (site.weak despite its type) that holds only for the
				// implementation's own sleeps and its helpers': deeper in
				// one implementation (down to the function the patch
				// changed: below it is the patch's new sleep), the path
				// depends on that implementation's state and modes
				// (nfnetlink's RCU-type callbacks): the chain stays a note.
				sure := site.typed && !s.st.Empty() && (!site.weak || implChainSure(len(cur.chain), len(proof.Steps)))
				weak := cur.weak || site.weak && !sure
				if !st.Empty() && (cond == nil || !cond.Strict) {
					r.report(caller, s.call.Line, st, &lockctx.Reach{Steps: chain, Prim: proof.Prim, Why: proof.Why,
						Drops: proof.Drops, Retakes: proof.Retakes, Weak: weak || proof.Weak}, nf.Name)
					continue
				}
				if !st.Empty() {
					continue // taken only for some values of the caller's parameter
				}
				if r.sleepsAboveCall(caller, s.call.Line) {
					// A lock above this caller would already be broken by
					// its own earlier sleep (alreadySleeps): the chains
					// through it can only be notes, so the walk spends
					// its callers elsewhere.
					continue
				}
				queue = append(queue, reverseFrame{name: caller.Name, file: caller.File, static: fileLocal(caller, site.wraps != nil),
					wraps: site.wraps, chain: chain, weak: weak, cond: cond, was: left, drops: append(slices.Clip(cur.drops), s.drops...)})
			}
		}
	}
	if truncated {
		r.p.Note(fmt.Sprintf("sleep-in-atomic: %s() may now sleep; only %d caller functions were checked", nf.Name, maxReverseCallers))
	}
}

// siteBody returns the body of the caller a call site is in: a macro's
// parsed body, or the caller's post-patch body (callerBody).
func (r *checker) siteBody(site callSite) *cscan.Func {
	if site.wraps != nil {
		return site.caller
	}
	return r.callerBody(site.caller)
}

// siteCond evaluates the condition a chain needs of the parameters of the
// function a caller's call c reaches (see lockctx.ParamCond): whether the
// chain may be taken at c, and what it then needs of caller's own
// parameters. A function passed by name to the callee (inner contexts)
// receives other arguments than c's.
func (r *checker) siteCond(caller *cscan.Func, site callSite, c cscan.Call, cond *lockctx.ParamCond) (bool, *lockctx.ParamCond) {
	if cond == nil {
		return true, nil
	}
	if len(site.inner) > 0 {
		return !cond.Strict, nil
	}
	return r.newR.CondAt(caller, c, cond)
}

// maxTypedImpls is how many implementations a member may have for a call
// typed with its struct to reach each of them surely: a small interface
// (a protocol's two or three request ops) is judged by its type; a
// public one with many implementations (notifier_call) is not.
const maxTypedImpls = 4

// maxManyImplChain is how long the chain below an implementation of a
// public interface with more than maxTypedImpls implementations may be
// for a typed call made with the context held to make it sure.
const maxManyImplChain = 3

// implChainSure reports whether a chain of n steps below an
// implementation of a public interface, the last newSteps of them the
// patch's new sleep (from the function it changed), is short enough to
// be sure: the whole chain within maxManyImplChain, or both the calls
// down to the changed function and its new sleep within it
// (cdc_ncm_status() -> cdc_ncm_speed_change(), which now calls
// usbnet_write_cmd() -> usb_autopm_get_interface() -> pm_runtime_get_sync()).
func implChainSure(n, newSteps int) bool {
	return n <= maxManyImplChain || n-newSteps+1 <= maxManyImplChain && newSteps <= maxManyImplChain
}

// maxPointerAssigns is how many functions may be assigned to a member
// (of any struct type) for calls through it with an unknown base type to
// count as callers.
const maxPointerAssigns = 24

// callSite is a call that may reach a function: a direct call by name,
// or a call through a struct member the function is assigned to.
type callSite struct {
	caller *cscan.Func
	// call is the callee name as the caller's call spells it.
	call string
	// via is the step through the pointer ("calls foo() via ops.m").
	via []report.Step
	// weak is set when the call site's struct type is not known to be
	// the one the function is assigned in.
	weak bool
	// typed is set when the call goes through a member of an object
	// declared with the struct type the function is assigned in: a
	// context the caller holds at this call is held for every function
	// assigned to that member, this one included (nft_rhash_walk()
	// calls iter->fn() under rcu_read_lock()), however many there are.
	typed bool
	// inner are the contexts the callee holds where it calls the
	// function, when the function is passed to it as a callback (a walker
	// running it under its own lock).
	inner []lockctx.Held
	// wraps is set when caller is a function-like macro whose body calls
	// the function (lockctx.MacroCallers), parsed as a function: the
	// function the macro stands for (through any macros between).
	wraps *cscan.Func
}

// fileLocal reports whether only fn's own file can call it: a static
// function or a macro defined in a .c file (not one of a header).
func fileLocal(fn *cscan.Func, macro bool) bool {
	return (fn.Static || macro) && !strings.HasSuffix(fn.File, ".h")
}

// macroReaches reports whether a call of macro name in file callerFile
// reaches function wraps through the macro defined in file: the call
// resolves to that definition, and callerFile does not define a function
// of wraps' name of its own (which the macro's body would call there).
func (r *checker) macroReaches(name, file string, wraps *cscan.Func, callerFile string) bool {
	if home, ok := r.newR.MacroHome(name, callerFile); !ok || home != file {
		return false
	}
	if callerFile == wraps.File {
		return true
	}
	own := cscan.PickDefs(r.p.Index.Funcs(wraps.Name), callerFile)
	return len(own) == 0 || own[0].File != callerFile
}

// callSites returns the calls that may reach function name (of file, static
// or not): direct calls, calls through the function-like macros that wrap
// it, and calls through every struct member it is assigned to. For a
// macro standing for function wraps, the calls that resolve to its
// definition in file from a file that does not define its own function
// of wraps' name, and those through the macros wrapping it.
func (r *checker) callSites(name, file string, static bool, wraps *cscan.Func) []callSite {
	macro := wraps != nil
	var out []callSite
	defs := r.p.Index.Funcs(name)
	for _, site := range r.p.Index.Callers(name) {
		if static && site.Func.File != file || cscan.HostProgram(site.Func.File) != cscan.HostProgram(file) {
			continue
		}
		if macro {
			if r.macroReaches(name, file, wraps, site.Func.File) {
				out = append(out, callSite{caller: site.Func, call: name})
			}
			continue
		}
		// A caller whose own file defines the name calls that one
		// (synclink_cs.c's static reset_device(), not a userspace
		// example's).
		if site.Func.File != file {
			if own := cscan.PickDefs(defs, site.Func.File); len(own) > 0 && own[0].File == site.Func.File {
				continue
			}
		}
		out = append(out, callSite{caller: site.Func, call: name})
	}
	target := wraps
	if target == nil {
		target = &cscan.Func{Name: name, File: file}
	}
	for _, m := range r.newR.MacroCallers(name, file, !static) {
		out = append(out, callSite{caller: m, call: name, wraps: target})
	}
	if macro {
		return out
	}
	out = append(out, r.argSites(name, file, static)...)
	fn := &cscan.Func{Name: name, File: file}
	if defs := cscan.PickDefs(r.p.Index.Funcs(name), file); len(defs) > 0 {
		fn = defs[0]
	}
	out = append(out, r.tableSites(fn)...)
	done := map[string]bool{}
	direct := r.assignsOf(fn)
	assigns := append(slices.Clip(direct), r.setterAssigns(name, file, static)...)
	for i, a := range assigns {
		// A setter's store counts only from call sites typed to its
		// struct (setterAssigns).
		setter := i >= len(direct)
		if static && a.File != file {
			continue
		}
		all := r.newR.AssignsTo(a.Member, "")
		// A plain store typed by its base ("p->handlers[N] = f;"), among
		// too many stores to the member to type them all.
		byBase := a.Struct == "" && a.Base != "" && len(all) > maxPointerAssigns
		a.Struct = r.assignStruct(a, 0)
		if done[a.Struct+"."+a.Member] {
			continue
		}
		// An object that declares its callbacks may sleep (gpio_chip
		// can_sleep) is called by the core only where it can: the core's
		// calls through the member do not count; the driver's own calls
		// (its file) still do.
		lifted := r.newR.DeclaredSleeping(a)
		done[a.Struct+"."+a.Member] = true
		// The member is the struct's own when every assignment to a member
		// of that name is to that struct type; a member name shared by many
		// struct types is followed only from calls whose base is declared
		// with the right type.
		unique := a.Struct != ""
		// A call through a member that several functions are assigned to
		// reaches this one only for some objects: the chain is a note.
		impls := map[string]bool{}
		for _, b := range all {
			switch bs := r.assignStruct(b, len(all)); {
			case bs == a.Struct:
				impls[b.Func] = true
			case bs == "" && byBase && b.Base != "":
				// Too many to type: another plain store may be to
				// the same struct's member.
				impls[b.Func] = true
				unique = false
			default:
				unique = false
			}
		}
		generic := !unique && len(all) > maxPointerAssigns
		shared := len(impls) > 1
		for _, site := range r.p.Index.MemberCallers(a.Member) {
			if lifted && site.Func.File != a.File {
				continue
			}
			tag, scope := r.memberCallTag(site)
			if scope != "" && !strings.HasPrefix(a.File, scope) {
				continue // a struct of the same name private to another directory
			}
			// typed: the call site's object is declared with the struct
			// type fn is assigned in (or, when the assignment's type is
			// unknown, its arguments' types match fn's parameters).
			typed := tag != "" && (tag == a.Struct || a.Struct == "" && r.newR.SignatureMatches(site.Call, site.Func, fn))
			if tag != "" && !typed || tag == "" && (generic || setter) {
				continue
			}
			t := lockctx.PointerTarget{Func: fn, Assign: a, Heuristic: tag == "" && !unique}
			// A call site typed with a struct private to one directory
			// (a driver's own ops, resolved through its headers) reaches
			// fn on that driver's hardware: its other implementations do
			// not make that chain uncertain. A public interface's
			// (net_device_ops) call sites reach any driver's.
			// A call through a table's element (il->handlers[cmd](...))
			// calls each element for its index: the others do not make
			// the chain to this one uncertain.
			table := lockctx.TableCall(site.Call.Name)
			weak := (t.Heuristic || shared && !table) && !(typed && (scope != "" || len(impls) <= maxTypedImpls))
			out = append(out, callSite{caller: site.Func, call: site.Call.Name, via: []report.Step{lockctx.ViaStep(t)}, weak: weak,
				typed: typed && !t.Heuristic})
		}
	}
	return out
}

// assignsOf returns the assignments of fn to struct members: the
// index's, and those of the tables of functions holding it whose
// elements its file stores into a member (lockctx TableMemberAssigns).
func (r *checker) assignsOf(fn *cscan.Func) []index.Assign {
	direct := slices.Clip(r.p.Index.AssignsOf(fn.Name))
	for _, a := range r.newR.TableMemberAssigns(fn.File) {
		if a.Func == fn.Name {
			direct = append(direct, a)
		}
	}
	return direct
}

// assignStruct returns the struct type of assignment a: the scanner's,
// else, for a plain assignment ("mp->getp = ___dma_getp;") among at most
// maxPointerAssigns to its member (n; 0 for the one assignment asked
// about), the type its base is declared with where it is made, a struct
// or a struct's typedef.
func (r *checker) assignStruct(a index.Assign, n int) string {
	if a.Struct != "" || a.Base == "" || n > maxPointerAssigns {
		return a.Struct
	}
	return r.newR.BaseAssignTag(a)
}

// sleepsAboveCall reports whether caller, which the patch does not
// change, already sleeps unconditionally before its call at line
// (sleepsBefore).
func (r *checker) sleepsAboveCall(caller *cscan.Func, line int) bool {
	if _, changed := r.oldSide(caller.Name, caller.File); changed || caller.Body == nil {
		return false
	}
	_, ok := r.sleepsBefore(caller, line)
	return ok
}

// straightBetween reports whether call c runs on every path to line in
// body: it is no part of a condition (a short-circuit "a && sleep()"
// may skip it) and no label lies after it up to line (a goto may jump
// past it).
func straightBetween(body *cscan.Block, c cscan.Call, line int) bool {
	ok := true
	inCond := func(calls []cscan.Call) {
		for _, x := range calls {
			if x.Line == c.Line && x.Name == c.Name {
				ok = false
			}
		}
	}
	cscan.Inspect(body, func(s cscan.Stmt) {
		switch s := s.(type) {
		case *cscan.IfStmt:
			inCond(s.CondCalls)
		case *cscan.LoopStmt:
			inCond(s.CondCalls)
		case *cscan.SwitchStmt:
			inCond(s.CondCalls)
		case *cscan.LabelStmt:
			if s.Line > c.Line && s.Line <= line {
				ok = false
			}
		}
	})
	return ok
}

// siteKey names the calls of one callee expression in one function:
// MemberCallTag depends on nothing else.
type siteKey struct {
	fn   *cscan.Func
	name string
}

// siteTag is what MemberCallTag returns for a call site.
type siteTag struct{ tag, scope string }

// memberCallTag is the post-patch resolver's MemberCallTag of a call
// site, found once per patch and callee expression of a function: the reverse search meets the callers
// through a member again for every function assigned to it.
func (r *checker) memberCallTag(site index.CallSite) (tag, scope string) {
	k := siteKey{site.Func, site.Call.Name}
	if t, ok := r.siteTags[k]; ok {
		return t.tag, t.scope
	}
	tag, scope = r.newR.MemberCallTag(site.Call, site.Func)
	if r.siteTags == nil {
		r.siteTags = map[siteKey]siteTag{}
	}
	r.siteTags[k] = siteTag{tag, scope}
	return tag, scope
}

// registeredContext reports whether one of the implicit contexts hs comes
// from how the function is registered (a callback, whose callers through
// the member add nothing), not from what it states itself (an assertion,
// its kernel-doc: its direct callers may hold more).
func registeredContext(hs []lockctx.Held) bool {
	for _, h := range hs {
		if !h.Stated {
			return true
		}
	}
	return false
}
