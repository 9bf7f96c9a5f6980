package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A gate can test the waited-for state and still lose the wake-up it owes.
// Two shapes, judged on the gate's conjuncts against each waiter's
// condition:
//   - a conjunct the patch added tests something the waiter does not wait
//     for and does not set before it sleeps (a mode flag, the kind of the
//     request): when it is false, the state the waiter needs is made and
//     nobody wakes it ("if (atomic_dec_and_test(&x->n) && mode_on(x))
//     wake_up(...)" with a waiter of x->n == 0);
//   - a counter test fires at another value than the one the waiter waits
//     for ("if (atomic_dec_return(&x->n) == BATCH) wake_up(...)" with a
//     waiter of x->n == 0): the count passes the waited-for value without a
//     wake-up.
// A conjunct that is a sleeper check of the queue (wq_has_sleeper()) or
// that the waiter's side sets before it waits (a flag announcing the
// waiter) is the protocol working as designed.

// rmwReturnRe matches an atomic decrement or subtraction that returns the
// new value, compared with a value: the counter (group 1) and the value
// (group 2).
var rmwReturnRe = regexp.MustCompile(`^(?:atomic(?:64|_long)?|refcount|local)_(?:dec|sub)_return(?:_\w+)?\s*\((?:[^,()]*,\s*)?&?\s*([A-Za-z_][\w]*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*)\s*\)\s*==\s*([^&|=<>!]+)$`)

// rmwTestRe matches a read-modify-write of a counter that tests it in one
// step (atomic_dec_and_test(&x->n)): the gate stores the state it tests.
var rmwTestRe = regexp.MustCompile(`\b(?:atomic(?:64|_long)?|refcount|local)_(?:dec|sub|add|inc)_(?:and_test|return)\w*\s*\(`)

// narrowedGate is what decideNarrowed found: the waiter, the conjunct that
// keeps the wake-up from it, and how.
type narrowedGate struct {
	w     *wsite
	line  int    // the gate's line
	cond  string // the waiter's condition
	part  string // the conjunct
	store string // the store that makes the waiter's condition true
	value string // for a counter test, the value it fires at
}

// decideNarrowed escalates the note on wake-up n, now gated by guards (old
// are the guards it had before), to a risk when a waiter of n's queue waits
// for state the function stores and a conjunct of the gate keeps the
// wake-up from it (see above).
func (r *checker) decideNarrowed(f *report.Finding, nw *wfunc, n *wsite, guards, old []cscan.Guard) {
	if f.Severity == report.SeverityRisk || r.coveringWake(nw, n.Q, n.Line()+1, n) != "" {
		// Another wake-up of the queue after this one (in the function,
		// a callee or a caller) covers the path where the gate is false.
		return
	}
	norm := r.condNormalizer()
	had := map[string]bool{}
	for _, g := range old {
		for _, p := range splitTop(cscan.StripParens(strings.TrimSpace(g.Cond)), "&&") {
			had[norm(p)] = true
		}
	}
	for _, w := range r.otherWaiters(n.Q, nw.Name) {
		c := waitCond(w)
		if c == "" {
			continue
		}
		cond := stateTokens(r.withHelpers(c, w.Fn.File) + "\n" + localSources(w, c))
		if ng, ok := r.narrowedBy(nw, n, w, guards, had, c, cond); ok {
			r.riskNarrowed(f, nw, n, ng, ng.line)
			return
		}
	}
}

// narrowedBy finds the conjunct of guards that keeps wake-up n from waiter
// w, whose condition is c (cond its state tokens); had holds the old
// guards' conjuncts.
func (r *checker) narrowedBy(nw *wfunc, n, w *wsite, guards []cscan.Guard, had map[string]bool, c string, cond map[string]bool) (narrowedGate, bool) {
	norm := r.condNormalizer()
	for _, g := range guards {
		if g.Kind != "if" {
			continue
		}
		parts := splitTop(cscan.StripParens(strings.TrimSpace(g.Cond)), "&&")
		var tracking, foreign []string
		for _, p := range parts {
			switch {
			case sharesState(stateTokens(p), cond):
				tracking = append(tracking, p)
			case !had[norm(p)] && !r.isActiveCheckOf(p, n.Q, nw) && !r.waiterAnnounces(w, p):
				foreign = append(foreign, p)
			}
		}
		if len(tracking) == 0 {
			continue
		}
		for _, p := range tracking {
			if had[norm(p)] {
				continue
			}
			if lv, v, ok := counterValue(p); ok && waitsForZero(c, lv) && !isZeroValue(v) {
				return narrowedGate{w: w, line: g.Line, cond: c, part: p, store: p, value: v}, true
			}
		}
		if len(foreign) == 0 {
			continue
		}
		store := stateStore(nw, g, tracking, cond)
		if store == "" {
			continue
		}
		return narrowedGate{w: w, line: g.Line, cond: c, part: strings.Join(foreign, " && "), store: store}, true
	}
	return narrowedGate{}, false
}

// stateStore returns what in nw stores the state of cond on the gate's
// path: a read-modify-write in a tracking conjunct of the gate, or a store
// line of the function; "" if none.
func stateStore(nw *wfunc, g cscan.Guard, tracking []string, cond map[string]bool) string {
	for _, p := range tracking {
		if rmwTestRe.MatchString(p) {
			return p
		}
	}
	for _, l := range sortedLines(nw) {
		if l == g.Line || !isStore(nw.lines[l]) && !insertRe.MatchString(codeOnly(nw.lines[l])) {
			continue
		}
		if sharesState(stateTokens(codeOnly(nw.lines[l])), cond) {
			return strings.TrimSpace(nw.lines[l])
		}
	}
	return ""
}

// insertRe matches a call that adds to a container (bio_list_add(),
// skb_queue_tail(), kfifo_put()): a store of what a waiter that tests the
// container waits for.
var insertRe = regexp.MustCompile(`\b\w*(?:_add|_add_tail|_push|_insert|_enqueue|_queue_tail|_queue_head|_put)\s*\(`)

// localSources returns the lines of the waiter's function, before the
// wait, that assign the locals condition c tests ("bio =
// bio_list_pop(&wc->flush_list)" for a task that sleeps while !bio): what
// the condition reads through them.
func localSources(w *wsite, c string) string {
	var b strings.Builder
	for _, m := range guardIdentRe.FindAllStringSubmatch(c, -1) {
		set := regexp.MustCompile(`(?:^|[^\w>.])` + regexp.QuoteMeta(m[1]) + `\s*=[^=]`)
		for _, l := range sortedLines(w.Fn) {
			if l >= w.Line() {
				break
			}
			if t := codeOnly(w.Fn.lines[l]); set.MatchString(t) {
				b.WriteString(t)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// waiterAnnounces reports whether the waiter's function, or one of its
// callers before it calls it, sets the state conjunct p tests before the
// wait: the waker's test then sees every waiter that can be sleeping (the
// flag handshake).
func (r *checker) waiterAnnounces(w *wsite, p string) bool {
	toks := stateTokens(p)
	storesBefore := func(f *wfunc, line int) bool {
		for _, l := range sortedLines(f) {
			if l >= line {
				break
			}
			t := codeOnly(f.lines[l])
			if isStore(t) && sharesState(stateTokens(t), toks) {
				return true
			}
		}
		return false
	}
	if storesBefore(w.Fn, w.Line()) {
		return true
	}
	for _, c := range r.callerViews(w.Fn) {
		if storesBefore(c.f, c.line) {
			return true
		}
	}
	return false
}

// counterValue parses "atomic_dec_return(&x->n) == K": the counter and K.
func counterValue(p string) (lvalue, value string, ok bool) {
	m := rmwReturnRe.FindStringSubmatch(strings.TrimSpace(cscan.StripParens(strings.TrimSpace(p))))
	if m == nil {
		return "", "", false
	}
	return normLvalue(m[1]), strings.TrimSpace(m[2]), true
}

// waitsForZero reports whether condition c waits for counter lv to reach
// zero (!atomic_read(&lv), atomic_read(&lv) == 0, !lv, lv == 0).
func waitsForZero(c, lv string) bool {
	lvRe := strings.ReplaceAll(regexp.QuoteMeta(lv), `\.`, `\s*\.\s*`)
	lvRe = strings.ReplaceAll(lvRe, "->", `\s*->\s*`)
	read := `(?:(?:atomic(?:64|_long)?|refcount|local)_read\s*\(\s*&?\s*` + lvRe + `\s*\)|\b` + lvRe + `\b)`
	re := regexp.MustCompile(`!\s*` + read + `|` + read + `\s*==\s*0\b`)
	for _, d := range splitOr(c) {
		if re.MatchString(d) {
			return true
		}
	}
	return false
}

// riskNarrowed makes f a risk for the waiter ng names.
func (r *checker) riskNarrowed(f *report.Finding, nw *wfunc, n *wsite, ng narrowedGate, line int) {
	part := strings.Join(strings.Fields(ng.part), " ")
	store := strings.Join(strings.Fields(ng.store), " ")
	if ng.value != "" {
		r.riskGated(f, ng.w, nw, n, line, "wake-up now only when the count reaches "+ng.value, "the gated wake-up: ", [][2]string{
			{"", ng.w.Text()},
			{"", "  condition false: sleeps"},
			{store + " is false (count passes " + ng.value + ")", ""},
			{"  (skips " + n.Text() + ")", ""},
			{"... the count reaches 0, no wake-up", "sleeps on; " + ng.cond + " now holds"},
		})
		f.Explanation = fmt.Sprintf("%s() wakes %s only when `%s` holds, but %s waits for the count to reach zero (`%s`): the count passes %s and goes on to zero with no wake-up after it. Wake when the count reaches what the waiter waits for.",
			nw.Name, n.Q, part, siteWhere(ng.w), ng.cond, ng.value)
		return
	}
	r.riskGated(f, ng.w, nw, n, line, "wake-up now also requires "+part, "the gated wake-up: ", [][2]string{
		{"", ng.w.Text()},
		{"", "  condition false: sleeps"},
		{store, ""},
		{part + " is false", ""},
		{"  (skips " + n.Text() + ")", "sleeps on; " + ng.cond + " now holds"},
	})
	f.Explanation = fmt.Sprintf("%s() makes what %s waits for (`%s`) true (`%s`), and now wakes %s only if also %s, which that waiter neither waits for nor sets before it sleeps: when it is false the waiter is left sleeping with its condition true. Keep the wake-up tied to the waited-for state alone.",
		nw.Name, siteWhere(ng.w), ng.cond, store, n.Q, part)
}

// isZeroValue reports whether a value text is the constant zero.
func isZeroValue(v string) bool {
	n, ok := constValue(v)
	return ok && n == 0
}
