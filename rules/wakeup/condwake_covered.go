package wakeup

import (
	"regexp"
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
// of gates holds: a condition of an if whose then branch holds the store
// implies each gate's.
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

// branchConds returns the conditions of the ifs of f whose then branch
// holds line.
func branchConds(f *wfunc, line int) []string {
	if f.F == nil || f.F.Body == nil {
		return nil
	}
	var out []string
	cscan.Inspect(f.F.Body, func(s cscan.Stmt) {
		if is, ok := s.(*cscan.IfStmt); ok && is.Line < line && holdsLine(is.Then, line) {
			out = append(out, is.Cond)
		}
	})
	return out
}

// holdsLine reports whether statement s spans line: a block from its
// opening to its closing brace, another statement on its own line.
func holdsLine(s cscan.Stmt, line int) bool {
	if b, ok := s.(*cscan.Block); ok {
		return b.Line <= line && (b.EndLine == 0 || line <= b.EndLine)
	}
	return s != nil && cscan.StmtLine(s) == line
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

// normCond is a condition with its spacing normalised and its outer
// parentheses dropped.
func normCond(c string) string {
	return cscan.StripParens(strings.Join(strings.Fields(c), " "))
}

// staleGate returns the line where a local that guards test is set from
// the waited-for state (cond's) before f takes a lock it holds at the
// store at line store, 0 if none: "was_empty = list_empty(&c->list);
// spin_lock(&c->lock); list_add(...); spin_unlock(); if (was_empty)
// wake_up()" samples the state outside the lock that orders the store
// against the waiters, and the sample can be stale by the time of the
// store.
func (r *checker) staleGate(f *wfunc, guards []cscan.Guard, cond map[string]bool, store int) int {
	atStore := r.locksAt(f, store)
	if len(atStore) == 0 {
		return 0
	}
	for _, g := range guards {
		for _, m := range guardIdentRe.FindAllStringSubmatch(g.Cond, -1) {
			set := regexp.MustCompile(`(?:^|[^\w>.])` + regexp.QuoteMeta(m[1]) + `\s*=[^=]`)
			for _, l := range sortedLines(f) {
				t := codeOnly(f.lines[l])
				if l >= store || !set.MatchString(t) || !sharesState(stateTokens(t), cond) {
					continue
				}
				held := r.locksAt(f, l)
				for _, h := range atStore {
					if h.must && !heldAt(held, h.key) {
						return l
					}
				}
			}
		}
	}
	return 0
}
