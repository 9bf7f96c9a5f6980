package lockctx

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/summary"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// maxPointerTargets bounds the functions a call through a pointer is
// resolved to: a member assigned more often (".release", ".open") is too
// generic to follow.
const maxPointerTargets = 24

// maxNestedPointerTargets bounds them inside summaries (below the
// patch's own functions).
const maxNestedPointerTargets = 6

// PointerTarget is one function a call through a struct member may reach.
type PointerTarget struct {
	// Func is the function assigned.
	Func *cscan.Func
	// Assign is where it is assigned to the member.
	Assign index.Assign
	// Heuristic is set when the struct type of the call could not be
	// matched and the member name alone selected the assignment.
	Heuristic bool
}

// Member returns "struct.member" (or ".member" when the tag is unknown),
// or the table ("cmds[]") for an element of a plain table.
func (t PointerTarget) Member() string {
	if t.Assign.Struct == "" && strings.HasSuffix(t.Assign.Member, "[]") {
		return t.Assign.Member
	}
	return t.Assign.Struct + "." + t.Assign.Member
}

// PointerTargets resolves a call through a struct member to every function
// assigned to that member anywhere in the view. When the caller declares
// the base variable with a struct type ("struct sctp_sched_ops *n"), only
// assignments to that struct's member are kept; otherwise every struct's
// member of that name is (Heuristic). It returns nil when the member is
// assigned too often to be informative or nothing is known.
func (r *Resolver) PointerTargets(c cscan.Call, caller *cscan.Func) []PointerTarget {
	if r.ix == nil {
		return nil
	}
	if t := registrations.TableName(c.Name); t != "" {
		return r.tableTargets(caller, t)
	}
	base, member, ok := typing.PointerMember(c.Name)
	if !ok || member == "" {
		return nil
	}
	as := r.AssignsTo(member, path.Dir(caller.File))
	tag := r.typ.BaseTag(base, caller)
	if tag == "" {
		tag = r.typ.ExprTag(base, caller)
	}
	if tag == "" {
		tag = r.chainTag(c, caller)
	}
	switch {
	case tag == "" && r.nested > 0:
		// Resolved by member name alone: never followed inside a
		// summary, whatever is assigned (below).
	case tag != "" && len(as) > 0:
		r.noteMember(tag + "." + member)
	default:
		r.noteMember(member)
	}
	if len(as) == 0 && tag == "" {
		return nil
	}
	heuristic := true
	if tag != "" {
		var same []index.Assign
		if scope := r.privateScope(tag, caller); scope != "" {
			same = r.privateAssigns(tag, member, scope, caller)
		} else {
			// The tables of the struct type and the plain stores through
			// an object of it (a setup function's "d->ops.free = f"):
			// one kind of assignment does not hide the other.
			same = unionAssigns(r.structAssigns(tag, member), r.typ.PlainAssignsOf(tag, as, caller))
			if len(same) == 0 {
				// Only nested initializers may assign it
				// (elevator_type.ops.finish_request).
				same = r.typ.NestedAssignsOf(tag, as, caller)
			}
		}
		if len(same) == 0 && len(as) == 0 {
			// Nothing assigns the member by name anywhere: its
			// initializers may name functions by address.
			same = r.addrAssigns(tag, member, caller)
		}
		if len(same) > 0 {
			as, heuristic = same, false
		}
	}
	if heuristic && r.nested > 0 {
		// Inside summaries only struct-typed resolutions are followed: a
		// member name alone fans out over the whole tree.
		return nil
	}
	var out []PointerTarget
	seen := map[*cscan.Func]bool{}
	for _, a := range as {
		defs := r.lookup(a.Func, a.File)
		if len(defs) == 0 && r.nested == 0 {
			// A setter's store of its parameter ("f->cb = cb"): the
			// functions its callers pass (not followed inside summaries).
			for _, t := range r.setterTargets(a) {
				if !seen[t.Func] {
					seen[t.Func] = true
					t.Heuristic = heuristic
					out = append(out, t)
				}
			}
			if len(out) > maxPointerTargets {
				return nil
			}
			continue
		}
		if len(defs) != 1 || seen[defs[0]] {
			continue
		}
		seen[defs[0]] = true
		out = append(out, PointerTarget{Func: defs[0], Assign: a, Heuristic: heuristic})
		if len(out) > maxPointerTargets || r.nested > 0 && len(out) > maxNestedPointerTargets {
			return nil
		}
	}
	return out
}

// setterTargets returns, for an assignment a of a setter's parameter to
// a member (SetterStores: "f->cb = cb;" in foo_set_callback()), the
// functions the setter's callers pass in that parameter by name, each as
// assigned to the member at the caller's call; nil when a is no setter's
// store.
func (r *Resolver) setterTargets(a index.Assign) []PointerTarget {
	f := r.ix.File(a.File)
	if f == nil {
		return nil
	}
	i := slices.IndexFunc(f.Funcs, func(fn *cscan.Func) bool { return fn.BodyStart <= a.Line && a.Line <= fn.End })
	if i < 0 {
		return nil
	}
	g := f.Funcs[i]
	j := slices.Index(r.typ.Params(g), a.Func)
	if j < 0 || !slices.ContainsFunc(r.SetterStores(g, j), func(s index.Assign) bool { return s.Line == a.Line && s.Member == a.Member }) {
		return nil
	}
	var out []PointerTarget
	for _, site := range r.ix.Callers(g.Name) {
		if g.Static && site.Func.File != g.File || j >= len(site.Call.Args) {
			continue
		}
		name := registrations.CallbackName(site.Call.Args[j])
		if name == "" {
			continue
		}
		defs := r.lookup(name, site.Func.File)
		if len(defs) != 1 {
			continue
		}
		b := a
		b.Func, b.File, b.Line = name, site.Func.File, site.Call.Line
		out = append(out, PointerTarget{Func: defs[0], Assign: b})
		if len(out) > maxPointerTargets {
			break
		}
	}
	return out
}

// SetterStores returns the assignments setter g makes of its parameter
// param to a member of an object another of its parameters points to
// ("f->cb = cb;", f a struct foo *), with that struct type (foo). A store
// into an object of unknown type or of g's own is no setter's, nor is a
// header's inline initializer (init_task_work(), usb_fill_bulk_urb()):
// it sets up an API object whose context the callback tables model.
func (r *Resolver) SetterStores(g *cscan.Func, param int) []index.Assign {
	if r.ix == nil || strings.HasSuffix(g.File, ".h") {
		return nil
	}
	params := r.typ.Params(g)
	if param >= len(params) || params[param] == "" {
		return nil
	}
	var out []index.Assign
	for _, a := range r.ix.AssignsOf(params[param]) {
		if a.File != g.File || a.Line < g.BodyStart || a.Line > g.End || a.Base == "" {
			continue
		}
		if root := ctype.SplitMembers(a.Base); len(root) == 0 || !slices.Contains(params, root[0]) {
			continue
		}
		if a.Struct == "" {
			a.Struct, _ = r.typ.MemberCallTag(cscan.Call{Name: a.Base + "->" + a.Member}, g)
		}
		if a.Struct != "" {
			out = append(out, a)
		}
	}
	return out
}

// structAssigns returns the view's assignments to member made in struct
// type tag, found once per view; they must not be modified.
func (r *Resolver) structAssigns(tag, member string) []index.Assign {
	return r.ix.Memo("lockctx.structAssigns:"+tag+"."+member, func() any {
		var same []index.Assign
		for _, a := range r.ix.AssignsTo(member) {
			if a.Struct == tag {
				same = append(same, a)
			}
		}
		return slices.Clip(same) // an append by a caller copies
	}).([]index.Assign)
}

// unionAssigns returns the assignments of a followed by those of b that
// are not among them (another place: a setter's store "f->cb = cb" names
// the parameter, not a function, so two setters of one file differ only
// by line).
func unionAssigns(a, b []index.Assign) []index.Assign {
	if len(b) == 0 {
		return a
	}
	out := slices.Clip(a)
	for _, x := range b {
		if !slices.ContainsFunc(out, func(y index.Assign) bool { return y.File == x.File && y.Line == x.Line && y.Func == x.Func }) {
			out = append(out, x)
		}
	}
	return out
}

// pointerSummary summarises a call through a function pointer from the
// functions assigned to the member: the call may reach the target when
// one of them does; the proof is weak unless every implementation does or
// the assignment is unique.
func (r *Resolver) pointerSummary(c cscan.Call, caller *cscan.Func) *Summary {
	targets := r.PointerTargets(c, caller)
	if len(targets) == 0 {
		return nil
	}
	var first *Reach
	var firstT, argT PointerTarget
	var args []ArgReach
	reach, argN := 0, 0
	for _, t := range targets {
		s := r.SummaryOf(t.Func)
		if s.Reach == nil && len(s.ArgReaches) > 0 {
			argN++
			if args == nil {
				argT = t
				for _, a := range s.ArgReaches {
					a.Steps = append([]report.Step{ViaStep(t)}, a.Steps...)
					a.Weak = a.Weak || t.Heuristic && len(targets) > 1
					args = append(args, a)
				}
			}
		}
		if s.Reach == nil {
			continue
		}
		reach++
		if first == nil || first.Weak && !s.Reach.Weak {
			first, firstT = s.Reach, t
		}
	}
	if first == nil {
		if argN < len(targets) {
			// Only some implementations reach the target, unless the
			// parameter is the member's contract (a gfp_t).
			for i := range args {
				if !r.contractParam(argT.Func, args[i].Param) {
					args[i].Weak = true
				}
			}
		}
		return &Summary{ArgReaches: args}
	}
	p := *first
	p.Steps = append([]report.Step{ViaStep(firstT)}, first.Steps...)
	// A call through a table's element calls each element for its
	// index: the others not reaching the target make it no less sure.
	if reach < len(targets) && !TableCall(c.Name) {
		p.Weak = true
		p.Why += fmt.Sprintf("; %d of the %d functions assigned to %s may", reach, len(targets), firstT.Member())
	}
	if firstT.Heuristic && len(targets) > 1 {
		p.Weak = true
	}
	return &Summary{Reach: &p}
}

// tableElemRe matches the name of a call through a table's element: the
// element itself (handlers[], il->handlers[]) or a member of an element
// of a table of structs (icmp_pointers[].handler).
var tableElemRe = regexp.MustCompile(`\[\](?:\.\w+)?$`)

// TableCall reports whether the call named name goes through an element
// of a table, with an index only known at run time: each element is
// called for its own index. A table of pointers to ops
// (stats_grps[i]->update_stats()) is not one: its elements' ops are any
// implementation of the member.
func TableCall(name string) bool { return tableElemRe.MatchString(name) }

// tableTargets returns the functions a call through an element of the
// plain table name reaches (registrations.TableElems), as the caller's
// file sees them.
func (r *Resolver) tableTargets(caller *cscan.Func, name string) []PointerTarget {
	var out []PointerTarget
	line := registrations.TableLine(r.ix, caller.File, name)
	for _, fn := range registrations.TableElems(r.ix, caller, name) {
		defs := r.lookup(fn, caller.File)
		if len(defs) == 0 {
			continue
		}
		out = append(out, PointerTarget{Func: defs[0], Assign: index.Assign{Member: name + "[]", Func: fn, File: caller.File, Line: line}})
		if len(out) == maxPointerTargets {
			break
		}
	}
	return out
}

// matchedByName marks the step of a call through a pointer whose
// implementation was chosen by the member's name alone.
const matchedByName = ", matched by member name"

// PointerLinks returns the indexes of the steps of a chain that call an
// implementation through a pointer (ViaStep), and whether each of them
// found it by the struct type of the call, none by the member's name
// alone.
func PointerLinks(steps []report.Step) (links []int, typed bool) {
	typed = true
	for i, s := range steps {
		if !strings.Contains(s.What, " via ") || !strings.Contains(s.What, summary.AssignedAt) {
			continue
		}
		links = append(links, i)
		if strings.Contains(s.What, matchedByName) {
			typed = false
		}
	}
	return links, typed
}

// ViaStep is the chain step of a call through a pointer reaching t:
// "calls foo_get_stats64() via net_device_ops.ndo_get_stats64 (assigned at
// drivers/net/foo.c:123)".
func ViaStep(t PointerTarget) report.Step {
	what := fmt.Sprintf("calls %s() via %s %s%s:%d", t.Func.Name, t.Member(), summary.AssignedAt, t.Assign.File, t.Assign.Line)
	if t.Heuristic {
		what += matchedByName
	}
	return report.Step{Func: t.Func.Name, File: t.Func.File, Line: t.Func.Start, What: what + ")"}
}

// BaseAssignTag returns the struct tag of the object a plain assignment
// stores into ("mp->getp = f;"), "" when it cannot be told
// (typing.Typer.BaseAssignTag over the resolver's view).
func (r *Resolver) BaseAssignTag(a index.Assign) string {
	if r.typ == nil {
		return ""
	}
	return r.typ.BaseAssignTag(a)
}

// MemberCallTag returns the struct tag of the object a call through a
// member goes through, and the directory the tag is private to
// (typing.Typer.MemberCallTag over the resolver's view).
func (r *Resolver) MemberCallTag(c cscan.Call, caller *cscan.Func) (tag, scope string) {
	return r.typ.MemberCallTag(c, caller)
}
