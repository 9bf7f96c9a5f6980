package sleep

import (
	"slices"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// siteAt is one call of a caller on the reverse chain, with the state
// before it and the contexts the caller has released by then without
// having taken them ("spin_unlock(&pool_lock); pool_get2(); spin_lock(
// &pool_lock);" in a helper its callers call under pool_lock).
type siteAt struct {
	call  cscan.Call
	st    lockctx.State
	drops []lockctx.Effect
}

// sitesIn walks caller (from the contexts it is registered in) and
// returns its live calls named call.
func (r *checker) sitesIn(caller *cscan.Func, call string) []siteAt {
	var sites []siteAt
	var drops []lockctx.Effect
	entry := lockctx.State{Held: r.newR.Implicit(caller)}
	lockctx.WalkFrom(r.newR, caller, entry, func(v lockctx.Visit) {
		if v.State.Dead {
			return
		}
		switch a := r.m.Classify(v.Call); a.Op {
		case lockmodel.Drop:
			if !holds(v.State, a.Kind, a.Key) {
				drops = append(drops, lockctx.Effect{Kind: a.Kind, Key: a.Key})
			}
		case lockmodel.Take:
			drops = slices.DeleteFunc(slices.Clone(drops), func(d lockctx.Effect) bool { return d.Kind == a.Kind && d.Key == a.Key })
		}
		if v.Call.Name == call {
			sites = append(sites, siteAt{v.Call, v.State, slices.Clone(drops)})
		}
	})
	return sites
}

// holds reports whether st holds a context of kind and key.
func holds(st lockctx.State, kind, key string) bool {
	return slices.ContainsFunc(st.Held, func(h lockctx.Held) bool { return h.Kind == kind && h.Key == key })
}

// tableSites returns the calls through an element of a plain table of
// fn's file that holds fn ("static const handler_fn handlers[] = {
// [CMD_A] = fn, ... }" and "handlers[cmd](dev)"): each element is called
// for its index, so the chain through the table is sure.
func (r *checker) tableSites(fn *cscan.Func) []callSite {
	var out []callSite
	for _, t := range registrations.TablesOf(r.p.Index, fn.File, fn.Name) {
		a := index.Assign{Member: t + "[]", Func: fn.Name, File: fn.File, Line: registrations.TableLine(r.p.Index, fn.File, t)}
		for _, site := range r.p.Index.Callers(t + "[]") {
			if site.Func.File != fn.File {
				continue // another file's table of that name
			}
			out = append(out, callSite{caller: site.Func, call: site.Call.Name, typed: true,
				via: []report.Step{lockctx.ViaStep(lockctx.PointerTarget{Func: fn, Assign: a})}})
		}
	}
	return out
}
