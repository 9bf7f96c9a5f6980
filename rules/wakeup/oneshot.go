package wakeup

import (
	"fmt"

	"github.com/autosel-bot/autosel-bot/report"
)

// A completion used as a one-shot state ("firmware loaded", "device
// gone"): it is completed once and never re-armed, and more than one
// function waits for it (suspend and disconnect, each on its own path).
// complete_all() leaves it done for every wait, past and future;
// complete() hands out a single wake-up, so the first wait consumes it
// and every later wait blocks for good. A completion re-armed with
// reinit_completion() by the functions that use it is a request/response
// round instead, where one complete() per wait is the protocol.

// oneShotWaiters returns the waits on completion q in functions other
// than the waker's, when they are in at least two functions and no
// function that uses q re-arms it; nil otherwise.
func (r *checker) oneShotWaiters(n *wsite) []*wsite {
	waiters := r.otherWaiters(n.Q, n.Fn.Name)
	fns := map[string]bool{}
	for _, w := range waiters {
		fns[w.Fn.Name] = true
	}
	if len(fns) < 2 {
		return nil
	}
	users := map[*wfunc]bool{n.Fn: true}
	for _, w := range waiters {
		users[w.Fn] = true
	}
	for _, w := range r.wakersOf(n.Q) {
		users[w.Fn] = true
	}
	for f := range users {
		for _, re := range r.rearmsOf(f) {
			if re.call.Name != "init_completion" && r.sameQueue(re.q, n.Q) {
				return nil
			}
		}
	}
	return waiters
}

// riskOneShot makes the narrowed completion finding f a risk when its
// completion is a one-shot state several functions wait for.
func (r *checker) riskOneShot(f *report.Finding, o, n *wsite) {
	waiters := r.oneShotWaiters(n)
	if waiters == nil {
		return
	}
	f.Severity = report.SeverityRisk
	for _, w := range waiters {
		f.Chain = append(f.Chain, step(w, "waits for it: "+w.Text()))
	}
	f.Chain = append(f.Chain, step(n, "completes it once, for one waiter: "+n.Text()))
	a, b := waiters[0], waiters[len(waiters)-1]
	for _, w := range waiters {
		if w.Fn.Name != a.Fn.Name {
			b = w
		}
	}
	f.Evidence = append(f.Evidence, interleaving(n.Fn.Name+"()", a.Fn.Name+"() / "+b.Fn.Name+"()", [][2]string{
		{n.Text(), ""},
		{"", a.Text() + ": consumes the one completion"},
		{"", "later: " + b.Text()},
		{"", "  nothing completes it again: blocks for good"},
	})...)
	f.Explanation = fmt.Sprintf("%s is completed once and never re-armed (no reinit_completion() in the functions that use it), and %d waits in different functions wait for it (%s(), %s(), ...). %s left it done for all of them; %s wakes one wait, and the next wait blocks for good. Keep %s for a state that stays true.",
		n.Q, len(waiters), a.Fn.Name, b.Fn.Name, o.Call.Name, n.Call.Name, o.Call.Name)
}
