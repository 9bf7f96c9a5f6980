package wakeup

// Wake-ups gated by a local flag.
//
// A function that wakes once after a loop often records whether it
// should in a local flag:
//
//	bool wakeup = false;
//	for (...) {
//		if (v->type == EV_SYN && v->code == SYN_REPORT)
//			wakeup = true;
//	}
//	if (wakeup)
//		wake_up_interruptible(&client->wait);
//
// The wake-up is conditional on what sets the flag: the statements
// around its one store, and, for a flag stored from an expression
// (`wakeup = head != tail;`), that expression. A patch that narrows the
// store (`if (input) wakeup = true;`) makes the wake-up conditional as
// surely as one that wraps the call, so the wake-up's guards are read
// with the flag's (withFlagGuards) where the patch's conditions are
// compared.

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/ctype"
)

// flagGuardRe matches a guard that tests a plain identifier.
var flagGuardRe = regexp.MustCompile(`^\s*\(?\s*([A-Za-z_]\w*)\s*\)?\s*$`)

// withFlagGuards returns wake-up s's guards with, after each guard that
// tests a local flag of f, the guards of the flag's one store that do
// not also enclose the wake-up, and the stored expression as an "if"
// guard when it is not a constant; flags maps the line of each guard
// added to the flag it sets.
func withFlagGuards(f *wfunc, s *wsite) (out []cscan.Guard, flags map[int]string) {
	gs := s.Call.Guards
	if f == nil || f.F == nil || f.F.Body == nil || f.Partial {
		return gs, nil
	}
	for i, g := range gs {
		out = append(out, g)
		m := flagGuardRe.FindStringSubmatch(g.Cond)
		if g.Kind != "if" || m == nil || !declaresLocal(f, m[1]) || declaresPointer(f, m[1]) {
			continue // a pointer's truth is a NULL test, not a flag
		}
		extra, ok := flagStoreGuards(f.F.Body, m[1], s.Line())
		if !ok {
			continue
		}
		for _, e := range extra {
			if !containsGuard(gs[:i], e) {
				out = append(out, e)
				if flags == nil {
					flags = map[int]string{}
				}
				flags[e.Line] = m[1]
			}
		}
	}
	return out, flags
}

// declaresLocal reports whether f's body declares variable name.
func declaresLocal(f *wfunc, name string) bool {
	ls := map[string]bool{}
	ctype.DeclNames(codeLines(f, f.F.BodyStart, 0), ls)
	return ls[name]
}

// declaresPointer reports whether f's body declares name as a pointer
// ("struct tty_struct *tty;", "void *p = ...", "u8 *const buf;", a
// function pointer "void (*cb)(void *)"): a type, stars and qualifiers,
// the name, at the start of a statement.
func declaresPointer(f *wfunc, name string) bool {
	q := regexp.QuoteMeta(name)
	re := regexp.MustCompile(`(?m)(?:^|[;{])\s*(?:(?:const|volatile|static|unsigned|signed|struct|union|enum)\s+)*[A-Za-z_]\w*\s*(?:\*\s*(?:const\s+|volatile\s+|__\w+\s+)*)+` +
		q + `\s*[=;,\[]|\(\s*\*\s*` + q + `\s*\)\s*\(`)
	return re.MatchString(codeLines(f, f.F.BodyStart, 0))
}

// flagStoreGuards returns the guards of the one statement before line
// that stores a value other than false or 0 in flag, and the value as an
// "if" guard when it is not true or 1; ok is false when there is no such
// store, or several, or when flag is written any other way (initialised
// to another value, a compound assignment, its address taken).
func flagStoreGuards(body *cscan.Block, flag string, line int) ([]cscan.Guard, bool) {
	q := regexp.QuoteMeta(flag)
	storeRe := regexp.MustCompile(`^\s*` + q + `\s*=\s*([^=].*?)\s*;?\s*$`)
	// Any other write: an initializer or chained store (read below),
	// a compound assignment, an increment, the address taken.
	otherRe := regexp.MustCompile(`\b` + q + `\s*=\s*([^=,;]+)|\b` + q + `\s*(?:[-+*/%&|^]|<<|>>)=|\b` + q + `\s*(?:\+\+|--)|(?:\+\+|--)\s*` + q + `\b|(?:^|[(,=]|\breturn)\s*&\s*` + q + `\b`)
	var at *cscan.ExprStmt
	var val string
	n, other := 0, false
	cscan.Inspect(body, func(s cscan.Stmt) {
		e, ok := s.(*cscan.ExprStmt)
		if !ok || e.Line >= line {
			return
		}
		if m := storeRe.FindStringSubmatch(e.Text); m != nil {
			if v := cscan.StripParens(m[1]); v != "false" && v != "0" {
				n++
				at, val = e, v
			}
			return
		}
		for _, m := range otherRe.FindAllStringSubmatch(e.Text, -1) {
			if v := strings.TrimSpace(m[1]); m[1] == "" || v != "false" && v != "0" {
				other = true
			}
		}
	})
	if n != 1 || other {
		return nil, false
	}
	gs := guardsOfStmt(body, func(s cscan.Stmt) bool { return s == at })
	if val != "true" && val != "1" {
		gs = append(gs[:len(gs):len(gs)], cscan.Guard{Kind: "if", Cond: val, Line: at.Line})
	}
	return gs, true
}

// containsGuard reports whether gs holds a guard of the same kind and
// line as g.
func containsGuard(gs []cscan.Guard, g cscan.Guard) bool {
	for _, o := range gs {
		if o.Kind == g.Kind && o.Line == g.Line {
			return true
		}
	}
	return false
}

// guardsOfStmt returns the guards of the first statement of body that
// match accepts: the if, else, loop and switch statements around it,
// outermost first, as the scanner gives a call's (cscan.Call.Guards).
func guardsOfStmt(body cscan.Stmt, match func(cscan.Stmt) bool) []cscan.Guard {
	var out []cscan.Guard
	var walk func(s cscan.Stmt, gs []cscan.Guard) bool
	walk = func(s cscan.Stmt, gs []cscan.Guard) bool {
		if s == nil {
			return false
		}
		if match(s) {
			out = gs
			return true
		}
		switch v := s.(type) {
		case *cscan.Block:
			if v == nil {
				return false
			}
			for _, c := range v.Stmts {
				if walk(c, gs) {
					return true
				}
			}
		case *cscan.IfStmt:
			if walk(v.Then, append(gs[:len(gs):len(gs)], cscan.Guard{Kind: "if", Cond: v.Cond, Line: v.Line})) {
				return true
			}
			return walk(v.Else, append(gs[:len(gs):len(gs)], cscan.Guard{Kind: "else", Cond: v.Cond, Line: v.ElseLine}))
		case *cscan.LoopStmt:
			return walk(v.Body, append(gs[:len(gs):len(gs)], cscan.Guard{Kind: "loop", Cond: v.Cond, Line: v.Line}))
		case *cscan.SwitchStmt:
			return walk(v.Body, append(gs[:len(gs):len(gs)], cscan.Guard{Kind: "case", Cond: v.Cond, Line: v.Line}))
		case *cscan.ScopedGuardStmt:
			return walk(v.Body, gs)
		}
		return false
	}
	walk(body, nil)
	return out
}
