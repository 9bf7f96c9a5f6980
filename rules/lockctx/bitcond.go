package lockctx

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A chain taken for one bit of a flags parameter (`if (flag &
// CMD_FLAG_WAIT) wait_for_completion(...)`, or the mask `flag &
// CMD_FLAG_IN_INTERRUPT ? GFP_ATOMIC : GFP_KERNEL`) is taken only for the
// callers whose flags have that bit set (or clear): the chain's ParamCond
// carries the bit's name (Bit). A caller passing constant flags is judged
// by their value when both evaluate (bitIn), else by the names they or
// in; one passing its own flags parameter hands the condition on; one
// passing anything else, or flags neither way reads (an enum constant),
// may reach it (unless the condition is Strict).

// bitTestRe matches `name & BIT` and `BIT & name`.
var bitTestRe = regexp.MustCompile(`^(?:([a-z_]\w*)\s*&\s*([A-Z_][A-Z0-9_]*)|([A-Z_][A-Z0-9_]*)\s*&\s*([a-z_]\w*))$`)

// bitTest reads a condition testing one flag of a variable: "f & BIT",
// "!(f & BIT)", "(f & BIT) == 0", "unlikely(f & BIT)"; set is whether it
// holds when the bit is set.
func bitTest(c string) (name, bit string, set, ok bool) {
	c, set, ok = truthTest(c, true)
	if !ok {
		return "", "", false, false
	}
	m := bitTestRe.FindStringSubmatch(c)
	switch {
	case m == nil:
		return "", "", false, false
	case m[1] != "":
		return m[1], m[2], set, true
	}
	return m[4], m[3], set, true
}

// bitCond is bitTest for a condition of fn's code, but for a test of the
// target's deciding argument (`gfp & __GFP_DIRECT_RECLAIM`, ArgGuard):
// what such a mask reaches is an argument-dependent reach, decided by
// the mask's value, not by a flag's name.
func (r *Resolver) bitCond(c string) (name, bit string, set, ok bool) {
	name, bit, set, ok = bitTest(c)
	if !ok {
		return "", "", false, false
	}
	if ag, isAG := r.m.target.(ArgGuard); isAG {
		if _, dec := ag.GuardArg([]cscan.Guard{{Kind: "if", Cond: name + " & " + bit}}); dec {
			return "", "", false, false
		}
	}
	return name, bit, set, true
}

// bitAt evaluates bit condition rc at a call passing arg (condAt).
func (r *Resolver) bitAt(fn *cscan.Func, arg string, rc *ParamCond) (keep bool, out *ParamCond) {
	a := strings.TrimSpace(unwrap(arg))
	if j := r.typ.ParamIndex(fn, a); j >= 0 {
		if !r.bitParam(fn, j) {
			return !rc.Strict, nil
		}
		return true, &ParamCond{Param: j, True: rc.True, Bit: rc.Bit, Strict: rc.Strict}
	}
	vs := []string{a}
	if !isUpperName(a) {
		// A local variable's values; a constant's name is read by
		// bitIn, whose definition (BIT(0)) says nothing of other bits.
		vs = r.argValues(fn, a)
	}
	seen, has := false, false
	for _, v := range vs {
		h, known := r.bitIn(fn, v, rc.Bit)
		if !known || seen && h != has {
			return !rc.Strict, nil
		}
		seen, has = true, h
	}
	if !seen {
		return !rc.Strict, nil
	}
	return has == rc.True, nil
}

// bitIn reports whether constant flags expression v, as fn's file sees
// it, has a bit of flag bit: by value when both evaluate (flagMask), else
// when the names v ors in, macros expanded, include bit or one of its
// own names. known is false otherwise: an enum constant, a complement, a
// variable.
func (r *Resolver) bitIn(fn *cscan.Func, v, bit string) (has, known bool) {
	if n, ok := literalUint(unwrap(v)); ok && n == 0 {
		return false, true
	}
	vm, vok := r.flagMask(fn, v, maxDefineDepth)
	bm, bok := r.flagMask(fn, bit, maxDefineDepth)
	if vok && bok {
		return vm&bm != 0, true
	}
	names := r.flagNames(fn, v, maxDefineDepth)
	for b := range r.flagNames(fn, bit, maxDefineDepth) {
		if names[b] {
			return true, true
		}
	}
	return false, false
}

// bitShiftRe matches BIT(n), BIT_ULL(n) and 1 << n.
var bitShiftRe = regexp.MustCompile(`^(?:BIT(?:_ULL)?\(\s*(\d+)\s*\)|1[uUlL]*\s*<<\s*(\d+))$`)

// flagMask evaluates constant flags expression v as fn's file sees it:
// or-ed numbers, BIT(n), 1 << n, flags & ~mask, and macros defined as
// such, to depth levels of definitions.
func (r *Resolver) flagMask(fn *cscan.Func, v string, depth int) (uint64, bool) {
	var mask uint64
	for _, o := range splitTop(unwrap(v), "|") {
		t := unwrap(o)
		if n, ok := literalUint(t); ok {
			mask |= n
			continue
		}
		if ts := splitTop(t, "&"); len(ts) == 2 && strings.HasPrefix(strings.TrimSpace(ts[1]), "~") {
			// flags & ~mask: the flags without those bits.
			x, okx := r.flagMask(fn, ts[0], depth)
			y, oky := r.flagMask(fn, strings.TrimPrefix(strings.TrimSpace(ts[1]), "~"), depth)
			if !okx || !oky {
				return 0, false
			}
			mask |= x &^ y
			continue
		}
		if m := bitShiftRe.FindStringSubmatch(t); m != nil {
			n, _ := strconv.Atoi(m[1] + m[2])
			if n >= 64 {
				return 0, false
			}
			mask |= 1 << n
			continue
		}
		if !identRe.MatchString(t) || !isUpperName(t) || depth <= 0 || r.ix == nil {
			return 0, false
		}
		def, ok := r.define(fn.File, t, maxDefineDepth, map[string]bool{})
		if !ok {
			return 0, false
		}
		n, ok := r.flagMask(fn, def, depth-1)
		if !ok {
			return 0, false
		}
		mask |= n
	}
	return mask, true
}

// flagNames returns the names of the flags constant expression v ors in,
// with the names of the macros among them defined as ors of names, to
// depth levels of definitions.
func (r *Resolver) flagNames(fn *cscan.Func, v string, depth int) map[string]bool {
	out := map[string]bool{}
	for _, o := range splitTop(unwrap(v), "|") {
		t := unwrap(o)
		if !identRe.MatchString(t) || !isUpperName(t) {
			continue
		}
		out[t] = true
		if depth <= 0 || r.ix == nil {
			continue
		}
		if def, ok := r.define(fn.File, t, maxDefineDepth, map[string]bool{}); ok && !strings.ContainsAny(def, "~&") {
			for n := range r.flagNames(fn, def, depth-1) {
				out[n] = true
			}
		}
	}
	return out
}

// literalUint reads an unsigned integer literal (0x10, 4U, 0).
func literalUint(s string) (uint64, bool) {
	n, err := strconv.ParseUint(strings.TrimRight(strings.ToLower(strings.TrimSpace(s)), "ul"), 0, 64)
	return n, err == nil
}
