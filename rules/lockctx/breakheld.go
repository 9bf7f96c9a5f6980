package lockctx

import (
	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// A forever loop that takes a context at the top of its body and is
// left only by a break taken with it held leaves it held after the loop:
// printk_cpu_sync_get_irqsave() is `for (;;) { local_irq_save(flags); if
// (__printk_cpu_sync_try_get()) break; local_irq_restore(flags);
// __printk_cpu_sync_wait(); }`, and its caller runs with interrupts off
// until printk_cpu_sync_put_irqrestore(). A flat summary scopes the
// acquire to the loop; without this, the put looks like a release of
// the caller's interrupts (dump_stack_lvl(), and every WARN path above
// it, would seem to turn interrupts back on).

// breakHeldLoops returns fn's forever loops left only by their own
// breaks, each an `if (cond) break;` after a lock call made at the top of
// the loop's body with no release call in between: the loop's line ->
// the line of that call.
func (r *Resolver) breakHeldLoops(fn *cscan.Func) map[int]int {
	lines := map[int]int{}
	full := r.bodyOf(fn)
	if full == nil {
		return lines
	}
	cscan.Inspect(full.Body, func(s cscan.Stmt) {
		l, ok := s.(*cscan.LoopStmt)
		if !ok || !isForever(l) || leaves(l.Body, false) {
			return // not forever, or a goto leaves it
		}
		if line, ok := r.takenBeforeBreaks(fn, l.Body); ok {
			lines[l.Line] = line
		}
	})
	return lines
}

// takenBeforeBreaks reports the line of the lock call made by a
// statement at the top of loop body b of fn when every break of the loop
// comes after it, with nothing given back in between.
func (r *Resolver) takenBeforeBreaks(fn *cscan.Func, b cscan.Stmt) (int, bool) {
	blk, ok := b.(*cscan.Block)
	if !ok {
		return 0, false
	}
	line, released, breaks := 0, false, 0
	for _, x := range blk.Stmts {
		brk := leaves(x, true)
		if line == 0 {
			if brk {
				return 0, false
			}
			if e, ok := x.(*cscan.ExprStmt); ok && r.hasOp(e.Calls, lockmodel.Take) {
				line = e.Line
			}
			continue
		}
		if brk {
			if released || !r.bareBreak(fn, x) {
				return 0, false
			}
			breaks++
			continue
		}
		released = released || r.releasesIn(fn, x)
	}
	return line, line > 0 && breaks > 0
}

// bareBreak reports whether s is `if (cond) break;` whose condition
// gives nothing back (mayRelease).
func (r *Resolver) bareBreak(fn *cscan.Func, s cscan.Stmt) bool {
	v, ok := s.(*cscan.IfStmt)
	if !ok || v.Else != nil || r.mayRelease(fn, v.CondCalls) {
		return false
	}
	then := v.Then
	if b, ok := then.(*cscan.Block); ok && len(b.Stmts) == 1 {
		then = b.Stmts[0]
	}
	_, ok = then.(*cscan.BreakStmt)
	return ok
}

// releasesIn reports whether statement s makes a call that may give a
// context back (mayRelease).
func (r *Resolver) releasesIn(fn *cscan.Func, s cscan.Stmt) bool {
	found := false
	cscan.Inspect(s, func(x cscan.Stmt) {
		found = found || r.mayRelease(fn, cscan.StmtCalls(x))
	})
	return found
}

// mayRelease reports whether one of cs, calls of fn, is a release
// primitive or a callee whose summary releases a caller's context.
func (r *Resolver) mayRelease(fn *cscan.Func, cs []cscan.Call) bool {
	for _, c := range cs {
		if r.m.Classify(c).Op == lockmodel.Drop {
			return true
		}
		if s := r.calleeSummary(c, fn); s != nil && len(s.Drops) > 0 {
			return true
		}
	}
	return false
}

// hasOp reports whether one of cs is a lock call of kind op.
func (r *Resolver) hasOp(cs []cscan.Call, op lockmodel.Op) bool {
	for _, c := range cs {
		if r.m.Classify(c).Op == op {
			return true
		}
	}
	return false
}

// heldAfterLoop returns the acquire that a, made at the top of a forever
// loop left only by breaks taken with it held (breakHeldLoops), makes
// after the loop; nil otherwise.
func (f *flatBuilder) heldAfterLoop(a act) *act {
	n := len(a.scope)
	if n == 0 || a.scope[n-1].Kind != "loop" || !foreverCond(a.scope[n-1].Cond) {
		return nil
	}
	if f.breakHeld == nil {
		f.breakHeld = f.r.breakHeldLoops(f.fn)
	}
	if f.breakHeld[a.scope[n-1].Line] != a.at.Line {
		return nil
	}
	after := a
	after.scope = a.scope[:n-1]
	return &after
}
