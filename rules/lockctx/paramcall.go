package lockctx

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// maxParamCallDepth bounds how many functions a function-pointer
// parameter is followed through before it is called.
const maxParamCallDepth = 3

// paramKey identifies one parameter of one function.
type paramKey struct {
	fn    *cscan.Func
	param int
}

// ParamCalled reports whether g calls the function passed in its
// parameter param (directly, "handler(gvt, offset, data)", or by passing
// it on to a function that does), with the steps from g down to that
// call. Iterators taking a callback (intel_gvt_for_each_tracked_mmio(gvt,
// handler, data)) call it synchronously in their caller's context; a
// registration storing it for later does not call it.
func (r *Resolver) ParamCalled(g *cscan.Func, param int) ([]report.Step, bool) {
	return r.paramCalled(g, param, 0)
}

func (r *Resolver) paramCalled(g *cscan.Func, param, depth int) ([]report.Step, bool) {
	if g == nil || param < 0 || depth > maxParamCallDepth {
		return nil, false
	}
	k := paramKey{g, param}
	if s, ok := r.paramCalls[k]; ok {
		return s, s != nil
	}
	r.paramCalls[k] = nil // recursion
	ps := r.typ.Params(g)
	if param >= len(ps) || ps[param] == "" {
		return nil, false
	}
	name := ps[param]
	var steps []report.Step
	for _, c := range g.Calls {
		if c.Name == name || c.Name == "(*"+name+")" {
			steps = []report.Step{StepOf(g, c.Line, "calls its parameter "+name+"()")}
			break
		}
	}
	if steps == nil {
		for _, c := range g.Calls {
			if strings.ContainsAny(c.Name, ">.") {
				continue
			}
			for i, a := range c.Args {
				if strings.TrimSpace(a) != name {
					continue
				}
				defs := r.lookup(c.Name, g.File)
				if len(defs) != 1 {
					continue
				}
				if sub, ok := r.paramCalled(defs[0], i, depth+1); ok {
					steps = append([]report.Step{StepOf(g, c.Line, fmt.Sprintf("passes its parameter %s to %s()", name, c.Name))}, sub...)
					break
				}
			}
			if steps != nil {
				break
			}
		}
	}
	r.paramCalls[k] = steps
	return steps, steps != nil
}

// plainIdent reports whether an argument is a bare identifier or one
// with a leading '&' (a function named as a value), cheaply.
func plainIdent(arg string) string {
	a := strings.TrimSpace(arg)
	a = strings.TrimPrefix(a, "&")
	if a == "" || a[0] >= '0' && a[0] <= '9' {
		return ""
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return ""
		}
	}
	return a
}

// callbackArgReach returns the reach of a call c made by fn that passes a
// function by name to a callee calling that parameter: the function runs
// in fn's context at c ("intel_gvt_for_each_tracked_mmio(gvt,
// mmio_diff_handler, &param)" reaches what mmio_diff_handler() reaches).
func (r *Resolver) callbackArgReach(fn *cscan.Func, c cscan.Call) *Reach {
	if r.ix == nil && len(r.patch) == 0 || strings.ContainsAny(c.Name, ">.") {
		return nil
	}
	var g *cscan.Func
	for i, a := range c.Args {
		id := plainIdent(a)
		if id == "" || isUpperName(id) {
			continue
		}
		defs := r.lookup(id, fn.File)
		if len(defs) != 1 {
			continue
		}
		if g == nil {
			gs := r.lookup(c.Name, fn.File)
			if len(gs) != 1 {
				return nil
			}
			g = gs[0]
		}
		steps, ok := r.ParamCalled(g, i)
		if !ok {
			continue
		}
		s := r.SummaryOf(defs[0])
		if !Unconditional(s.Reach) {
			continue
		}
		p := *s.Reach
		head := []report.Step{StepOf(fn, c.Line, "calls "+c.Name+"()")}
		head = append(head, steps...)
		last := head[len(head)-1]
		last.What += ": " + defs[0].Name + "()"
		head[len(head)-1] = last
		p.Steps = append(head, s.Reach.Steps...)
		return &p
	}
	return nil
}

// ParamCallHeld returns the atomic contexts g holds, on every path, where
// it calls the function passed in its parameter param (directly, or in the
// function it passes the parameter on to): a walker that takes its lock
// around the callback (iterate_fd() calls f under files->file_lock) runs
// the callback in atomic context whatever its caller holds.
func (r *Resolver) ParamCallHeld(g *cscan.Func, param int) []Held {
	return r.paramCallHeld(g, param, 0)
}

func (r *Resolver) paramCallHeld(g *cscan.Func, param, depth int) []Held {
	if g == nil || param < 0 || depth > maxParamCallDepth {
		return nil
	}
	k := paramKey{g, param}
	if hs, ok := r.paramHeld[k]; ok {
		return hs
	}
	r.paramHeld[k] = nil // recursion
	ps := r.typ.Params(g)
	if param >= len(ps) || ps[param] == "" {
		return nil
	}
	full := g
	if full.Body == nil && r.ix != nil {
		full = r.ix.Full(g)
	}
	if full == nil || full.Body == nil {
		return nil
	}
	name := ps[param]
	musts := func(st State) []Held {
		var out []Held
		for _, h := range st.Held {
			if h.Must {
				out = append(out, h)
			}
		}
		return out
	}
	var out []Held
	found := false
	Walk(r, full, func(v Visit) {
		if found || v.State.Dead {
			return
		}
		if v.Call.Name == name || v.Call.Name == "(*"+name+")" {
			found, out = true, musts(v.State)
			return
		}
		if strings.ContainsAny(v.Call.Name, ">.") {
			return
		}
		for i, a := range v.Call.Args {
			if strings.TrimSpace(a) != name {
				continue
			}
			defs := r.lookup(v.Call.Name, g.File)
			if len(defs) != 1 {
				continue
			}
			if _, ok := r.paramCalled(defs[0], i, depth+1); ok {
				found = true
				out = append(musts(v.State), r.paramCallHeld(defs[0], i, depth+1)...)
				return
			}
		}
	})
	r.paramHeld[k] = out
	return out
}
