package wakeup

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// What else a wake function owes its sleeper, besides waking it and
// unlinking last (wakefunc.go) and returning the right kind of value
// (wakefunc_returns.go):
//   - the event record: a wake function that sets a flag in the sleeper's
//     structure (poll's pwq->triggered, aio's work_need_resched) tells a
//     sleeper that checks it between its last look at the condition and
//     its sleep that a wake-up came in meanwhile; a patch that drops the
//     store, while another function of the file still reads the flag,
//     loses the wake-ups that arrive in that window;
//   - the filter: the conditions under which it declines an event (returns
//     0 before waking). Dropping a conjunct of such a condition declines
//     more events; when the conjunct was the test of the key itself, the
//     events without a key (wake_up(), wake_up_interruptible() and
//     wake_up_all() pass none) are now declined. Dropping a disjunct
//     declines fewer: on a queue shared by several objects (a hashed
//     table) the function takes wake-ups meant for other entries, and
//     with exclusive waiters the one wake-up an event gives can go to the
//     wrong sleeper.

// assignedMember returns the member a line of code stores to
// (memberStoreRe), "" if none.
func assignedMember(code string) string {
	for _, m := range fieldsIn(code) {
		if memberStoreRe(m).MatchString(code) {
			return m
		}
	}
	return ""
}

// keyParamRe finds the key parameter of a wake function: its last void
// pointer parameter.
var keyParamRe = regexp.MustCompile(`void\s*\*\s*([A-Za-z_]\w*)\s*\)`)

// checkWakeContract checks what wake function nw, changed from old, owes
// its sleepers besides the wake-up itself (see above).
func (r *checker) checkWakeContract(old, nw *wfunc) {
	if old == nil || old.F == nil || nw == nil || nw.F == nil {
		return
	}
	r.checkWakeRecord(old, nw)
	r.checkWakeFilter(old, nw)
}

// checkWakeRecord reports a store the patch removed from wake function nw
// whose member nw no longer stores anywhere (itself or in a function it
// calls) while another function of its file reads it.
func (r *checker) checkWakeRecord(old, nw *wfunc) {
	wokeAt := r.firstTaskWake(old)
	for _, l := range sortedLines(old) {
		t := codeOnly(old.lines[l])
		member := assignedMember(t)
		if !old.changed(l) || member == "" || strings.Contains(t, "==") || wokeAt > 0 && l > wokeAt {
			// A store after the task is woken is no record the sleeper
			// can read in time (and a use of an entry it may have left):
			// dropping it is no loss.
			continue
		}
		if r.storesMember(nw, member) {
			continue
		}
		reader, line, read := r.memberReader(nw, member)
		if reader == "" {
			continue
		}
		st := strings.TrimSpace(t)
		fr := report.Finding{
			Category: CategoryWakeFunc,
			Severity: report.SeverityRisk,
			File:     nw.File, Func: nw.Name, Line: nw.F.Start,
			Message:  fmt.Sprintf("wake function %s() no longer records the wake-up (%s), which %s() reads", nw.Name, st, reader),
			Evidence: []string{nw.evidence(nw.F.Start)},
			Old:      []string{old.evidence(l)},
		}
		fr.Chain = append(fr.Chain,
			report.Step{Func: nw.Name, File: nw.File, Line: nw.F.Start, What: "no longer stores " + member},
			report.Step{Func: reader, File: nw.File, Line: line, What: "reads " + member + ": " + read})
		fr.Evidence = append(fr.Evidence, interleaving(nw.Name+"() (waker)", reader+"() (sleeper)", [][2]string{
			{"", "checks its condition: not yet"},
			{"event; the wake function runs", ""},
			{"  (" + member + " not set)", ""},
			{"", "reads " + member + ": no wake-up seen"},
			{"", "sleeps; the event is not looked at again"},
		})...)
		fr.Explanation = fmt.Sprintf("%s() used to record each wake-up in %s (`%s`). %s() reads it to learn that a wake-up came in after it last looked at its condition, and it is the only trace of a wake-up that arrives before the sleeper is back on its wait: without it that wake-up is lost and the sleeper waits for an event that already happened. Keep the store (with its barrier) in the wake function.",
			nw.Name, member, st, reader)
		r.add(fr)
		return
	}
}

// firstTaskWake returns the line of wake function f's first call that
// wakes its task, 0 if none.
func (r *checker) firstTaskWake(f *wfunc) int {
	first := 0
	for _, c := range f.F.Calls {
		if r.wakesTask(c) && (first == 0 || c.Line < first) {
			first = c.Line
		}
	}
	return first
}

// storesMember reports whether f, or a function it calls, stores member.
func (r *checker) storesMember(f *wfunc, member string) bool {
	store := memberStoreRe(member)
	stores := func(text string) bool {
		for _, line := range strings.Split(text, "\n") {
			if store.MatchString(codeOnly(line)) {
				return true
			}
		}
		return false
	}
	var body strings.Builder
	for _, l := range sortedLines(f) {
		body.WriteString(codeOnly(f.lines[l])) // a call named in a comment is no call
		body.WriteByte('\n')
	}
	if stores(body.String()) {
		return true
	}
	for _, name := range calledNames(body.String()) {
		if text, ok := r.funcText(name, f.File); ok && stores(text) {
			return true
		}
	}
	return false
}

// memberReader returns a function of f's file, other than f, that tests
// member (->member or .member in the condition of an if or a loop, or in
// a return: what decides whether it waits or acts), and the line and
// text.
func (r *checker) memberReader(f *wfunc, member string) (string, int, string) {
	if r.tree == nil {
		return "", 0, ""
	}
	file := r.tree.parsed(r.tree.relPath(f.File))
	if file == nil {
		return "", 0, ""
	}
	use, store := memberUse(member), memberStoreRe(member)
	for _, fn := range file.Funcs {
		if fn.Name == f.Name {
			continue
		}
		v := r.tree.view(fn)
		for _, l := range sortedLines(v) {
			t := codeOnly(v.lines[l])
			if use.MatchString(t) && !store.MatchString(t) && decidingLineRe.MatchString(t) {
				return fn.Name, l, strings.TrimSpace(t)
			}
		}
	}
	return "", 0, ""
}

// decidingLineRe matches a line whose tests decide what a function does
// next: an if or loop condition, or a return.
var decidingLineRe = regexp.MustCompile(`^\s*(?:}\s*)?(?:else\s+)?(?:if|while)\s*\(|\breturn\b`)

// checkWakeFilter reports a decline condition of wake function nw that
// the patch made wider (a conjunct dropped) or narrower (a disjunct
// dropped), compared with the old decline at the same place.
func (r *checker) checkWakeFilter(old, nw *wfunc) {
	olds := r.wakeReturns(old)
	for _, n := range r.wakeReturns(nw) {
		if n.kind != retDecline || len(n.conds) == 0 || !nw.changed(n.line) && !r.condChanged(nw, n.line) {
			continue
		}
		for _, o := range olds {
			if o.kind != retDecline || len(o.conds) != len(n.conds) || !sameConds(o.conds[:len(o.conds)-1], n.conds[:len(n.conds)-1]) {
				continue
			}
			oc, nc := o.conds[len(o.conds)-1], n.conds[len(n.conds)-1]
			if normLine(oc) == normLine(nc) {
				continue
			}
			if dropped := droppedParts(oc, nc, "&&"); len(dropped) > 0 {
				r.reportWiderDecline(old, nw, o, n, dropped)
				return
			}
			if dropped := droppedParts(oc, nc, "||"); len(dropped) > 0 && r.matchesKeyToEntry(nw, dropped) {
				r.reportNarrowerDecline(old, nw, o, n, dropped)
				return
			}
			if droppedParts(oc, nc, "||") == nil && r.checkReplacedFilter(old, nw, o, n, oc, nc) {
				return
			}
		}
	}
}

// condChanged reports whether a line of the condition leading to the
// return at line changed: a changed line among the few before it.
func (r *checker) condChanged(f *wfunc, line int) bool {
	for l := line - 1; l >= line-4 && l > 0; l-- {
		if f.changed(l) {
			return true
		}
	}
	return false
}

// droppedParts returns the parts of old (split at op) that nw no longer
// has, when nw's parts are a strict subset of old's; nil otherwise.
func droppedParts(old, nw, op string) []string {
	op1, np := splitTop(old, op), splitTop(nw, op)
	if len(np) >= len(op1) {
		return nil
	}
	have := map[string]bool{}
	for _, p := range op1 {
		have[normLine(p)] = true
	}
	for _, p := range np {
		if !have[normLine(p)] {
			return nil
		}
	}
	keep := map[string]bool{}
	for _, p := range np {
		keep[normLine(p)] = true
	}
	var out []string
	for _, p := range op1 {
		if !keep[normLine(p)] {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}

// matchesKeyToEntry reports whether one of the dropped tests compares the
// event's key with the entry's own (key->xa != ewait->key.xa): a test of
// which entry the event is for, as opposed to what kind of event it is.
func (r *checker) matchesKeyToEntry(f *wfunc, dropped []string) bool {
	keys := keyAliases(f)
	for _, d := range dropped {
		sides := strings.Split(d, "!=")
		if len(sides) != 2 {
			continue
		}
		a, b := baseIdent(sides[0]), baseIdent(sides[1])
		if a == "" || b == "" {
			continue
		}
		if slices.Contains(keys, a) != slices.Contains(keys, b) && isVariable(a) && isVariable(b) {
			return true
		}
	}
	return false
}

// baseIdent returns the first identifier of an operand (the variable a
// member chain starts from), "" if none.
func baseIdent(s string) string {
	if ws := identWords(s); len(ws) > 0 {
		return ws[0]
	}
	return ""
}

// isVariable reports whether an identifier names a variable rather than
// a constant (upper-case, or a number).
func isVariable(id string) bool {
	return id != "" && (id[0] < '0' || id[0] > '9') && strings.ToUpper(id) != id
}

// keyAliases returns the key parameter of wake function f and the locals
// set from it (struct foo_key *key = keyp).
func keyAliases(f *wfunc) []string {
	m := keyParamRe.FindStringSubmatch(f.header())
	if m == nil {
		return nil
	}
	out := []string{m[1]}
	set := regexp.MustCompile(`([A-Za-z_]\w*)\s*=\s*(?:\([^)]*\)\s*)?` + regexp.QuoteMeta(m[1]) + `\s*;`)
	for _, t := range f.lines {
		if s := set.FindStringSubmatch(codeOnly(t)); s != nil {
			out = appendUnique(out, s[1])
		}
	}
	return out
}

// reportWiderDecline reports a decline that now also takes the events
// the dropped conjuncts used to let through: a risk when one tested the
// key itself (events without a key are now declined), a note otherwise.
func (r *checker) reportWiderDecline(old, nw *wfunc, o, n wakeReturn, dropped []string) {
	key := ""
	if m := keyParamRe.FindStringSubmatch(nw.header()); m != nil {
		key = m[1]
	}
	keyTest := false
	for _, d := range dropped {
		d = strings.ReplaceAll(normLine(cscan.StripParens(strings.TrimSpace(d))), " ", "")
		if key != "" && (d == key || d == key+"!=NULL" || d == "NULL!="+key) {
			keyTest = true
		}
	}
	what := strings.Join(dropped, " && ")
	fr := report.Finding{
		Category: CategoryWakeFunc,
		Severity: report.SeverityNote,
		File:     nw.File, Func: nw.Name, Line: n.line,
		Message:  fmt.Sprintf("wake function %s() now declines events it used to take: its test `%s` is gone", nw.Name, what),
		Evidence: []string{nw.evidence(n.line)},
		Old:      []string{old.evidence(o.line)},
		Explanation: fmt.Sprintf("%s() returns 0 without waking its task when `%s` holds; it used to require `%s` as well. The events for which that is false no longer wake the sleeper: check that it does not wait for any of them.",
			nw.Name, n.conds[len(n.conds)-1], what),
	}
	if keyTest {
		fr.Severity = report.SeverityRisk
		fr.Message = fmt.Sprintf("wake function %s() now declines wake-ups without a key: its test of `%s` is gone", nw.Name, key)
		fr.Chain = append(fr.Chain, report.Step{Func: nw.Name, File: nw.File, Line: n.line, What: "declines: " + n.conds[len(n.conds)-1]})
		fr.Evidence = append(fr.Evidence, interleaving("a waker", nw.Name+"() (sleeper's entry)", [][2]string{
			{"", "sleeps on the queue"},
			{"wake_up() (no key: " + key + " == NULL)", ""},
			{"", nw.Name + "(): " + key + " == NULL, returns 0"},
			{"", "the task is not woken; sleeps on"},
		})...)
		fr.Explanation = fmt.Sprintf("%s() used to take every wake-up that carries no key (`%s` tested first) and filter only keyed ones. wake_up(), wake_up_interruptible() and wake_up_all() pass no key, and with the test gone such a wake-up is declined (or reads through a NULL key): the sleeper is never woken by them, for example by a shutdown or disconnect that wakes the queue without a poll mask. Keep the `%s &&` test.",
			nw.Name, key, key)
	}
	r.add(fr)
}

// exclusiveRe finds an exclusive wait in a file.
var exclusiveRe = regexp.MustCompile(`\b(?:prepare_to_wait_exclusive|add_wait_queue_exclusive|__add_wait_queue_entry_tail_exclusive|wait_event\w*_exclusive\w*)\s*\(`)

// exclusiveEntriesOf reports whether a function of wake function f's file
// installs f in a wait entry and waits with it exclusively.
func (r *checker) exclusiveEntriesOf(f *wfunc) bool {
	file := r.tree.parsed(r.tree.relPath(f.File))
	if file == nil {
		return false
	}
	for _, fn := range file.Funcs {
		if fn.Name == f.Name {
			continue
		}
		v := r.tree.view(fn)
		uses, excl := false, false
		for _, l := range sortedLines(v) {
			t := codeOnly(v.lines[l])
			uses = uses || containsWord(t, f.Name)
			excl = excl || exclusiveRe.MatchString(t)
		}
		if uses && excl {
			return true
		}
	}
	return false
}

// reportNarrowerDecline reports a decline that no longer tests the
// dropped disjuncts: the function takes events meant for other entries.
// Only with exclusive waiters in its file is that a lost wake-up (the one
// wake-up of an event can go to the wrong sleeper); otherwise the extra
// wake-ups are spurious and harmless, and nothing is said.
func (r *checker) reportNarrowerDecline(old, nw *wfunc, o, n wakeReturn, dropped []string) {
	if r.tree == nil {
		return
	}
	if !r.exclusiveEntriesOf(nw) {
		return
	}
	what := strings.Join(dropped, " || ")
	fr := report.Finding{
		Category: CategoryWakeFunc,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: n.line,
		Message:  fmt.Sprintf("wake function %s() no longer declines events for other entries (`%s`), and its file has exclusive waiters", nw.Name, what),
		Evidence: []string{nw.evidence(n.line)},
		Old:      []string{old.evidence(o.line)},
	}
	fr.Chain = append(fr.Chain, report.Step{Func: nw.Name, File: nw.File, Line: n.line, What: "declines only if: " + n.conds[len(n.conds)-1]})
	fr.Evidence = append(fr.Evidence, interleaving("the waker of object A", "sleepers on the shared queue", [][2]string{
		{"", "B's exclusive waiter queued first, A's after it"},
		{"wakes one exclusive entry for A", ""},
		{"", nw.Name + "(): B's entry matches now, woken"},
		{"", "B finds nothing for it and sleeps again"},
		{"", "A's waiter is never woken"},
	})...)
	fr.Explanation = fmt.Sprintf("%s() used to decline an event when `%s`; without that test it wakes entries that wait for another object on the same queue. With exclusive waits the event's one wake-up is counted as given once such an entry takes it, so the waiter the event was for sleeps on. Keep the test of every field of the key.",
		nw.Name, what)
	r.add(fr)
}
