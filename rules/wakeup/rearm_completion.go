package wakeup

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// This file decides re-arming: a waiter that reuses its completion (or a
// flag it sleeps on) must re-arm it before the operation that ends in the
// complete() (or the flag's store and wake-up) can run, and where the
// waker cannot slip in between:
//   - a reinit_completion() moved past a call that can start that
//     operation erases a complete() that comes in the window, and the
//     wait then times out or hangs;
//   - a reinit_completion() removed while the function still waits on the
//     completion leaves it done from an earlier round (a late interrupt,
//     a timed-out command), and the wait returns at once;
//   - a flag reset moved out of the critical section that decided to
//     sleep can overwrite the waker's store made in between (the waker
//     takes the same lock), and the waiter sleeps with its event already
//     delivered;
//   - a flag the wait condition reads, reset past the call that starts
//     the operation or no longer reset, is the completion's case written
//     with a flag (rearm_reset.go).

// rearmSite is one re-arm in a function: a completion's
// (reinit_completion), or the reset of a flag a later wait tests
// (rearm_reset.go).
type rearmSite struct {
	call cscan.Call // the re-arming call; for a reset, Line only
	q    string
	// text is the re-arm as written; field, for a reset, the member it
	// resets (what the waker must store before it wakes), bit the bit of
	// that word when it is one.
	text, field, bit string
	// later is, for a reset that re-arms a wait made outside the
	// function (rearm_later.go), a waiter of that wait.
	later *wsite
}

// rearmsOf returns f's completion re-arms, keyed like its waits.
func (r *checker) rearmsOf(f *wfunc) []rearmSite {
	if f == nil || f.F == nil {
		return nil
	}
	var out []rearmSite
	for _, c := range f.F.Calls {
		row := r.p.rearms[c.Name]
		if row == nil || row.Queue >= len(c.Args) {
			if q := r.helperRearm(c, f); q != "" {
				out = append(out, rearmSite{call: c, q: r.canonKey("completion:"+q, f.File), text: lockctx.CallText(c)})
			}
			continue
		}
		if q := queueKey(c.Args[row.Queue], f.vt, f.Name); q != "" {
			out = append(out, rearmSite{call: c, q: r.canonKey("completion:"+q, f.File), text: lockctx.CallText(c)})
		}
	}
	return out
}

// helperRearm returns the key of the completion that call c of f re-arms
// through a small helper (i2c_amd_start_cmd(dev), whose body does
// reinit_completion(&dev->cmd_complete)): the helper's re-arm of a
// completion reached from one of its parameters, with the caller's
// argument put in for it; "" if none.
func (r *checker) helperRearm(c cscan.Call, f *wfunc) string {
	if len(c.Args) == 0 {
		return ""
	}
	for _, h := range r.smallHelpers(c, f.File) {
		params := paramNames(h.header(), h.Name)
		for _, hc := range h.F.Calls {
			row := r.p.rearms[hc.Name]
			if row == nil || row.Queue >= len(hc.Args) {
				continue
			}
			arg := strings.TrimSpace(hc.Args[row.Queue])
			for i, p := range params {
				if p == "" || i >= len(c.Args) || !strings.Contains(arg, p) {
					continue
				}
				re := regexp.MustCompile(`\b` + regexp.QuoteMeta(p) + `\b`)
				if !re.MatchString(arg) {
					continue
				}
				a := strings.TrimSpace(c.Args[i])
				if !identRe.MatchString(a) {
					a = "(" + a + ")"
				}
				return queueKey(re.ReplaceAllLiteralString(arg, a), f.vt, f.Name)
			}
		}
	}
	return ""
}

// checkRearm runs the re-arm checks over every function the patch
// changes.
func (r *checker) checkRearm() {
	for i, nw := range r.news {
		ow := r.olds[i]
		if ow == nil || nw == nil || ow.F == nil || nw.F == nil {
			continue
		}
		r.checkCompletionRearm(ow, nw)
		r.checkResetRearm(ow, nw)
		r.checkFlagRearm(ow, nw)
	}
}

// checkCompletionRearm compares the re-arms of each completion before and
// after the patch.
func (r *checker) checkCompletionRearm(ow, nw *wfunc) {
	news := r.rearmsOf(nw)
	for _, o := range r.rearmsOf(ow) {
		var n *rearmSite
		for i := range news {
			if r.sameQueue(news[i].q, o.q) {
				n = &news[i]
				break
			}
		}
		switch {
		case n != nil:
			if r.rearmReinitialised(ow, nw, o, *n) || r.rearmUnlocked(ow, nw, o, *n) || r.rearmAfterWait(ow, nw, o, *n) {
				continue
			}
			r.rearmMovedLater(ow, nw, o, *n)
		case !r.rearmedElsewhere(nw, o.q):
			r.rearmDropped(ow, nw, o)
		}
	}
}

// inert reports whether a call cannot start what a waiter waits for: a
// wait-queue or lock primitive, logging, tracing, an assertion.
func (r *checker) inert(c cscan.Call) bool {
	return r.inertName(c.Name)
}

// inertName is inert for a call of name.
func (r *checker) inertName(name string) bool {
	if r.p.isPrimitive(name) || r.p.locks.Primitive(name) || r.p.rearms[name] != nil ||
		r.p.barriers[name] || r.p.ordering(name) != "" {
		return true
	}
	for _, re := range r.p.rearmInert {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// startsNothing reports whether call c of f cannot start the operation a
// re-arm must come before: it is inert, or it calls a function of the
// tree (or a function-like macro of f's file) that makes only inert
// calls, to two levels down (a driver's own helper that maps a buffer for
// DMA and logs a failure). A call through a pointer may start anything.
func (r *checker) startsNothing(f *wfunc, c cscan.Call) bool {
	return r.startsNothingTo(c.Name, f.File, 2)
}

// startsNothingTo is startsNothing for a call of name made in file,
// following functions of the tree depth levels down.
func (r *checker) startsNothingTo(name, file string, depth int) bool {
	if depth < 2 && r.p.waker(name) != nil {
		// Inside a helper a wake-up is how work is handed on: a worker
		// woken there runs the operation (store the command, wake it).
		return false
	}
	if r.inertName(name) {
		return true
	}
	if depth == 0 || r.pass.Index == nil || !cscan.IsIdent(name) {
		return false
	}
	key := fmt.Sprintf("%s/%s/%d", name, file, depth)
	if v, ok := r.inertMemo[key]; ok {
		return v
	}
	if r.inertMemo == nil {
		r.inertMemo = map[string]bool{}
	}
	// depth, not the memo, ends the walk down a recursive helper.
	ok := true
	if defs := r.pass.Index.Funcs(name); len(defs) > 0 {
		for _, fn := range defs {
			full := r.pass.Index.Full(fn)
			ok = ok && full != nil && !slices.ContainsFunc(full.Calls, func(c cscan.Call) bool {
				return !r.startsNothingTo(c.Name, fn.File, depth-1)
			})
		}
	} else {
		body, found := r.fileMacro(name, file)
		ok = found
		for c := range helperCalls(body) {
			ok = ok && r.startsNothingTo(c, file, depth-1)
		}
	}
	r.inertMemo[key] = ok
	return ok
}

// fileMacro returns the body of the function-like macro name that file
// defines, continuation lines joined.
func (r *checker) fileMacro(name, file string) (string, bool) {
	text, err := r.pass.Index.Text(file)
	if err != nil {
		return "", false
	}
	re := regexp.MustCompile(`(?m)^[ \t]*#[ \t]*define[ \t]+` + regexp.QuoteMeta(name) + `\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)`)
	m := re.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	return m[2], true
}

// waitOn is a wait on a completion reached from a function: directly, or
// inside a callee.
type waitOn struct {
	line int    // the line in the function (the wait, or the call of the callee)
	site *wsite // the wait itself
	via  string // the callee, "" for a direct wait
	// caller is the function that waits after the function returns
	// (waitAfterReturn), "" when the function itself waits; callerFile
	// and callerLine locate its wait or its call of the callee that waits.
	caller, callerFile string
	callerLine         int
	// later: the wait is made by a later call (rearm_later.go), not
	// after the function returns.
	later bool
}

// waitAfter returns the first wait on q in f after line: a wait site, or
// a call of a tree function that waits on q without re-arming it first,
// or else one its callers make after it returns (waitAfterReturn).
func (r *checker) waitAfter(f *wfunc, q string, line int) *waitOn {
	if w := r.waitIn(f, q, line); w != nil {
		return w
	}
	return r.waitAfterReturn(f, q)
}

// waitAfterReturn returns a wait on q that a caller of f makes after f
// returns, itself or in a callee: a function that re-arms a completion and
// starts the operation, with its caller waiting once it returns
// (mmc_wait_for_req(): __mmc_start_req(), then mmc_wait_for_req_done()).
// Its line is f's last line: every call of f comes before it.
func (r *checker) waitAfterReturn(f *wfunc, q string) *waitOn {
	for _, c := range r.callerViews(f) {
		w := r.waitIn(c.f, q, c.line)
		if w == nil || r.rearmedAround(c.f, q, c.line, w.line) {
			continue
		}
		w.caller, w.callerFile, w.callerLine, w.line = c.f.Name, c.f.File, w.line, f.F.End
		return w
	}
	return nil
}

// rearmedAround reports whether caller f re-arms q itself before its wait
// at line wait that follows its call at line call (before the call, or
// between the two): the callee's re-arm is then not the one the wait
// relies on.
func (r *checker) rearmedAround(f *wfunc, q string, call, wait int) bool {
	for _, a := range r.rearmsOf(f) {
		if a.call.Line < wait && a.call.Line != call && (r.sameQueue(a.q, q) || keyLast(a.q) == keyLast(q)) {
			return true
		}
	}
	return false
}

// waitIn is waitAfter within f and its callees.
func (r *checker) waitIn(f *wfunc, q string, line int) *waitOn {
	for _, s := range f.sitesOn(siteWait, "") {
		if s.Line() > line && r.sameQueue(s.Q, q) {
			return &waitOn{line: s.Line(), site: s}
		}
	}
	if r.tree == nil || f.F == nil {
		return nil
	}
	field := keyLast(strings.TrimPrefix(q, "completion:"))
	seen := map[string]bool{}
	for _, c := range f.F.Calls {
		if c.Line <= line || seen[c.Name] || r.inert(c) {
			continue
		}
		seen[c.Name] = true
		for _, fn := range cscan.PickDefs(r.pass.Index.Funcs(c.Name), f.File) {
			v := r.tree.view(fn)
			for _, s := range v.sitesOn(siteWait, "") {
				if !r.sameQueue(s.Q, q) && keyLast(s.Q) != field {
					continue
				}
				if r.rearmedBefore(v, s) {
					break
				}
				return &waitOn{line: c.Line, site: s, via: fn.Name}
			}
		}
	}
	return nil
}

// rearmedBefore reports whether f re-arms the completion of wait s before
// it.
func (r *checker) rearmedBefore(f *wfunc, s *wsite) bool {
	for _, a := range r.rearmsOf(f) {
		if a.call.Line < s.Line() && (r.sameQueue(a.q, s.Q) || keyLast(a.q) == keyLast(s.Q)) {
			return true
		}
	}
	return false
}

// rearmedElsewhere reports whether the patch adds a re-arm of q in
// another function (the re-arm moved to a caller or a callee).
func (r *checker) rearmedElsewhere(nw *wfunc, q string) bool {
	for _, f := range r.news {
		if f == nil || f == nw {
			continue
		}
		for _, a := range r.rearmsOf(f) {
			if f.changed(a.call.Line) && r.sameQueue(a.q, q) {
				return true
			}
		}
	}
	return false
}

// callCount counts f's calls that can start an operation, by text, on
// lines in (from, to).
func (r *checker) callCount(f *wfunc, from, to int) map[string]int {
	out := map[string]int{}
	for _, c := range f.F.Calls {
		if c.Line > from && c.Line < to && !r.startsNothing(f, c) {
			out[lockctx.CallText(c)]++
		}
	}
	return out
}

// completer returns a complete() of q outside f, nil if none is known.
func (r *checker) completer(f *wfunc, q string) *wsite {
	return r.completerOf(f, rearmSite{q: q})
}

// completerOf returns the waker that re-arm a is for: completer(), and for
// a flag's reset one that stores the flag before it wakes.
func (r *checker) completerOf(f *wfunc, a rearmSite) *wsite {
	for _, s := range r.wakersOf(a.q) {
		if s.Fn.Name == f.Name {
			continue
		}
		if a.field != "" {
			if st, _ := r.storeBeforeWake(s, a.field); st == "" || a.bit != "" && !containsWord(st, a.bit) {
				continue
			}
		}
		return s
	}
	return nil
}

// rearmMovedLater reports a re-arm n that now follows calls which
// followed it before the patch (o), when the function still waits on the
// completion after it: the operation those calls start can complete
// before the re-arm, which then erases the completion.
func (r *checker) rearmMovedLater(ow, nw *wfunc, o, n rearmSite) {
	wait := r.waitAfter(nw, n.q, n.call.Line)
	if wait == nil {
		wait = r.laterWait(nw, n)
	}
	if wait == nil {
		return
	}
	limit := 1 << 30
	if ow := r.waitAfter(ow, o.q, o.call.Line); ow != nil {
		limit = ow.line
	}
	afterOld := r.callCount(ow, o.call.Line, limit)
	beforeOld := r.callCount(ow, 0, o.call.Line)
	beforeNew := r.callCount(nw, 0, n.call.Line)
	done := r.completerOf(nw, n)
	var passed []cscan.Call
	for _, c := range nw.F.Calls {
		t := lockctx.CallText(c)
		if c.Line >= n.call.Line || r.startsNothing(nw, c) || beforeNew[t] <= beforeOld[t] || afterOld[t] == 0 {
			continue
		}
		if n.later != nil && (done == nil || !r.startsWakersOperation(nw, c, done)) {
			continue // a later call's wait ends only by the waker's operation
		}
		passed = append(passed, c)
		afterOld[t]--
		beforeNew[t]--
	}
	if len(passed) == 0 {
		return
	}
	start := passed[len(passed)-1]
	if n.later != nil && r.lockedAgainst(nw, start.Line, n.call.Line, done) {
		return
	}
	what := strings.TrimPrefix(n.q, "completion:")
	erased := fmt.Sprintf("its complete() is erased by %s", n.text)
	if n.field != "" {
		what = n.flagName()
		erased = fmt.Sprintf("the waker's store of %s is overwritten by `%s`", n.field, n.text)
	}
	f := report.Finding{
		Category: CategoryRearm,
		Severity: report.SeverityNote,
		File:     nw.File, Func: nw.Name, Line: n.call.Line,
		Message:  fmt.Sprintf("%s() now re-arms %s after %s()", nw.Name, what, start.Name),
		Evidence: []string{nw.evidence(start.Line), nw.evidence(n.call.Line)},
		Old:      []string{ow.evidence(o.call.Line)},
	}
	if wait.caller == "" {
		f.Evidence = append(f.Evidence, nw.evidence(wait.line))
	}
	f.Chain = append(f.Chain,
		report.Step{Func: nw.Name, File: nw.File, Line: start.Line, What: "starts the operation: " + lockctx.CallText(start)},
		report.Step{Func: nw.Name, File: nw.File, Line: n.call.Line, What: "re-arms only now: " + n.text},
		r.waitStep(nw, wait))
	follows := "the wait that follows times out or never returns"
	if wait.later {
		follows = fmt.Sprintf("the next wait for it (%s()) sleeps although the event came", wait.caller)
	}
	f.Explanation = fmt.Sprintf("%s() used to re-arm %s (`%s`) before %s() and now does it after. If what %s() starts finishes before the re-arm, %s, and %s. Re-arm before starting the operation, as before.",
		nw.Name, what, n.text, start.Name, start.Name, erased, follows)
	if done != nil {
		f.Severity = report.SeverityRisk
		f.Chain = append(f.Chain, step(done, n.signals()+done.Text()))
		f.Evidence = append(f.Evidence, interleaving(nw.Name+"()", done.Fn.Name+"()", [][2]string{
			{lockctx.CallText(start), ""},
			{"", "(the operation finishes)"},
			{"", done.Text()},
			{n.text, ""},
			{"  (the event is erased)", ""},
			{r.waitText(wait), ""},
			{"  waits for an event that already came", ""},
		})...)
	}
	r.add(f)
}

// rearmDropped reports a re-arm the patch removed when the function still
// waits on the completion after where it was, and nothing re-arms it on
// the way.
func (r *checker) rearmDropped(ow, nw *wfunc, o rearmSite) {
	pos := r.newPosOf(nw, o.call.Line)
	wait := r.waitAfter(nw, o.q, pos)
	if wait == nil {
		return
	}
	done := r.completerOf(nw, o)
	if done == nil {
		return
	}
	what, state := strings.TrimPrefix(o.q, "completion:"), "the completion is still done"
	if o.field != "" {
		what, state = o.flagName(), o.flagName()+" is still set"
	}
	at, waits := wait.line, "before waiting on it"
	if wait.caller != "" {
		at, waits = pos, "before its caller "+wait.caller+"() waits on it"
	}
	f := report.Finding{
		Category: CategoryRearm,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: at,
		Message:  fmt.Sprintf("%s() no longer re-arms %s %s", nw.Name, what, waits),
		Evidence: []string{nw.evidence(at)},
		Old:      []string{ow.evidence(o.call.Line)},
	}
	f.Chain = append(f.Chain,
		report.Step{Func: ow.Name, File: ow.File, Line: o.call.Line, What: "re-arm removed: " + o.text},
		r.waitStep(nw, wait),
		step(done, o.signals()+done.Text()))
	f.Evidence = append(f.Evidence, interleaving(done.Fn.Name+"()", nw.Name+"()", [][2]string{
		{done.Text() + " (an earlier round, a late event)", ""},
		{"", "(no " + o.text + " any more)"},
		{"", r.waitText(wait)},
		{"", "  returns at once: " + state},
	})...)
	f.Explanation = fmt.Sprintf("%s() used to re-arm %s with `%s` and no longer does, but still waits on it. An event from an earlier round (%s, a late interrupt, a timed-out request) leaves it signalled, so the next wait returns before this round's operation finished. Keep the re-arm before each use.",
		nw.Name, what, o.text, siteWhere(done))
	r.add(f)
}

// waitStep is the chain step of a wait reached from nw.
func (r *checker) waitStep(nw *wfunc, w *waitOn) report.Step {
	if w.later {
		return report.Step{Func: w.caller, File: w.callerFile, Line: w.callerLine, What: "a later call waits: " + w.site.Text()}
	}
	if w.caller != "" {
		what := "waits: "
		if w.via != "" {
			what = "calls " + w.via + "(), which waits: "
		}
		return report.Step{Func: w.caller, File: w.callerFile, Line: w.callerLine,
			What: fmt.Sprintf("after %s() returns, %s%s (%s:%d)", nw.Name, what, w.site.Text(), w.site.Fn.File, w.site.Line())}
	}
	if w.via == "" {
		return step(w.site, "waits: "+w.site.Text())
	}
	return report.Step{Func: nw.Name, File: nw.File, Line: w.line, What: fmt.Sprintf("calls %s(), which waits: %s (%s:%d)", w.via, w.site.Text(), w.site.Fn.File, w.site.Line())}
}

// waitText is a wait as a line of the interleaving.
func (r *checker) waitText(w *waitOn) string {
	t := w.site.Text()
	if w.via != "" {
		t = w.via + "() -> " + t
	}
	switch {
	case w.later:
		t = "(later) " + w.caller + "() -> " + t
	case w.caller != "":
		t = "(returns) " + w.caller + "() -> " + t
	}
	return t
}

// flagName names the flag a reset re-arms: "bit B of flags", "done".
func (a rearmSite) flagName() string {
	if a.bit != "" {
		return "bit " + a.bit + " of " + a.field
	}
	return a.field
}

// signals is the chain text of the waker that ends the wait a re-arm is
// for.
func (a rearmSite) signals() string {
	if a.field != "" {
		return "sets it and wakes: "
	}
	return "completes it: "
}
