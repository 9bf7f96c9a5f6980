package lockctx

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A chain taken for one bit of a flags parameter (`if (flag &
// CMD_FLAG_WAIT) wait_for_completion(...)`, or the mask `flag &
// CMD_FLAG_IN_INTERRUPT ? GFP_ATOMIC : GFP_KERNEL`) is taken only for the
// callers whose flags have that bit set (or clear): the chain's ParamCond
// carries the bit's name (Bit). A caller passing constant flags reaches
// it when their or-ed names include the bit (directly or in a macro's
// definition) and not otherwise, one passing its own flags parameter
// hands the condition on, one passing anything else may (unless the
// condition is Strict).

// bitTestRe matches `name & BIT` and `BIT & name`.
var bitTestRe = regexp.MustCompile(`^(?:([a-z_]\w*)\s*&\s*([A-Z_][A-Z0-9_]*)|([A-Z_][A-Z0-9_]*)\s*&\s*([a-z_]\w*))$`)

// bitTest reads a condition testing one flag of a variable: "f & BIT",
// "!(f & BIT)", "(f & BIT) == 0", "unlikely(f & BIT)"; set is whether it
// holds when the bit is set.
func bitTest(c string) (name, bit string, set, ok bool) {
	c = unwrap(c)
	for _, f := range []string{"likely", "unlikely"} {
		if rest, ok := strings.CutPrefix(c, f+"("); ok && strings.HasSuffix(rest, ")") {
			c = unwrap(rest[:len(rest)-1])
		}
	}
	set = true
	for strings.HasPrefix(c, "!") && !strings.HasPrefix(c, "!=") {
		c, set = unwrap(c[1:]), !set
	}
	for _, op := range []string{"==", "!="} {
		l, rhs, found := strings.Cut(c, op)
		if !found {
			continue
		}
		if v, known := literalTruth(strings.TrimSpace(rhs)); !known || v {
			return "", "", false, false
		}
		if op == "==" {
			set = !set
		}
		c = unwrap(l)
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

// bitAt evaluates bit condition rc at a call passing arg (condAt).
func (r *Resolver) bitAt(fn *cscan.Func, arg string, rc *ParamCond) (keep bool, out *ParamCond) {
	a := strings.TrimSpace(unwrap(arg))
	if j := r.typ.ParamIndex(fn, a); j >= 0 {
		if !r.flagParam(fn, j) {
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
// it, has flag bit: one of its or-ed terms is bit, or a macro whose
// definition names it; 0 and other constants' names do not. known is
// false for anything but names of constants, literals and their or.
func (r *Resolver) bitIn(fn *cscan.Func, v, bit string) (has, known bool) {
	for _, o := range splitTop(unwrap(v), "|") {
		t := unwrap(o)
		switch {
		case t == bit:
			has = true
		case identRe.MatchString(t) && isUpperName(t):
			if r.ix == nil {
				continue
			}
			if def, ok := r.define(fn.File, t, maxDefineDepth, map[string]bool{}); ok && cscan.ContainsWord(def, bit) {
				has = true
			}
		default:
			n, ok := literalTruth(t)
			if !ok || n {
				return false, false
			}
		}
	}
	return has, true
}
