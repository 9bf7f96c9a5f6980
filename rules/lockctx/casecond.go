package lockctx

import (
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A chain taken under one case of a switch on a parameter
// ("switch (type) { case RTM_NEWNEIGH: call_..._blocking_notifiers(); }")
// is taken only for callers passing that constant: the chain's ParamCond
// carries the label (Value), a caller passing another constant does not
// reach it, one passing its own parameter hands the condition on, and one
// passing anything else may (unless the condition is Strict). A case the
// code above it falls into, a default: label and a label that is not a
// plain constant name or number give no condition.

// caseLabelRe is a case label the condition can compare: a constant's
// name or a number.
var caseLabelRe = regexp.MustCompile(`^(?:[A-Za-z_]\w*|-?(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*)$`)

// caseCond returns the condition the innermost guard of gs, a case label,
// puts on fn's parameter that its switch tests, or nil.
func (r *Resolver) caseCond(fn *cscan.Func, gs []cscan.Guard) *ParamCond {
	n := len(gs)
	if n < 2 || gs[n-1].Kind != "case" || gs[n-2].Kind != "switch" {
		return nil
	}
	label := strings.TrimSpace(gs[n-1].Cond)
	if label == "default" || !caseLabelRe.MatchString(label) {
		return nil
	}
	j := r.typ.ParamIndex(fn, strings.TrimSpace(unwrap(gs[n-2].Cond)))
	if j < 0 || !r.flagParam(fn, j) || !caseEntered(fn, gs[n-1].Line) {
		return nil
	}
	return &ParamCond{Param: j, Value: label}
}

// caseEntered reports whether the case label at line of fn is entered
// only by its own value: it is the first statement of its switch's body,
// or what comes before it leaves the switch (break, return, goto,
// continue) rather than falling into it.
func caseEntered(fn *cscan.Func, line int) bool {
	if fn.Body == nil {
		return false
	}
	ok := false
	cscan.Inspect(fn.Body, func(s cscan.Stmt) {
		sw, isSwitch := s.(*cscan.SwitchStmt)
		if !isSwitch {
			return
		}
		b, isBlock := sw.Body.(*cscan.Block)
		if !isBlock || b == nil {
			return
		}
		for i, st := range b.Stmts {
			if c, isCase := st.(*cscan.CaseStmt); isCase && c.Line == line {
				if i == 0 {
					ok = true
					return
				}
				switch b.Stmts[i-1].(type) {
				case *cscan.BreakStmt, *cscan.ReturnStmt, *cscan.GotoStmt, *cscan.ContinueStmt:
					ok = true
				}
			}
		}
	})
	return ok
}

// caseValueAt is condAt for a case condition rc: a constant argument
// decides, the caller's own parameter hands the condition on, anything
// else may take the chain unless rc is Strict.
func (r *Resolver) caseValueAt(fn *cscan.Func, arg string, rc *ParamCond) (bool, *ParamCond) {
	a := strings.TrimSpace(unwrap(arg))
	if j := r.typ.ParamIndex(fn, a); j >= 0 {
		return true, &ParamCond{Param: j, Value: rc.Value, Strict: rc.Strict}
	}
	if caseLabelRe.MatchString(a) && (isUpperName(a) || a[0] == '-' || a[0] >= '0' && a[0] <= '9') {
		return a == rc.Value, nil
	}
	return !rc.Strict, nil
}
