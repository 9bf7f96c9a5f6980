package wakeup

import (
	"fmt"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A wake-up owed by a branch. When every way out of a branch of the old
// function woke a queue (each return after a wake-up, each goto to a tail
// that wakes it: bcm2835_i2c_isr()'s DONE branch always ended in "goto
// complete"), the branch is a path that must wake: a waiter of the queue
// (wait_for_completion_timeout() in the transfer) sleeps until it does.
// A new exit the patch puts in the same branch (the same condition) that
// stores, on its way, a member of the woken object that a waiter reads
// once woken (the result: msg_err = 0) and returns without waking the
// queue loses that wake-up on every run of that path. An exit that stores
// nothing the waiters read there (a spurious interrupt turned away, the
// next message of a transfer started), or that hands the work to the
// interrupt's thread (IRQ_WAKE_THREAD), is not judged here.

// checkBranchLost reports the new exits of nw that leave, without waking
// a queue, a branch whose every exit in old woke it.
func (r *checker) checkBranchLost(old, nw *wfunc) {
	if old == nil || nw == nil || old.F == nil || nw.F == nil || old.F.Body == nil {
		return
	}
	norm := r.condNormalizer()
	var queues []string
	for _, o := range old.sitesOn(siteWake, "") {
		if !slices.Contains(queues, o.Q) {
			queues = append(queues, o.Q)
		}
	}
	slices.Sort(queues)
	fl := flowOf(nw)
	for _, q := range queues {
		if r.riskOn(nw, q) {
			continue
		}
		obj := wokenObject(old, q)
		waiters := r.otherWaiters(q, nw.Name)
		for _, ret := range nw.F.Returns {
			if !nw.changed(ret.Line) || strings.TrimSpace(ret.Expr) == "IRQ_WAKE_THREAD" || r.wokenBy(nw, q, ret) {
				continue
			}
			g, ok := innermostIf(ret.Guards)
			if !ok {
				continue
			}
			branch := ifWithCond(old.F.Body, norm(g.Cond), norm)
			if branch == nil || !storesWaitedFor(nw, fl, g.Line, ret.Line, obj, waiters) || !r.branchWakes(old, q, branch) {
				continue
			}
			r.reportBranchLost(old, nw, q, ret, g, waiters)
			return
		}
	}
}

// riskOn reports whether a risk on queue q in function f was reported
// already (the new early return before the wake-up, judged by
// condwake_guards.go).
func (r *checker) riskOn(f *wfunc, q string) bool {
	for _, x := range r.pass.Findings() {
		if x.Severity == report.SeverityRisk && x.File == f.File && x.Func == f.Name && x.Key == q {
			return true
		}
	}
	return false
}

// wokenBy reports whether exit ret of f wakes queue q on its way: a
// wake-up before it on its path, or one made by the return itself
// ("return bcm2835_i2c_complete(i2c_dev, err);").
func (r *checker) wokenBy(f *wfunc, q string, ret cscan.Return) bool {
	for _, s := range f.sitesOn(siteWake, "") {
		if s.Line() == ret.Line && r.sameQueue(s.Q, q) {
			return true
		}
	}
	return r.wokenBeforeExit(f, q, ret.Line, ret.Guards)
}

// wokenObject returns the object whose queue q f wakes ("i2c_dev" of
// complete(&i2c_dev->completion)), "" when no wake-up of q names one.
func wokenObject(f *wfunc, q string) string {
	for _, o := range f.sitesOn(siteWake, q) {
		if obj := wakeObject(o.Arg); obj != "" {
			return obj
		}
	}
	return ""
}

// storesWaitedFor reports whether a line of f after from and before to,
// from which control reaches to, stores a member of obj that one of
// waiters reads once woken (readAfterWait).
func storesWaitedFor(f *wfunc, fl bodyFlow, from, to int, obj string, waiters []*wsite) bool {
	if obj == "" || len(waiters) == 0 {
		return false
	}
	res := memberStoreRes(obj)
	for l := from + 1; l < to; l++ {
		t, ok := f.lines[l]
		if !ok || !fl.reaches(l, to) {
			continue
		}
		m := storedMember(codeOnly(t), res)
		if m == "" {
			continue
		}
		for _, s := range waiters {
			if readAfterWait(s, m) != 0 {
				return true
			}
		}
	}
	return false
}

// innermostIf returns the innermost "if" guard of gs (the then branch an
// exit sits in).
func innermostIf(gs []cscan.Guard) (cscan.Guard, bool) {
	for i := len(gs) - 1; i >= 0; i-- {
		switch gs[i].Kind {
		case "if":
			return gs[i], true
		case "else", "loop", "switch", "case":
			return cscan.Guard{}, false
		}
	}
	return cscan.Guard{}, false
}

// ifWithCond returns the if statement of body whose condition normalises
// to cond, when exactly one has it.
func ifWithCond(body *cscan.Block, cond string, norm func(string) string) *cscan.IfStmt {
	var found *cscan.IfStmt
	n := 0
	cscan.Inspect(body, func(s cscan.Stmt) {
		if i, ok := s.(*cscan.IfStmt); ok && norm(i.Cond) == cond {
			found = i
			n++
		}
	})
	if n != 1 {
		return nil
	}
	return found
}

// branchWakes reports whether every way out of the then branch of if
// statement b in f wakes queue q: the branch ends in a return or a goto,
// each of its returns is woken (wokenBy) and each of its gotos jumps to a
// label whose tail wakes q before it returns.
func (r *checker) branchWakes(f *wfunc, q string, b *cscan.IfStmt) bool {
	then, ok := b.Then.(*cscan.Block)
	if !ok {
		// An unbraced branch: "if (val & DONE) goto complete;".
		then = &cscan.Block{Stmts: []cscan.Stmt{b.Then}}
	}
	if then == nil || len(then.Stmts) == 0 {
		return false
	}
	switch then.Stmts[len(then.Stmts)-1].(type) {
	case *cscan.ReturnStmt, *cscan.GotoStmt:
	default:
		return false
	}
	fl := flowOf(f)
	exits := 0
	woken := true
	cscan.Inspect(then, func(s cscan.Stmt) {
		switch v := s.(type) {
		case *cscan.ReturnStmt:
			exits++
			for _, ret := range f.F.Returns {
				if ret.Line == v.Line && !r.wokenBy(f, q, ret) {
					woken = false
				}
			}
		case *cscan.GotoStmt:
			exits++
			if !r.tailWakes(f, fl, q, v.Label) {
				woken = false
			}
		}
	})
	return exits > 0 && woken
}

// tailWakes reports whether the code after label in f wakes queue q
// before its first return.
func (r *checker) tailWakes(f *wfunc, fl bodyFlow, q string, label string) bool {
	at, ok := fl.labels[label]
	if !ok {
		return false
	}
	end := 0
	for _, ret := range f.F.Returns {
		if ret.Line > at && (end == 0 || ret.Line < end) {
			end = ret.Line
		}
	}
	for _, s := range f.sitesOn(siteWake, "") {
		if s.Line() > at && (end == 0 || s.Line() <= end) && r.sameQueue(s.Q, q) && fl.reaches(at, s.Line()) {
			return true
		}
	}
	return false
}

// reportBranchLost reports exit ret of nw, which leaves the branch under
// guard g without the wake-up of q that every exit of it made in old, to
// q's waiters.
func (r *checker) reportBranchLost(old, nw *wfunc, q string, ret cscan.Return, g cscan.Guard, waiters []*wsite) {
	cond := strings.Join(strings.Fields(g.Cond), " ")
	f := report.Finding{
		Category: CategoryRemoved,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: ret.Line, Key: q,
		Message:  fmt.Sprintf("new exit in %s() leaves the `%s` branch without the wake-up of %s that every exit of it made", nw.Name, cond, q),
		Evidence: []string{nw.evidence(g.Line), nw.evidence(ret.Line)},
	}
	for _, o := range old.sitesOn(siteWake, q) {
		f.Old = append(f.Old, old.evidence(o.Line()))
		break
	}
	peer, peerText := "a waiter of "+q, "waits on "+q
	if len(waiters) > 0 {
		s := preferSleeper(waiters)
		peer, peerText = s.Fn.Name+"()", s.Text()
		f.Chain = append(f.Chain, step(s, "waits: "+s.Text()))
	}
	f.Chain = append(f.Chain, report.Step{Func: nw.Name, File: nw.File, Line: ret.Line, What: "returns without waking " + q + ": " + strings.TrimSpace(nw.text(ret.Line))})
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", peer, [][2]string{
		{"", peerText},
		{"if (" + cond + ")", ""},
		{strings.TrimSpace(nw.text(ret.Line)), ""},
		{"  (no wake-up of " + q + ")", "sleeps on, nobody wakes it"},
	})...)
	f.Explanation = fmt.Sprintf("In the old %s() every way out of the `%s` branch woke %s. The patch adds an exit to that branch that returns without the wake-up, so each time the branch takes it the waiters of %s are not woken (a completion waiter times out; a wait_event() sleeps until another event). Wake the queue on this exit too.",
		old.Name, cond, q, q)
	r.add(f)
}
