package wakeup

import (
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A store whose own branch condition implies a wake-up's new gate is
// always followed by the wake-up: "if (status & DDSR) icount.dsr++; ...
// if (status & (TERI | DDSR | DDCD | DCTS)) wake_up(...)" gates the
// wake-up on exactly the events that make the stores.

// maskTestRe reads a bit test "x & K" or "x & (K1 | K2 | ...)".
var maskTestRe = regexp.MustCompile(`^([A-Za-z_][\w]*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)\s*&\s*\(?\s*([A-Z][A-Z0-9_]*(?:\s*\|\s*[A-Z][A-Z0-9_]*)*)\s*\)?$`)

// gatesCover reports whether the store at line of f runs only when each
// of gates holds: a condition the store runs under (branchConds: an if's
// for its then branch, negated for its else branch) implies each gate's.
func gatesCover(f *wfunc, line int, gates []cscan.Guard) bool {
	conds := branchConds(f, line)
	if len(conds) == 0 {
		return false
	}
	for _, g := range gates {
		if g.Kind != "if" {
			return false
		}
		covered := false
		for _, c := range conds {
			if condImpliesGate(c, g.Cond) {
				covered = true
				break
			}
		}
		if !covered {
			return false
		}
	}
	return true
}

// branchConds returns the conditions under which f runs line: of each if
// whose then branch holds it, the condition, and whose else branch holds
// it, its negation.
func branchConds(f *wfunc, line int) []string {
	if f.F == nil || f.F.Body == nil {
		return nil
	}
	var out []string
	cscan.Inspect(f.F.Body, func(s cscan.Stmt) {
		is, ok := s.(*cscan.IfStmt)
		if !ok || is.Line > line {
			return
		}
		switch {
		case holdsLine(is.Then, line):
			out = append(out, is.Cond)
		case is.Else != nil && holdsLine(is.Else, line):
			out = append(out, negate(is.Cond))
		}
	})
	return out
}

// holdsLine reports whether statement s spans line, from its first line
// to its last (stmtEnd).
func holdsLine(s cscan.Stmt, line int) bool {
	return s != nil && cscan.StmtLine(s) <= line && line <= stmtEnd(s)
}

// condImpliesGate reports whether branch condition c implies gate: the
// same test, one of the gate's "||" terms, or a bit test of the same word
// for a subset of the bits the gate tests.
func condImpliesGate(c, gate string) bool {
	c, gate = normCond(c), normCond(gate)
	if c == gate {
		return true
	}
	for _, t := range splitTop(gate, "||") {
		if normCond(t) == c {
			return true
		}
	}
	cm, gm := maskTestRe.FindStringSubmatch(c), maskTestRe.FindStringSubmatch(gate)
	if cm == nil || gm == nil || normLvalue(cm[1]) != normLvalue(gm[1]) {
		return false
	}
	bits := map[string]bool{}
	for _, b := range strings.Split(gm[2], "|") {
		bits[strings.TrimSpace(b)] = true
	}
	for _, b := range strings.Split(cm[2], "|") {
		if !bits[strings.TrimSpace(b)] {
			return false
		}
	}
	return true
}

// normCond is a condition with its spacing normalised, its outer
// parentheses dropped and a negated term's parentheses too.
func normCond(c string) string {
	c = cscan.StripParens(strings.Join(strings.Fields(c), " "))
	if m := negatedTermRe.FindStringSubmatch(c); m != nil {
		return "!" + m[1] // "!(err)" is "!err"
	}
	return c
}

// negatedTermRe matches the negation of one parenthesised variable or
// member path.
var negatedTermRe = regexp.MustCompile(`^!\(\s*([A-Za-z_][\w]*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)\s*\)$`)

// staleGate returns the line where a variable that guards test by value
// was last set, on the way to the gate, from the waited-for state (cond's)
// with none of the locks f holds at the store at line store, 0 if none:
// "was_empty = list_empty(&c->list); spin_lock(&c->lock); list_add(...);
// spin_unlock(); if (was_empty) wake_up()" samples the state outside the
// lock that orders the store against the waiters, and the sample can be
// stale by the time of the store. A sample under one of those locks (an
// outer mutex held across the store) and a pointer fetched to reach the
// object ("q = dev->rxq") are taken as no such sample.
func (r *checker) staleGate(f *wfunc, guards []cscan.Guard, cond map[string]bool, store int) int {
	atStore := r.locksAt(f, store)
	if !slices.ContainsFunc(atStore, func(h heldLock) bool { return h.must }) {
		return 0
	}
	fl := flowOf(f)
	lines := sortedLines(f)
	for _, g := range guards {
		for _, id := range valueIdents(g.Cond) {
			last, rhs := 0, ""
			for _, l := range lines {
				if l >= g.Line {
					break
				}
				if m := declAssignRe.FindStringSubmatch(codeOnly(f.lines[l])); m != nil && declaredName(m[1]) == id && fl.reaches(l, g.Line) {
					last, rhs = l, m[2]
				}
			}
			if last == 0 || last >= store || reachesOnly(rhs) || !sharesState(stateTokens(rhs), cond) {
				continue
			}
			held := r.locksAt(f, last)
			if !slices.ContainsFunc(atStore, func(h heldLock) bool { return heldAt(held, h.key) }) {
				return last
			}
		}
	}
	return 0
}

// declAssignRe reads a statement assigning a plain variable, declared
// there or not ("bool was_empty = list_empty(&c->list);").
var declAssignRe = regexp.MustCompile(`^\s*((?:[A-Za-z_]\w*\s+\**\s*)*[A-Za-z_]\w*)\s*=\s*([^=].*?);?\s*$`)

// reachesOnly reports whether expression e only reaches an object: a
// variable, a member path or the address of one ("dev->rxq",
// "&port->state").
func reachesOnly(e string) bool {
	e = stripAddr(strings.TrimSpace(e))
	return identRe.MatchString(e) || memberRe.MatchString(e)
}

// valueIdents returns the plain identifiers cond tests as values: not
// members ("->x", ".x"), not pointers it goes through ("q->", "q["), not
// calls.
func valueIdents(cond string) []string {
	var out []string
	for _, m := range guardIdentRe.FindAllStringSubmatchIndex(cond, -1) {
		before, after := strings.TrimRight(cond[:m[2]], " \t"), strings.TrimLeft(cond[m[3]:], " \t")
		if strings.HasSuffix(before, "->") || strings.HasSuffix(before, ".") ||
			strings.HasPrefix(after, "->") || strings.HasPrefix(after, ".") || strings.HasPrefix(after, "[") || strings.HasPrefix(after, "(") {
			continue
		}
		out = append(out, cond[m[2]:m[3]])
	}
	return out
}

// declaredName returns the variable a declaration's left side names
// ("bool was_empty" -> "was_empty", "x" -> "x").
func declaredName(lhs string) string {
	f := strings.Fields(strings.ReplaceAll(lhs, "*", " "))
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}
