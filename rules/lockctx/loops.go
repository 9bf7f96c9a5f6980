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

// foreverOnly reports whether every guard of gs is a loop of fn left only
// by return ("while (true)", "for (;;)" with no break or goto out of
// them): what runs under them runs on every path that gets there.
func (r *Resolver) foreverOnly(fn *cscan.Func, gs []cscan.Guard) bool {
	for _, g := range gs {
		if g.Kind != "loop" || !foreverCond(g.Cond) || !r.returnOnlyLoop(fn, g.Line) {
			return false
		}
	}
	return true
}

// returnOnlyLoop reports whether the loop of fn starting on line is left
// only by return: no break of its own and no goto in its body (an
// open-coded wait loop that unlocks, sleeps and relocks until a break
// leaves with the lock held, as it came in).
func (r *Resolver) returnOnlyLoop(fn *cscan.Func, line int) bool {
	full := fn
	if full.Body == nil && r.ix != nil {
		full = r.ix.Full(fn)
	}
	if full == nil || full.Body == nil {
		return false
	}
	var loop *cscan.LoopStmt
	cscan.Inspect(full.Body, func(s cscan.Stmt) {
		if l, ok := s.(*cscan.LoopStmt); ok && l.Line == line && loop == nil {
			loop = l
		}
	})
	return loop != nil && !leaves(loop.Body, true)
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
