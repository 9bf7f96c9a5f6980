package wakeup

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A wake-up moved into a branch. The wake-up kept its own test of the
// event (every guard it had is still around it) and is now also inside a
// branch that was already there: when the event happens on the path that
// does not take the branch, nobody signals it. For a completion, whose
// waiter re-checks nothing and waits for the signal itself, that is a
// lost wake-up unless another signal of the same completion runs on that
// path. Open-coded waiters with a condition are decided from the stores
// and the condition (decideConditional).

// decideMovedEvent raises f, the note on wake-up n moved under gates, to
// a risk when n's waiters wait for a completion and no other signal of
// it in nw runs where the gates are false.
func (r *checker) decideMovedEvent(f *report.Finding, nw *wfunc, n *wsite, gates []cscan.Guard) {
	if f.Severity == report.SeverityRisk || len(gates) == 0 {
		return
	}
	var w *wsite
	for _, x := range r.otherWaiters(n.Q, nw.Name) {
		if x.WKind == "completion" {
			w = x
			break
		}
	}
	if w == nil {
		return
	}
	for _, s := range nw.sitesOn(siteWake, n.Q) {
		if s == n {
			continue
		}
		inside := false
		for _, g := range s.Call.Guards {
			for _, gg := range gates {
				if g.Line == gg.Line && g.Kind == gg.Kind {
					inside = true
				}
			}
		}
		if !inside {
			return // another signal covers the other side of the branch
		}
	}
	gate := strings.Join(strings.Fields(gates[0].Cond), " ")
	if gates[0].Kind == "else" {
		gate = "the else branch"
	}
	r.riskGated(f, w, nw, n, gates[0].Line, "signal moved into: if ("+gate+")", "the moved signal: ", [][2]string{
		{"", w.Text()},
		{"", "  waits for the signal"},
		{"the event happens (its own test still holds)", ""},
		{"if (" + gate + ") is false", ""},
		{"  (skips " + n.Text() + ")", "waits on: nobody signals it"},
	})
	f.Explanation = fmt.Sprintf("%s() moved %s into a branch (if (%s)) that was already there, keeping the test of the event it signals. "+
		"%s waits for that signal and re-checks nothing else, so when the event happens on the path that does not take the branch "+
		"the waiter is never woken (until its timeout, if any). Signal on every path where the event can happen.",
		nw.Name, n.Text(), gate, siteWhere(w))
}
