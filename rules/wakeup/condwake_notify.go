package wakeup

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A notifier is a function whose wake-up is its whole job: before the
// patch it stored nothing a waiter could wait for before waking the queue
// or the task (a virtqueue or URB callback, tty_wakeup(), a kthread's
// "work queued" kick). What its waiters wait for
// was made by its caller, or by the device, before the call: the call is
// the announcement. Every call owes the wake-up, so a gate the patch puts
// on it (a new early return before it, or a condition around it) loses the
// wake-up whenever the gate says no, unless the gate tests
//   - what the waiters wait for (the wake-up then fires when it became
//     true: the gate tracks the state),
//   - whether anyone sleeps on the queue (wq_has_sleeper(): the
//     waitqueue-active rule's business),
//   - a flag the waiter's side sets before it sleeps (the waiter announces
//     itself: the gate then sees every waiter),
//   - whether the object the wake-up reaches its queue or task through
//     exists at all (a NULL test of a name the wake-up's call or queue
//     reads: no object, no queue; a NULL test of anything else is a mode
//     like any other),
//     or an assertion (WARN_ON(): a state that never happens),
//   - what the device says happened (a status register read, directly or
//     through a local; an interrupt handler returning IRQ_NONE): the call
//     was not the event, as on a shared interrupt line.
// Anything else (which virtqueue fired, a mode flag, a request bit that no
// sleeper sets) is foreign to the waiters, and when it says no they sleep
// on what has already happened. A new early return skips the wake-up only
// when all its conjuncts hold, so one of the kinds above makes it safe; a
// condition around the wake-up loses it when any conjunct fails, so each
// must be of those kinds or track a waiter. An exit that wakes some queue
// on its way (the waiters moved to another one) is no lost notification.

// assertRe matches a conjunct that is an assertion: its false side is a
// state the code says never happens.
var assertRe = regexp.MustCompile(`^!?\s*(?:unlikely|likely)?\s*\(?\s*(?:WARN_ON|WARN_ON_ONCE|WARN|WARN_ONCE|BUG_ON)\s*\(`)

// nullTestRe matches a NULL test: of a plain variable ("!vb", "x"), or
// an explicit one ("dev->priv == NULL"). A member's truth ("vm->removing")
// is a flag's as often as a pointer's, and is judged as a gate. (wrapper.go's
// nullCheckRe takes it as a NULL test: there it only excuses a helper's
// call made under a test of what it calls with.)
var nullTestRe = regexp.MustCompile(`^(?:!\s*)?[A-Za-z_]\w*$|^[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*\s*[!=]=\s*NULL$`)

// scalarDeclRe matches the declaration of a scalar local (a flag, a
// count): $1 the name.
var scalarDeclRe = regexp.MustCompile(`(?:^\s*|[;{(,]\s*)(?:const\s+)?(?:bool|_Bool|int|unsigned(?:\s+(?:int|long|char|short))?|long|u8|u16|u32|u64|s8|s16|s32|s64|size_t|ssize_t)\s+([A-Za-z_]\w*)\s*[=;,]`)

// isNullTest reports whether conjunct p is a NULL test (nullTestRe) of
// something nw does not declare as a scalar: "!on" after "bool on =
// test_bit(...)" tests a flag.
func isNullTest(nw *wfunc, p string) bool {
	if !nullTestRe.MatchString(p) {
		return false
	}
	name := strings.TrimSpace(strings.TrimPrefix(p, "!"))
	if !cscan.IsIdent(name) {
		return true // a member compared with NULL
	}
	for _, l := range sortedLines(nw) {
		for _, m := range scalarDeclRe.FindAllStringSubmatch(codeOnly(nw.lines[l]), -1) {
			if m[1] == name {
				return false
			}
		}
	}
	return true
}

// gateCallRe matches a call in a gate or a waiter's code: $1 the name.
var gateCallRe = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(`)

// accessorCalls are calls whose meaning lies in their arguments (the
// state tokens compare those): sharing one shares no state.
var accessorCalls = regexp.MustCompile(`^(?:test_bit|variable_test_bit|constant_test_bit|atomic\w*_read\w*|READ_ONCE|smp_load_acquire|data_race|likely|unlikely)$`)

// helperCalls returns the functions text calls but accessors and
// keywords: a gate and a waiter that call one helper test one state
// (tty_throttled(tty) on both sides).
func helperCalls(text string) map[string]bool {
	out := map[string]bool{}
	for _, m := range gateCallRe.FindAllStringSubmatch(text, -1) {
		if !trivialCalls[m[1]] && !accessorCalls.MatchString(m[1]) {
			out[m[1]] = true
		}
	}
	return out
}

// isNotifier reports whether old, the function before the patch, woke the
// queue of its wake-up o on every call (no return before it, and o under
// no condition) and stored nothing shared before it: its wake-up announces
// what happened before it was called.
func (r *checker) isNotifier(old *wfunc, o *wsite) bool {
	if old == nil || old.F == nil || o == nil || old.Partial {
		return false
	}
	// A helper waking each object in a loop still wakes; a handler's call
	// for the event its device status names is owed whenever it is set
	// (condwake_dispatch.go).
	bits, ok := r.dispatchBits(old, o)
	if !ok {
		return false
	}
	if len(bits) > 0 {
		if !r.earlierReturnsDevice(old, o.Line()) {
			return false
		}
	} else if slices.ContainsFunc(old.F.Returns, func(ret cscan.Return) bool { return ret.Line < o.Line() }) {
		return false
	}
	lines, _ := r.storesBefore(old, o.Line(), o.Q)
	if len(bits) > 0 {
		lines = r.sameEventStores(old, lines, bits)
	}
	return len(lines) == 0
}

// decideNotifierGated escalates note f to a risk when the patch gates the
// wake-up n of notifier nw (old its version before the patch, o its
// wake-up there) with guards foreign to n's waiters (see above). exit is
// the line of the new early return or goto, 0 when the gate is a
// condition around the wake-up; land is the goto's label line (0 for a
// return).
func (r *checker) decideNotifierGated(f *report.Finding, old, nw *wfunc, o, n *wsite, guards []cscan.Guard, exit, land int) {
	if f.Severity == report.SeverityRisk || !r.isNotifier(old, o) {
		return
	}
	if exit > 0 && exitNotifies(nw, guards, exit, land) {
		return
	}
	devLocals := r.deviceLocals(nw, lastGuard(guards))
	bits, _ := r.dispatchBits(old, o)
	var exitBits []string // an exit on another event skips this one
	if exit > 0 {
		exitBits = bits
	}
	var parts []string
	for _, g := range guards {
		if c := elseCond(nw, g); g.Kind == "else" && r.otherEvent(nw, devLocals, c, bits) && !r.wokenUnder(nw, n, c) {
			// "else if (st & RX)" after "if (st & ERR)": the call is
			// skipped whenever the other event comes with this one.
			parts = append(parts, "!("+strings.Join(strings.Fields(c), " ")+")")
			continue
		}
		if g.Kind != "if" {
			return // an else or case arm: what picks it is not at hand
		}
		for _, p := range splitTop(cscan.StripParens(strings.TrimSpace(g.Cond)), "&&") {
			p = strings.Join(strings.Fields(p), " ")
			if !r.excusedGate(nw, n, devLocals, p) || r.otherEvent(nw, devLocals, p, exitBits) {
				parts = append(parts, p)
			} else if exit > 0 {
				return // the return is taken only when it holds too
			}
		}
	}
	waiters := r.otherWaiters(n.Q, nw.Name)
	if len(waiters) > 0 && !slices.ContainsFunc(waiters, func(x *wsite) bool { return !pollsOnTimer(x) }) {
		return // every sleeper looks again on its own after a while
	}
	conds, texts := make([]string, len(waiters)), make([]string, len(waiters))
	for i, x := range waiters {
		conds[i], texts[i] = r.waiterState(x)
	}
	var foreign []string
	for _, p := range parts {
		tracked := false
		for i, x := range waiters {
			if r.gateTracks(nw, x, texts[i], p) {
				tracked = true
				break
			}
		}
		switch {
		case !tracked:
			foreign = append(foreign, p)
		case exit > 0:
			return // the return is taken only when a waiter's state says so
		}
	}
	if len(foreign) == 0 {
		return
	}
	// The waiter named is the one whose condition says most: the longest
	// condition text, else the most state its function reads.
	var w *wsite
	best := -1
	for i, x := range waiters {
		if score := len(stateTokens(texts[i])) + 100*len(conds[i]); score > best {
			w, best = x, score
		}
	}
	if w == nil {
		return
	}
	// An early return skips the wake-up when its gate holds; a condition
	// around the wake-up skips it when one of its foreign terms fails.
	gate := strings.Join(foreign, " && ")
	line, skip := n.Line(), "  (skips "+n.Text()+")"
	what := "wake-up now only when " + gate
	when := "`" + strings.Join(foreign, "` or `") + "` is false"
	taken := nw.Name + "(): " + strings.Join(foreign, " or ") + " is false"
	if exit > 0 {
		line = exit
		what = "new exit skips the wake-up: " + strings.TrimSpace(nw.text(exit))
		when, taken = "`"+gate+"` holds", nw.Name+"(): "+gate
	}
	r.riskUnwoken(f, w, nw, line, what)
	if exit > 0 {
		f.Chain = append(f.Chain, step(n, "the skipped wake-up: "+n.Text()))
	}
	f.Evidence = append(f.Evidence, interleaving("the caller, then "+nw.Name+"()", w.Fn.Name+"()", [][2]string{
		{"", w.Text()},
		{"", "  condition false: sleeps"},
		{"what " + nw.Name + "() announces has happened", ""},
		{taken, ""},
		{skip, "sleeps on; " + strings.Trim(condOrState(w), "`") + " already holds"},
	})...)
	if len(bits) > 0 && (exit > 0 || strings.HasPrefix(gate, "!(")) {
		f.Explanation = dispatchExplanation(nw, n, w, gate, bits, exit > 0)
		return
	}
	f.Explanation = fmt.Sprintf("%s() stored nothing before it woke %s: its wake-up announces what its caller or the device did before calling it, and every call owes it. It now skips the wake-up when %s, which %s neither waits for nor sets before it sleeps: a call that takes that path leaves the waiter sleeping on an event that already happened. Wake on every call, or gate on what the waiters wait for or on wq_has_sleeper().",
		nw.Name, n.Q, when, siteWhere(w))
}

// pollsOnTimer reports whether x is a task's open-coded sleep with a
// finite timeout in a loop that looks again when it ends
// (schedule_timeout(HZ) in a kthread's for (;;)): a skipped wake-up only
// delays it.
func pollsOnTimer(x *wsite) bool {
	if x.WKind != "task" || !strings.Contains(x.Call.Name, "timeout") || len(x.Call.Args) == 0 ||
		strings.Contains(x.Call.Args[0], "MAX_SCHEDULE_TIMEOUT") {
		return false
	}
	return slices.ContainsFunc(x.Call.Guards, func(g cscan.Guard) bool { return g.Kind == "loop" })
}

// irqNoneRe matches an interrupt handler's "not mine" return.
var irqNoneRe = regexp.MustCompile(`\breturn\s+IRQ_NONE\b`)

// deviceReadRe matches a read of a device register: MMIO and port
// accessors, regmap, SMBus and ASoC component reads.
var deviceReadRe = regexp.MustCompile(`\b(?:(?:__raw_)?read[bwlq](?:_relaxed)?|ioread(?:8|16|32|64)(?:be)?|in[bwl](?:_p)?|in_(?:be|le)(?:16|32|64)|regmap_(?:bulk_)?read|i2c_smbus_read_\w+|snd_soc_component_read\w*)\s*\(`)

// chainHeadRe matches the first name of a member chain or a plain name
// (the "x" of "x->flags", not "flags").
var chainHeadRe = regexp.MustCompile(`(?:^|[^\w>.])([A-Za-z_]\w*)`)

// localSetRe matches an assignment's left-hand name; addrArgRe a local
// handed to a call by address (regmap_read(map, REG, &status)).
var (
	localSetRe = regexp.MustCompile(`(?:^|[^\w>.])([A-Za-z_]\w*)\s*=[^=]`)
	addrArgRe  = regexp.MustCompile(`&\s*([A-Za-z_]\w*)\b\s*[,)]`)
)

// excusedGate reports whether conjunct p of the gate of nw is of a kind
// that loses no wake-up owed to n's waiters: a sleeper check of n's
// queue, an assertion, a NULL test, or a test of what the device reports
// (a register read, directly or through a small helper, or a local of
// devLocals); a disjunction only when each of its terms is.
func (r *checker) excusedGate(nw *wfunc, n *wsite, devLocals map[string]bool, p string) bool {
	for _, d := range splitTop(p, "||") {
		d = strings.TrimSpace(d)
		if r.isActiveCheckOf(cscan.StripParens(d), n.Q, nw) || assertRe.MatchString(d) || isNullTest(nw, cscan.StripParens(d)) && nullTestOfWoken(n, cscan.StripParens(d)) ||
			r.readsDevice(d, nw.File) {
			continue
		}
		if !anyHead(d, devLocals) {
			return false
		}
	}
	return true
}

// deviceGate reports whether every conjunct of the if guards of nw tests
// what the device reports (readsDevice, deviceLocals).
func (r *checker) deviceGate(nw *wfunc, guards []cscan.Guard) bool {
	locals := r.deviceLocals(nw, lastGuard(guards))
	seen := false
	for _, g := range guards {
		if g.Kind != "if" {
			continue
		}
		for _, p := range splitTop(cscan.StripParens(strings.TrimSpace(g.Cond)), "&&") {
			seen = true
			if !r.readsDevice(p, nw.File) && !anyHead(p, locals) {
				return false
			}
		}
	}
	return seen
}

// nullTestOfWoken reports whether p, a NULL test, tests an object wake-up
// n reaches its queue or task through: the start of a member chain its
// call or queue argument reads, directly or through the locals they are
// assigned from before it ("if (!dev) return; ch = &dev->chan[i];
// wake_up(&ch->wait);"). A member the wake-up does not read
// (port->trace_buf beside &port->wait) is no such object.
func nullTestOfWoken(n *wsite, p string) bool {
	obj := strings.TrimSpace(strings.TrimPrefix(p, "!"))
	if i := strings.Index(obj, "=="); i >= 0 {
		obj = obj[:i]
	} else if i := strings.Index(obj, "!="); i >= 0 {
		obj = obj[:i]
	}
	obj = strings.Join(strings.Fields(obj), "")
	if obj == "" {
		return false
	}
	reads := n.Arg + "," + strings.Join(n.Call.Args, ",")
	reads += "\n" + localSources(n, reads)
	re := regexp.MustCompile(`(?:^|[^\w>.])` + regexp.QuoteMeta(obj) + `(?:$|[^\w])`)
	return re.MatchString(strings.Join(strings.Fields(reads), " "))
}

// anyHead reports whether text names one of names as a plain name or the
// head of a member chain.
func anyHead(text string, names map[string]bool) bool {
	for _, m := range chainHeadRe.FindAllStringSubmatch(text, -1) {
		if names[m[1]] {
			return true
		}
	}
	return false
}

// readsDevice reports whether text reads a device register, directly or
// through a small helper of file (a driver's own status accessor).
func (r *checker) readsDevice(text, file string) bool {
	return deviceReadRe.MatchString(text) || deviceReadRe.MatchString(r.withHelpers(text, file))
}

// deviceLocals returns the locals nw reads from the device before line:
// assigned a register read, or handed to one by address.
func (r *checker) deviceLocals(nw *wfunc, line int) map[string]bool {
	out := map[string]bool{}
	for _, l := range sortedLines(nw) {
		if l >= line {
			break
		}
		t := codeOnly(nw.lines[l])
		if !strings.Contains(t, "(") || !r.readsDevice(t, nw.File) {
			continue
		}
		for _, m := range localSetRe.FindAllStringSubmatch(t, -1) {
			out[m[1]] = true
		}
		for _, m := range addrArgRe.FindAllStringSubmatch(t, -1) {
			out[m[1]] = true
		}
	}
	return out
}

// gateTracks reports whether conjunct p of a gate in nw tests what waiter
// x (text the code reading its state, waiterState) waits for: its state,
// through helpers; a flag its side sets before it sleeps; or a helper both
// call (tty_throttled(tty) on both sides).
func (r *checker) gateTracks(nw *wfunc, x *wsite, text, p string) bool {
	if sharesState(stateTokens(r.withHelpers(p, nw.File)), stateTokens(text)) || r.waiterAnnounces(x, p) {
		return true
	}
	calls := helperCalls(text)
	for h := range helperCalls(p) {
		if calls[h] {
			return true
		}
	}
	return false
}

// lastGuard returns the line of the innermost of guards: where the gate
// is decided.
func lastGuard(guards []cscan.Guard) int {
	last := 0
	for _, g := range guards {
		last = max(last, g.Line)
	}
	return last
}

// exitNotifies reports whether the exit at line exit (a goto landing at
// land; 0 for a return) still notifies: an interrupt handler's IRQ_NONE
// return (not this device's interrupt), or a wake-up of some queue on the
// path from the gate (the waiters moved to another queue).
func exitNotifies(nw *wfunc, guards []cscan.Guard, exit, land int) bool {
	from := lastGuard(guards)
	ret := exit
	if land > 0 && nw.F != nil {
		ret = 0 // the first return at or after the label
		for _, rt := range nw.F.Returns {
			if rt.Line >= land && (ret == 0 || rt.Line < ret) {
				ret = rt.Line
			}
		}
	}
	if ret > 0 && irqNoneRe.MatchString(codeOnly(nw.text(ret))) {
		return true
	}
	for _, s := range nw.sitesOn(siteWake, "") {
		if s.Line() > from && s.Line() < exit || land > 0 && s.Line() > land {
			return true
		}
	}
	return false
}

// stmtGuards returns the guards of the goto at line in body, as the
// scanner gives a return's (cscan.Return.Guards): the if, else, loop and
// switch statements around it, outermost first.
func stmtGuards(body cscan.Stmt, line int) []cscan.Guard {
	return guardsOfStmt(body, func(s cscan.Stmt) bool {
		g, ok := s.(*cscan.GotoStmt)
		return ok && g.Line == line
	})
}

// waiterState returns the condition waiter x waits for and the code
// that reads its state: the condition, through helpers and the locals it
// tests; for a waiter whose condition is code around the wait (a
// prepare_to_wait() or wait_woken() loop, a poll function's mask), its
// function up to where it leaves the queue (waitEnd), which errs
// towards a gate seeming to track the waiter. A completion waited for
// once (in no loop) ends the wait by itself: what the function reads
// after the wait (the URB's status) is what it does once woken, so its
// code ends at the wait.
func (r *checker) waiterState(x *wsite) (string, string) {
	c := waitCond(x)
	if c != "" {
		return c, r.withHelpers(c, x.Fn.File) + "\n" + localSources(x, c)
	}
	if x.WKind == "completion" && !slices.ContainsFunc(x.Call.Guards, func(g cscan.Guard) bool { return g.Kind == "loop" }) {
		return "", codeLines(x.Fn, 0, x.Line())
	}
	return "", codeLines(x.Fn, 0, r.waitEnd(x))
}

// codeLines returns the code of f's lines after line from up to line to
// (the last line when to is 0), comments left out, one per line.
func codeLines(f *wfunc, from, to int) string {
	var b strings.Builder
	for _, l := range sortedLines(f) {
		if to > 0 && l > to {
			break
		}
		if l > from {
			b.WriteString(codeOnly(f.lines[l]))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// waitEnd returns the last line of the code of waiter x's function
// that decides whether it sleeps: the first line after its wait where it
// leaves a wait queue (remove_wait_queue(), finish_wait()), or the end
// of a loop around the wait that ends later (a do-while's condition); 0
// when it leaves no queue after the wait. What the function does after
// it stops waiting (n_tty_write() sets TTY_DO_WRITE_WAKEUP on its way
// out) is not what it waits for.
func (r *checker) waitEnd(x *wsite) int {
	end := 0
	for _, l := range sortedLines(x.Fn) {
		if l > x.Line() && leaveQueueRe.MatchString(codeOnly(x.Fn.lines[l])) {
			end = l
			break
		}
	}
	if end == 0 {
		return 0
	}
	if f := r.withBody(x.Fn); f.F != nil && f.F.Body != nil {
		// The innermost loop around the wait: its condition may come
		// after the queue exit (a do-while).
		start, loopEnd := 0, 0
		cscan.Inspect(f.F.Body, func(s cscan.Stmt) {
			if l, ok := s.(*cscan.LoopStmt); ok && l.Line <= x.Line() && l.Line > start {
				if e := stmtEnd(l); e >= x.Line() {
					start, loopEnd = l.Line, e
				}
			}
		})
		end = max(end, loopEnd)
	}
	return end
}

// leaveQueueRe matches a call that takes a waiter off its queue.
var leaveQueueRe = regexp.MustCompile(`\b(?:remove_wait_queue|finish_wait|finish_swait)\s*\(`)
