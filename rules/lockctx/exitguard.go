package lockctx

import (
	"slices"
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

// exitGuard is the guard an early exit puts on the calls of the
// statements after it (by line).
type exitGuard struct {
	Lines map[int]bool
	Guard cscan.Guard
}

// withExitGuards returns c with the guards of the early exits before it
// appended (c itself when there are none): for the decisions of whether
// a reach is conditional, not for the scope of what is held.
func (r *Resolver) withExitGuards(fn *cscan.Func, c cscan.Call) cscan.Call {
	var add []cscan.Guard
	for _, e := range r.exitGuardsOf(fn) {
		if e.Lines[c.Line] {
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
// continue) guards the calls of the statements after it in its block, up
// to the first that holds a label or case label (a jump may enter there
// without the test), with the negation of its condition. The statement
// tree is read only when fn may make such a test (mayExitOnArg).
func (r *Resolver) exitGuards(fn *cscan.Func) []exitGuard {
	ag, ok := r.m.target.(ArgGuard)
	if !ok || !r.mayExitOnArg(fn, ag) {
		return nil
	}
	full := r.bodyOf(fn)
	if full == nil {
		return nil
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
			// An exit on several terms (!blocking && !force) lets the
			// code after it run on either: not a test of the mask alone.
			neg := Negate(v.Cond)
			if len(splitTop(neg, "||")) > 1 {
				continue
			}
			if _, ok := ag.GuardArg([]cscan.Guard{{Kind: "if", Cond: neg, Line: v.Line}}); !ok {
				continue
			}
			lines := map[int]bool{}
			for _, next := range b.Stmts[i+1:] {
				if holdsJumpTarget(next) {
					break
				}
				cscan.Inspect(next, func(x cscan.Stmt) {
					for _, c := range cscan.StmtCalls(x) {
						lines[c.Line] = true
					}
				})
			}
			// A line shared with the exit's own calls is not known to
			// be after it.
			cscan.Inspect(v, func(x cscan.Stmt) {
				for _, c := range cscan.StmtCalls(x) {
					delete(lines, c.Line)
				}
			})
			if len(lines) > 0 {
				out = append(out, exitGuard{Lines: lines, Guard: cscan.Guard{Kind: "if", Cond: neg, Line: v.Line}})
			}
		}
	})
	return out
}

// mayExitOnArg reports whether fn may exit early on a test of a deciding
// argument: its body's text holds one of the target's guard words (such
// an exit may make no call: `if (!(gfp & __GFP_DIRECT_RECLAIM)) goto
// nomem;`), or, when the file is not at hand, a call is such a test.
func (r *Resolver) mayExitOnArg(fn *cscan.Func, ag ArgGuard) bool {
	text := ""
	if fn.BodyStart >= 1 {
		text = r.typ.FileLines(fn.File).Span(fn.BodyStart-1, fn.End)
	}
	if text == "" {
		for _, c := range fn.Calls {
			if _, ok := ag.GuardArg([]cscan.Guard{{Kind: "if", Cond: c.Name + "(" + strings.Join(c.Args, ", ") + ")", Line: c.Line}}); ok {
				return true
			}
		}
		return false
	}
	for _, w := range ag.GuardWords() {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// alwaysLeaves reports whether statement s never falls through
// (cscan.EndsInJump) and holds no label or case label a jump could enter.
func alwaysLeaves(s cscan.Stmt) bool {
	return cscan.EndsInJump(s) && !holdsJumpTarget(s)
}

// holdsJumpTarget reports whether s is or holds a label, or a case
// label of a switch around s: a goto or that switch may enter there. The
// case labels of a switch inside s are entered only through it.
func holdsJumpTarget(s cscan.Stmt) bool {
	switch v := s.(type) {
	case *cscan.LabelStmt, *cscan.CaseStmt:
		return true
	case *cscan.Block:
		return slices.ContainsFunc(v.Stmts, holdsJumpTarget)
	case *cscan.IfStmt:
		return holdsJumpTarget(v.Then) || holdsJumpTarget(v.Else)
	case *cscan.LoopStmt:
		return holdsJumpTarget(v.Body)
	case *cscan.ScopedGuardStmt:
		return holdsJumpTarget(v.Body)
	case *cscan.SwitchStmt:
		return holdsLabel(v.Body)
	}
	return false
}

// holdsLabel reports whether s is or holds a goto label.
func holdsLabel(s cscan.Stmt) bool {
	found := false
	cscan.Inspect(s, func(x cscan.Stmt) {
		_, ok := x.(*cscan.LabelStmt)
		found = found || ok
	})
	return found
}
