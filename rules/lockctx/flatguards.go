package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// The guards of a flat summary's acts: which acquires and releases are in
// scope at a call, given the ifs, elses and loops around it.

// bothBranches returns the acquire that a, taken in an else branch, makes
// after the if when the if's true branch (or its condition, a trylock)
// took the same context: held on both ways out, it is held after the if
// as if taken there (ext4_lock_group(): `if (spin_trylock(lock)) ...;
// else { ...; spin_lock(lock); }`). nil otherwise.
func (f *flatBuilder) bothBranches(a act) *act {
	n := len(a.scope)
	if n == 0 || a.scope[n-1].Kind != "else" {
		return nil
	}
	cond, ok := f.r.elseCondOf(f.fn, a.scope[n-1].Line)
	if !ok {
		return nil
	}
	parent := a.scope[:n-1]
	for k := range f.acts {
		// A true branch that releases the context again leaves nothing
		// held after the if (an else branch that does is seen later:
		// dropBothBranches).
		t := &f.acts[k]
		if !t.acquire && t.Kind == a.Kind && t.Key == a.Key && len(t.scope) > len(parent) && guardPrefix(parent, t.scope) {
			return nil
		}
	}
	isIf := func(g *cscan.Guard) bool {
		return g != nil && g.Kind == "if" && g.Cond == cond && g.Line < a.scope[n-1].Line
	}
	for k := range f.acts {
		t := &f.acts[k]
		if !t.acquire || t.Kind != a.Kind || t.Key != a.Key || !guardPrefix(parent, t.scope) {
			continue
		}
		tried := len(t.scope) == len(parent) && isIf(t.within)
		taken := len(t.scope) == len(parent)+1 && isIf(&t.scope[len(parent)])
		if tried || taken {
			after := a
			after.scope, after.both = parent, true
			return &after
		}
	}
	return nil
}

func sameGuard(a, b cscan.Guard) bool {
	return a.Kind == b.Kind && a.Line == b.Line && a.Cond == b.Cond
}

func guardPrefix(p, g []cscan.Guard) bool {
	if len(p) > len(g) {
		return false
	}
	for i := range p {
		if !sameGuard(p[i], g[i]) {
			return false
		}
	}
	return true
}

func hasGuard(gs []cscan.Guard, g *cscan.Guard) bool {
	for _, x := range gs {
		if sameGuard(x, *g) {
			return true
		}
	}
	return false
}

func (a *act) applies(g []cscan.Guard) bool {
	if !guardPrefix(a.scope, g) {
		return false
	}
	if a.within != nil && !hasGuard(g, a.within) {
		return false
	}
	if a.notIn != nil && hasGuard(g, a.notIn) {
		return false
	}
	return true
}

// condGuard finds the if whose condition holds call c (the guard of the
// statements it controls), and whether the call is negated there.
func condGuard(fn *cscan.Func, c cscan.Call) (*cscan.Guard, bool) {
	for i := range fn.Calls {
		for j := range fn.Calls[i].Guards {
			g := &fn.Calls[i].Guards[j]
			if g.Kind == "if" && g.Line == c.Line && strings.Contains(g.Cond, c.Name+"(") {
				return g, negated(g.Cond, c.Name)
			}
		}
	}
	for i := range fn.Returns {
		for j := range fn.Returns[i].Guards {
			g := &fn.Returns[i].Guards[j]
			if g.Kind == "if" && g.Line == c.Line && strings.Contains(g.Cond, c.Name+"(") {
				return g, negated(g.Cond, c.Name)
			}
		}
	}
	return nil, false
}

// negated reports whether name's call in cond is under a leading '!'
// (directly or through likely()/unlikely()).
func negated(cond, name string) bool {
	i := strings.Index(cond, name+"(")
	if i < 0 {
		return false
	}
	pre := strings.TrimRight(cond[:i], " (")
	pre = strings.TrimSuffix(pre, "likely")
	pre = strings.TrimSuffix(pre, "un")
	pre = strings.TrimRight(pre, " (")
	return strings.HasSuffix(pre, "!")
}

// dropBothBranches takes back the acquire bothBranches made after an if
// when release d, inside one of its branches, releases that context there:
// the branch does not leave it held.
func (f *flatBuilder) dropBothBranches(d act) {
	for k := len(f.acts) - 1; k >= 0; k-- {
		t := &f.acts[k]
		if t.both && t.Kind == d.Kind && t.Key == d.Key && len(d.scope) > len(t.scope) && guardPrefix(t.scope, d.scope) {
			f.acts = append(f.acts[:k], f.acts[k+1:]...)
			return
		}
	}
}
