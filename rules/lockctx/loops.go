package lockctx

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// isForever reports a loop left only by break, return or goto.
func isForever(s *cscan.LoopStmt) bool {
	return (s.Kind == "for" || s.Kind == "while") && foreverCond(s.Cond)
}

// foreverCond reports whether a loop's condition text never ends it: "1",
// "true", or a for's ";;" (init and step may be there, the test not).
func foreverCond(cond string) bool {
	c := strings.ReplaceAll(cond, " ", "")
	if parts := strings.Split(c, ";"); len(parts) == 3 {
		return parts[1] == ""
	}
	return c == "1" || c == "true"
}

// foreverOnly reports whether every guard of gs is a forever loop
// ("while (true)", "for (;;)") that returnOnly, the lines of the
// function's loops left only by return, holds: what runs under them runs
// on every path that gets there.
func foreverOnly(gs []cscan.Guard, returnOnly func() map[int]bool) bool {
	for _, g := range gs {
		if g.Kind != "loop" || !foreverCond(g.Cond) || !returnOnly()[g.Line] {
			return false
		}
	}
	return true
}

// returnOnlyLoops returns the lines of fn's loops left only by return: no
// break of their own and no goto in their body (an open-coded wait loop
// that unlocks, sleeps and relocks until a break leaves with the lock
// held, as it came in, is not one).
func (r *Resolver) returnOnlyLoops(fn *cscan.Func) map[int]bool {
	lines := map[int]bool{}
	full := r.bodyOf(fn)
	if full == nil {
		return lines
	}
	cscan.Inspect(full.Body, func(s cscan.Stmt) {
		if l, ok := s.(*cscan.LoopStmt); ok && !leaves(l.Body, true) {
			lines[l.Line] = true
		}
	})
	return lines
}

// leaves reports whether s holds a goto, or (own) a break of the loop
// around it: a break inside an inner loop, switch or scoped_guard() is
// theirs.
func leaves(s cscan.Stmt, own bool) bool {
	switch v := s.(type) {
	case *cscan.Block:
		for _, x := range v.Stmts {
			if leaves(x, own) {
				return true
			}
		}
	case *cscan.IfStmt:
		return leaves(v.Then, own) || leaves(v.Else, own)
	case *cscan.LoopStmt:
		return leaves(v.Body, false)
	case *cscan.SwitchStmt:
		return leaves(v.Body, false)
	case *cscan.ScopedGuardStmt:
		// scoped_guard() is a for loop of its own: a break leaves it.
		return leaves(v.Body, false)
	case *cscan.BreakStmt:
		return own
	case *cscan.GotoStmt:
		return true
	}
	return false
}

// loopsLeftByReturn returns the lines of fn's loops left only by return
// (Resolver.returnOnlyLoops), read once.
func (f *flatBuilder) loopsLeftByReturn() map[int]bool {
	if f.returnOnly == nil {
		f.returnOnly = f.r.returnOnlyLoops(f.fn)
	}
	return f.returnOnly
}
