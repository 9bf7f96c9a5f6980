package wakeup

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
	"github.com/autosel-bot/autosel-bot/rules/lockmodel"
)

// The copy of a function's statement tree that wakeup's lock walk runs
// over: probes give the state at lines with no call, and lock arguments
// are wakeup's keys.

// probeName names the calls a prober inserts: no function has it, so the
// walker only reports the state there.
const probeName = "wakeup probe"

func probe(line int) *cscan.ExprStmt {
	return &cscan.ExprStmt{Line: line, Calls: []cscan.Call{{Name: probeName, Line: line}}}
}

// prober copies a statement tree for the lock walk.
type prober struct {
	m *lockctx.Model
	// texts collects the scoped_guard() calls by line, as written.
	texts map[int]string
	// wrap reads a call of a lock wrapper as the primitive call it makes
	// (nil: no wrappers).
	wrap func(cscan.Call) (cscan.Call, bool)
	// vt types the function's variables, fn names it; typed collects the
	// typed key of each lock key (typedLockKey), "" where one key names
	// locks of two types.
	vt       *varTypes
	fn, file string
	typed    map[string]string
}

// block returns a copy of a statement tree with a probe call before every
// statement and at the end of every block (before guard() scopes close),
// so that the walk reports the state at lines with no call of their own.
// Case and goto labels get none: the state there is the next statement's,
// once the paths have joined. inSwitch marks a switch body.
func (p *prober) block(s cscan.Stmt, inSwitch bool) *cscan.Block {
	switch b := s.(type) {
	case nil:
		return nil
	case *cscan.Block:
		if b == nil {
			return nil
		}
		out := &cscan.Block{Line: b.Line, EndLine: b.EndLine}
		for _, x := range b.Stmts {
			switch x.(type) {
			case *cscan.CaseStmt, *cscan.LabelStmt:
			default:
				out.Stmts = append(out.Stmts, probe(cscan.StmtLine(x)))
			}
			out.Stmts = append(out.Stmts, p.stmt(x))
		}
		if b.EndLine > 0 && !inSwitch {
			out.Stmts = append(out.Stmts, probe(b.EndLine))
		}
		return out
	}
	return &cscan.Block{Line: cscan.StmtLine(s), Stmts: []cscan.Stmt{probe(cscan.StmtLine(s)), p.stmt(s)}}
}

// stmt copies one statement, keying its lock calls and probing the
// statements nested in it.
func (p *prober) stmt(s cscan.Stmt) cscan.Stmt {
	switch x := s.(type) {
	case *cscan.Block:
		return p.block(x, false)
	case *cscan.ExprStmt:
		c := *x
		c.Calls = p.calls(x.Calls)
		return &c
	case *cscan.ReturnStmt:
		c := *x
		c.Calls = p.calls(x.Calls)
		return &c
	case *cscan.IfStmt:
		c := *x
		c.CondCalls = p.calls(x.CondCalls)
		c.Cond = renamed(x.Cond, x.CondCalls, c.CondCalls)
		c.Then = orNil(p.block(x.Then, false))
		c.Else = orNil(p.block(x.Else, false))
		return &c
	case *cscan.LoopStmt:
		c := *x
		c.CondCalls = p.calls(x.CondCalls)
		c.Cond = renamed(x.Cond, x.CondCalls, c.CondCalls)
		c.Body = orNil(p.block(x.Body, false))
		return &c
	case *cscan.SwitchStmt:
		c := *x
		c.CondCalls = p.calls(x.CondCalls)
		c.Body = orNil(p.block(x.Body, true))
		return &c
	case *cscan.ScopedGuardStmt:
		c := *x
		p.texts[x.Line] = lockctx.CallText(x.Call)
		c.Call = p.keyed(x.Call)
		c.Body = orNil(p.block(x.Body, false))
		return &c
	}
	return s
}

// calls returns cs with their lock arguments keyed.
func (p *prober) calls(cs []cscan.Call) []cscan.Call {
	out := make([]cscan.Call, len(cs))
	for i, c := range cs {
		out[i] = p.keyed(c)
	}
	return out
}

// renamed returns condition cond with the calls of lock wrappers named
// as the primitives they were read as (was -> now, by position), so that
// the walker finds a trylock wrapper's test ("!foo_trylock(d)") as the
// trylock's.
func renamed(cond string, was, now []cscan.Call) string {
	for i := range was {
		if i < len(now) && now[i].Name != was[i].Name {
			cond = strings.Replace(cond, was[i].Name+"(", now[i].Name+"(", 1)
		}
	}
	return cond
}

// keyed returns c with the argument naming its lock replaced by the
// lock's key (lockKey): the walker then pairs an unlock with its lock,
// and joins two paths, by that key.
func (p *prober) keyed(c cscan.Call) cscan.Call {
	arg := -1
	a := p.m.Classify(c)
	if a.Op == lockmodel.None && p.wrap != nil {
		if w, ok := p.wrap(c); ok {
			c, a = w, p.m.Classify(w)
		}
	}
	if a.Op != lockmodel.None {
		arg = a.Arg
	}
	if arg < 0 || arg >= len(c.Args) {
		return c
	}
	c.Args = append([]string(nil), c.Args...)
	k := lockKey(c.Args[arg])
	if p.typed != nil {
		t := typedLockKey(c.Args[arg], p.vt, p.fn, p.file)
		if old, seen := p.typed[k]; seen && old != t {
			t = ""
		}
		p.typed[k] = t
	}
	c.Args[arg] = k
	return c
}

// typedLockKey names the lock arg takes by the type of the object that
// holds it ("&c->lock" with c a struct dm_bufio_client pointer:
// "dm_bufio_client.lock"), or a global lock by its file and name (a
// static lock of one file is not another file's lock of the same name);
// "" when the object's type is not known.
func typedLockKey(arg string, vt *varTypes, fn, file string) string {
	k := queueKey(arg, vt, fn)
	if k == "" || strings.HasPrefix(k, "*.") || strings.HasPrefix(k, "local:") || strings.ContainsAny(k, "()") {
		return ""
	}
	if !strings.Contains(k, ".") {
		if vt != nil && vt.locals[k] {
			return ""
		}
		return file + ":" + k
	}
	return k
}

// orNil keeps a missing statement missing (a nil *Block is not a nil
// Stmt).
func orNil(b *cscan.Block) cscan.Stmt {
	if b == nil {
		return nil
	}
	return b
}
