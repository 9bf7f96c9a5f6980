package wakeup

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// A poll function is a waiter whose condition is the mask it returns:
// poll_wait() queues the caller's entry, then the function reads the
// object's state and reports the events that hold. select()/poll()/epoll
// sleep until a wake-up on a registered queue, call the function again,
// and sleep once more when the mask is empty. So every event that a waker
// signals on the queue (a store to the object, then a wake-up) must show
// in the mask: when the patch stops reading a member that a waker of one
// of the function's queues stores just before waking it (a disconnect
// clearing ->present, then wake_up()), the re-poll finds nothing and the
// caller sleeps on a queue nobody will wake again.

// maxPollHelperCalls bounds the helpers the new poll function newly calls
// that are searched for the member it stopped reading.
const maxPollHelperCalls = 8

// checkPollCondDropped compares the members that function old's poll
// mask reads after its poll_wait() calls with those of the new version
// nw, and reports a member no longer read that a waker of the polled
// queues stores before waking one.
func (r *checker) checkPollCondDropped(old, nw *wfunc) {
	oq, from := pollQueues(old)
	nq, _ := pollQueues(nw)
	if len(oq) == 0 || len(nq) == 0 {
		return
	}
	// A member the new version still names anywhere (before poll_wait(),
	// in a local it tests later) is not dropped.
	was, still := maskFields(old, from), maskFields(nw, 0)
	var dropped []string
	for f := range was {
		if !still[f] {
			dropped = append(dropped, f)
		}
	}
	if len(dropped) == 0 {
		return
	}
	sort.Strings(dropped)
	helpers := r.newHelpers(old, nw)
	for _, f := range dropped {
		if r.helperReads(helpers, nw.File, f) {
			continue
		}
		// The member of the same object: the waker's store names it
		// through a variable of the name the old mask read it through
		// (usblp->present, hidraw->exist), not any struct's ->state.
		re := memberBaseRe(f)
		bases := memberBases(old, re)
		for _, q := range nq {
			for _, w := range r.wakersOf(q.Q) {
				if w.Fn.Name == nw.Name || w.Derived {
					continue
				}
				if st, by := r.storeBeforeWake(w, f); st != "" && bases[memberBase(st, re)] {
					r.reportPollDropped(old, nw, q, f, st, by, w)
					return
				}
			}
		}
	}
}

// pollQueues returns f's poll_wait() sites and the line of the first.
func pollQueues(f *wfunc) ([]*wsite, int) {
	if f == nil {
		return nil, 0
	}
	var out []*wsite
	first := 0
	for _, s := range f.sitesOn(siteWait, "") {
		if s.WKind != "poll" || s.Q == "" {
			continue
		}
		out = append(out, s)
		if first == 0 || s.Line() < first {
			first = s.Line()
		}
	}
	return out, first
}

// memberBaseRe finds the last identifier of the expression a member is
// read from ("list->hidraw->exist" -> hidraw).
func memberBaseRe(member string) *regexp.Regexp {
	return regexp.MustCompile(`([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:->|\.)\s*` + regexp.QuoteMeta(member) + `\b`)
}

// memberBases returns the last identifiers of the expressions f's code
// reads a member through (re: memberBaseRe of the member).
func memberBases(f *wfunc, re *regexp.Regexp) map[string]bool {
	out := map[string]bool{}
	for _, t := range f.lines {
		for _, m := range re.FindAllStringSubmatch(codeOnly(t), -1) {
			out[m[1]] = true
		}
	}
	return out
}

// memberBase returns the last identifier of the expression line t
// reaches a member through (re: memberBaseRe of the member), "" if none.
func memberBase(t string, re *regexp.Regexp) string {
	if m := re.FindStringSubmatch(codeOnly(t)); m != nil {
		return m[1]
	}
	return ""
}

// storedFields returns the members line t stores: for an assignment the
// members on its left (a read on the right, "x = dev->present", is no
// store of present), for a store through a call (WRITE_ONCE, set_bit)
// those the line names.
func storedFields(t string) []string {
	code := codeOnly(t)
	if i := assignAt(code); i >= 0 {
		return fieldsIn(code[:i])
	}
	return fieldsIn(code)
}

// assignAt returns the offset of the first assignment operator of code
// ("=", "+=", "|=" ..., "++", "--"; not "==", "!=", "<=" or ">="), -1 if
// none.
func assignAt(code string) int {
	for i := 0; i < len(code); i++ {
		switch c := code[i]; {
		case (c == '+' || c == '-') && i+1 < len(code) && code[i+1] == c:
			return i
		case c == '=':
			if i+1 < len(code) && code[i+1] == '=' {
				i++
				continue
			}
			if i > 0 && strings.ContainsRune("!<>=", rune(code[i-1])) && !(i > 1 && (code[i-2] == '<' || code[i-2] == '>')) {
				continue
			}
			j := i
			for j > 0 && strings.ContainsRune("+-*/%&|^<>", rune(code[j-1])) {
				j--
			}
			return j
		}
	}
	return -1
}

// maskFields returns the struct members read on f's code lines after
// line from: what the poll mask is computed from.
func maskFields(f *wfunc, from int) map[string]bool {
	out := map[string]bool{}
	for l, t := range f.lines {
		if l <= from {
			continue
		}
		for _, x := range fieldsIn(codeOnly(t)) {
			out[x] = true
		}
	}
	return out
}

// newHelpers returns the functions nw calls that old did not: a helper
// that took over part of the mask.
func (r *checker) newHelpers(old, nw *wfunc) []string {
	if old.F == nil || nw.F == nil {
		return nil
	}
	had := map[string]bool{}
	for _, c := range old.F.Calls {
		had[c.Name] = true
	}
	var out []string
	for _, c := range nw.F.Calls {
		if had[c.Name] || trivialCalls[c.Name] || r.p.isPrimitive(c.Name) || r.p.locks.Primitive(c.Name) {
			continue
		}
		had[c.Name] = true
		out = append(out, c.Name)
	}
	return out
}

// helperReads reports whether one of the helpers (defined in the tree
// near file) reads member f, or whether one cannot be looked at: a helper
// the index does not know may read it.
func (r *checker) helperReads(helpers []string, file, f string) bool {
	if len(helpers) > maxPollHelperCalls {
		return true
	}
	for _, h := range helpers {
		if strings.Contains(h, "->") || strings.Contains(h, ".") || r.pass.Index == nil {
			return true
		}
		defs := cscan.PickDefs(r.pass.Index.Funcs(h), file)
		if len(defs) == 0 {
			return true
		}
		for _, fn := range defs {
			if maskFields(r.tree.view(fn), 0)[f] {
				return true
			}
		}
	}
	return false
}

func (r *checker) reportPollDropped(old, nw *wfunc, q *wsite, field, store, by string, w *wsite) {
	line := q.Line()
	f := report.Finding{
		Category: CategoryWaiterCond,
		Severity: report.SeverityRisk,
		File:     nw.File, Func: nw.Name, Line: line, Key: q.Q,
		Message:  fmt.Sprintf("%s() no longer reads `%s` for its poll mask, but %s", nw.Name, field, storeAndWake(by, w, q.Q)),
		Evidence: []string{nw.evidence(line)},
	}
	for l, t := range old.lines {
		if old.changed(l) && contains(fieldsIn(codeOnly(t)), field) {
			f.Old = append(f.Old, old.evidence(l))
		}
	}
	sort.Strings(f.Old)
	f.Chain = append(f.Chain, step(q, "polls: "+q.Text()),
		report.Step{Func: w.Fn.Name, File: w.Fn.File, Line: w.Line(), What: "wakes after " + by + "() stores `" + strings.TrimSpace(codeOnly(store)) + "`: " + w.Text()})
	f.Evidence = append(f.Evidence, interleaving(nw.Name+"() via poll()", by+"(), "+w.Fn.Name+"()", [][2]string{
		{"poll_wait(" + q.Q + "); mask empty", ""},
		{"sleeps in poll()/select()", ""},
		{"", strings.TrimSpace(codeOnly(store))},
		{"", w.Text()},
		{"re-polls: `" + field + "` is not read, mask empty", ""},
		{"sleeps again; nothing wakes it", ""},
	})...)
	f.Explanation = fmt.Sprintf("The old %s() computed its poll mask from `%s` too; %s, so that event is one the poller must see. "+
		"poll()/select()/epoll call the function again after the wake-up and sleep once more when the mask is empty: without the test the caller never learns of the event "+
		"(a disconnect that should give EPOLLHUP or EPOLLERR) and sleeps on a queue that may never be woken again. Keep reading `%s` for the mask.",
		nw.Name, field, storeAndWake(by, w, q.Q), field)
	r.add(f)
}

// storeAndWake says who stores and who wakes: "f() stores it and then
// wakes q", or "f() stores it before g() wakes q".
func storeAndWake(by string, w *wsite, q string) string {
	if by == w.Fn.Name {
		return fmt.Sprintf("%s() stores it and then wakes %s", by, q)
	}
	return fmt.Sprintf("%s() stores it before %s() wakes %s", by, w.Fn.Name, q)
}

// maxStoreCallers bounds the callers of a waker searched for a store made
// before the call that wakes.
const maxStoreCallers = 8

// storeBeforeWake returns the store of field that happens before waker
// w's wake-up: in w's function just above it, in a function of the same
// file that w's function calls just above it (a mark_dead() helper), or
// in a caller of w's function just above its call (a disconnect that
// marks the device dead, then calls the helper that wakes), and the
// function that makes it. "" if none.
func (r *checker) storeBeforeWake(w *wsite, field string) (string, string) {
	fields := map[string]bool{field: true}
	if st := storeOfFields(w.Fn, w.Line(), fields); st != "" {
		return st, w.Fn.Name
	}
	if st, by := r.storeInCallees(w.Fn, w.Line(), fields); st != "" {
		return st, by
	}
	if r.pass.Index == nil || w.Fn.F == nil {
		return "", ""
	}
	callers := r.pass.Index.Callers(w.Fn.Name)
	if len(callers) > maxStoreCallers {
		return "", ""
	}
	for _, cs := range callers {
		if cs.Func == nil || cs.Func.File != w.Fn.F.File || cs.Func.Name == w.Fn.Name {
			continue
		}
		cf := r.tree.view(cs.Func)
		if st := storeOfFields(cf, cs.Call.Line, fields); st != "" {
			return st, cf.Name
		}
		if st, by := r.storeInCallees(cf, cs.Call.Line, fields); st != "" {
			return st, by
		}
	}
	return "", ""
}

// storeInCallees returns a store of fields made by a function of f's file
// that f calls in the lines just above line, and that function's name.
func (r *checker) storeInCallees(f *wfunc, line int, fields map[string]bool) (string, string) {
	if f.F == nil || r.pass.Index == nil {
		return "", ""
	}
	full := f.F
	if len(full.Calls) == 0 {
		if full = r.pass.Index.Full(f.F); full == nil {
			return "", ""
		}
	}
	for _, c := range full.Calls {
		if c.Line >= line || c.Line < line-maxStoreLines || r.p.isPrimitive(c.Name) || r.p.locks.Primitive(c.Name) {
			continue
		}
		for _, fn := range r.pass.Index.Funcs(c.Name) {
			if fn.File != f.F.File {
				continue
			}
			cf := r.tree.view(fn)
			lines := make([]int, 0, len(cf.lines))
			for l := range cf.lines {
				lines = append(lines, l)
			}
			sort.Ints(lines)
			for _, l := range lines {
				if t := cf.lines[l]; isStore(t) {
					for _, x := range storedFields(t) {
						if fields[x] {
							return strings.TrimSpace(t), fn.Name
						}
					}
				}
			}
		}
	}
	return "", ""
}
