package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// An early exit guards what follows it as an if guards its branch:
// after `if (!gfpflags_allow_blocking(gfp)) goto nomem;` the reclaim
// further down runs only for masks that allow blocking, exactly as if it
// were written under `if (gfpflags_allow_blocking(gfp))`. The scanner
// records only the constructs around a call; exitGuards adds, for the
// calls that follow such an if in the same block, the guard the exit
// stands for. Only exits that test the deciding argument (ArgGuard) are
// read, so the reach becomes the argument-dependent reach it is
// (mem_cgroup's try_charge_memcg() reclaims only for a blocking mask),
// and no other conditional changes.

// exitGuard is the guard an early exit puts on the lines From..To of its
// function.
type exitGuard struct {
	From, To int
	Guard    cscan.Guard
}

// withExitGuards returns c with the guards of the early exits before it
// appended (c itself when there are none): for the decisions of whether
// a reach is conditional, not for the scope of what is held.
func (r *Resolver) withExitGuards(fn *cscan.Func, c cscan.Call) cscan.Call {
	var add []cscan.Guard
	for _, e := range r.exitGuardsOf(fn) {
		if c.Line >= e.From && c.Line <= e.To {
			add = append(add, e.Guard)
		}
	}
	if len(add) == 0 {
		return c
	}
	c.Guards = append(append([]cscan.Guard(nil), c.Guards...), add...)
	return c
}

// exitGuardsOf returns fn's early-exit guards, found once.
func (r *Resolver) exitGuardsOf(fn *cscan.Func) []exitGuard {
	if fn == nil {
		return nil
	}
	gs, ok := r.exitGuardCache[fn]
	if !ok {
		gs = r.exitGuards(fn)
		r.exitGuardCache[fn] = gs
	}
	return gs
}

// exitGuards finds fn's early exits on a test of a deciding argument: an
// if with no else whose branch always leaves (return, goto, break,
// continue) guards the statements after it in its block, up to the
// first label or case label (a jump may enter there without the test),
// with the negation of its condition. The statement tree is read only
// when the flat calls and returns show such a test.
func (r *Resolver) exitGuards(fn *cscan.Func) []exitGuard {
	ag, ok := r.m.target.(ArgGuard)
	if !ok || !r.mayExitOnArg(fn, ag) {
		return nil
	}
	full := fn
	if full.Body == nil {
		if r.ix == nil {
			return nil
		}
		if full = r.ix.Full(fn); full == nil || full.Body == nil {
			return nil
		}
	}
	var out []exitGuard
	cscan.Inspect(full.Body, func(s cscan.Stmt) {
		b, ok := s.(*cscan.Block)
		if !ok {
			return
		}
		for i, st := range b.Stmts {
			v, ok := st.(*cscan.IfStmt)
			if !ok || v.Else != nil || !alwaysLeaves(v.Then) || i+1 >= len(b.Stmts) {
				continue
			}
			neg := negateCond(v.Cond)
			if _, ok := ag.GuardArg([]cscan.Guard{{Kind: "if", Cond: neg, Line: v.Line}}); !ok {
				continue
			}
			to := b.EndLine
			if to == 0 {
				to = fn.End
			}
			for _, next := range b.Stmts[i+1:] {
				if isJumpTarget(next) {
					to = cscan.StmtLine(next) - 1
					break
				}
			}
			from := cscan.StmtLine(b.Stmts[i+1])
			if from > to {
				continue
			}
			out = append(out, exitGuard{From: from, To: to, Guard: cscan.Guard{Kind: "if", Cond: neg, Line: v.Line}})
		}
	})
	return out
}

// mayExitOnArg reports whether fn's flat calls and returns show a test
// of a deciding argument that an early exit may make: a call that is
// such a test (gfpflags_allow_blocking(gfp), made in an if's condition,
// carries no guard of its own), or a guarded return under the negation
// of one (`if (!(gfp & __GFP_DIRECT_RECLAIM)) return NULL;`).
func (r *Resolver) mayExitOnArg(fn *cscan.Func, ag ArgGuard) bool {
	for _, c := range fn.Calls {
		if _, ok := ag.GuardArg([]cscan.Guard{{Kind: "if", Cond: c.Name + "(" + strings.Join(c.Args, ", ") + ")", Line: c.Line}}); ok {
			return true
		}
	}
	for _, ret := range fn.Returns {
		for _, g := range ret.Guards {
			if g.Kind != "if" {
				continue
			}
			if _, ok := ag.GuardArg([]cscan.Guard{{Kind: "if", Cond: negateCond(g.Cond), Line: g.Line}}); ok {
				return true
			}
		}
	}
	return false
}

// alwaysLeaves reports whether statement s never falls through: a
// return, goto, break or continue, or a block ending in one with no
// label inside, or an if both of whose branches leave.
func alwaysLeaves(s cscan.Stmt) bool {
	switch v := s.(type) {
	case *cscan.ReturnStmt, *cscan.GotoStmt, *cscan.BreakStmt, *cscan.ContinueStmt:
		return true
	case *cscan.Block:
		if len(v.Stmts) == 0 {
			return false
		}
		for _, x := range v.Stmts {
			if isJumpTarget(x) {
				return false
			}
		}
		return alwaysLeaves(v.Stmts[len(v.Stmts)-1])
	case *cscan.IfStmt:
		return v.Else != nil && alwaysLeaves(v.Then) && alwaysLeaves(v.Else)
	}
	return false
}

// isJumpTarget reports whether control may enter at s other than from
// the statement before it: a label or a case label.
func isJumpTarget(s cscan.Stmt) bool {
	switch s.(type) {
	case *cscan.LabelStmt, *cscan.CaseStmt:
		return true
	}
	return false
}

// negateCond returns the negation of condition c: "x" for "!x" or
// "!(x)", "!(c)" otherwise.
func negateCond(c string) string {
	c = strings.TrimSpace(c)
	if strings.HasPrefix(c, "!") && !strings.HasPrefix(c, "!=") {
		rest := strings.TrimSpace(c[1:])
		if cscan.StripParens(rest) != rest || isSimpleTerm(rest) {
			return cscan.StripParens(rest)
		}
	}
	return "!(" + c + ")"
}

// isSimpleTerm reports whether x is one operand: a name, a member access
// or a call, with no operator at its top level.
func isSimpleTerm(x string) bool {
	depth := 0
	for i := 0; i < len(x); i++ {
		switch x[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '&', '|', '?', ':', '=', '<', '>', '+', '*', '/', '%', '^', ' ':
			if depth == 0 {
				return false
			}
		case '-':
			if i+1 < len(x) && x[i+1] == '>' {
				i++
			} else if depth == 0 {
				return false
			}
		}
	}
	return true
}
