package wakeup

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
)

// Does the wake-up reach the waiter? Queue keys name a queue by the struct
// that holds it, so the wake-up of one object's queue and the wait on
// another object's queue of the same type share a key. A wake-up the
// patch now sends to another object than the one whose state the path
// changed (wake_up(&peer->wait) after storing through sk), or to another
// bit of the word than the one it cleared, keeps its key and reaches no
// waiter of that change: bit and var waiters are filtered by address and
// bit in the wake function, others sleep on another object's queue.

// maxTargetLines bounds how far above a wake-up its stores are looked for.
const maxTargetLines = 25

// checkWakeTarget compares a wake-up o with its new version n (same key):
// a new object or bit is a risk when the path stores the waiters' state
// through the old object (or clears the old bit) and not through the new
// one.
func (r *checker) checkWakeTarget(o, n *wsite) {
	if !n.Changed() || o.Q != n.Q {
		return // another key is a split or rename (split.go)
	}
	if strings.HasPrefix(n.Q, "bit:") {
		r.checkWakeBit(o, n)
		return
	}
	oo, oh := targetObject(o)
	no, nh := targetObject(n)
	if oo == "" || no == "" || oo == no || oh != nh || !oh && wakeMember(o.Arg) != wakeMember(n.Arg) {
		return
	}
	if !r.twoObjects(n.Fn, oo, no, n.Line()) {
		return
	}
	waiters := r.otherWaiters(n.Q, n.Fn.Name)
	if len(waiters) == 0 {
		return
	}
	fields := r.waiterFields(waiters)
	if len(fields) == 0 {
		return // nothing says which object's state the waiters read
	}
	store := storeThrough(n.Fn, n.Line(), oo, fields)
	if store == "" || storeThrough(n.Fn, n.Line(), no, fields) != "" {
		return
	}
	w := pickWaiter(waiters, store, n.Fn.File)
	r.reportTarget(o, n, w, store, fmt.Sprintf("wakes the queue of %s, but this path changed the state of %s", no, oo))
}

// checkWakeBit reports a wake_up_bit() moved to another bit than the one
// the path clears and the waiters of the word wait on.
func (r *checker) checkWakeBit(o, n *wsite) {
	if len(o.Call.Args) < 2 || len(n.Call.Args) < 2 {
		return
	}
	ob, nb := normLine(o.Call.Args[1]), normLine(n.Call.Args[1])
	if ob == nb {
		return
	}
	var waiters []*wsite
	for _, w := range r.otherWaiters(n.Q, n.Fn.Name) {
		if len(w.Call.Args) > 1 && normLine(w.Call.Args[1]) == ob {
			waiters = append(waiters, w)
		}
	}
	if len(waiters) == 0 {
		return
	}
	for _, w := range r.otherWaiters(n.Q, n.Fn.Name) {
		if len(w.Call.Args) > 1 && normLine(w.Call.Args[1]) == nb {
			return // the new bit has waiters of its own
		}
	}
	clear := ""
	for l := n.Line() - 1; l > 0 && l >= n.Line()-maxTargetLines; l-- {
		if t, ok := n.Fn.lines[l]; ok && bitClearRe.MatchString(t) && containsWord(t, ob) {
			clear = strings.TrimSpace(t)
			break
		}
	}
	if clear == "" {
		return
	}
	r.reportTarget(o, n, waiters[0], clear, fmt.Sprintf("wakes the waiters of bit %s, but this path cleared bit %s, which the waiters wait on", nb, ob))
}

// bitClearRe finds a call that clears a bit.
var bitClearRe = regexp.MustCompile(`\b(?:clear_bit|__clear_bit|clear_bit_unlock|test_and_clear_bit|clear_and_wake_up_bit)\s*\(`)

// reportTarget makes the risk of a wake-up that no longer reaches the
// waiters of the change before it.
func (r *checker) reportTarget(o, n, w *wsite, store, what string) {
	f := report.Finding{
		Category: CategoryTarget,
		Severity: report.SeverityRisk,
		File:     n.Fn.File, Func: n.Fn.Name, Line: n.Line(), Key: n.Q,
		Message:  fmt.Sprintf("wake-up in %s() %s", n.Fn.Name, what),
		Evidence: []string{n.Fn.evidence(n.Line())},
		Old:      []string{o.Fn.evidence(o.Line())},
	}
	f.Chain = append(f.Chain, step(w, "waits: "+w.Text()))
	f.Chain = append(f.Chain, report.Step{Func: n.Fn.Name, File: n.Fn.File, Line: n.Line(), What: "wakes elsewhere: " + n.Text()})
	f.Evidence = append(f.Evidence, interleaving(n.Fn.Name+"()", w.Fn.Name+"()", [][2]string{
		{"", w.Text()},
		{"", "  condition false: sleeps"},
		{store, ""},
		{n.Text(), ""},
		{"  (another object's queue or bit)", "not woken; sleeps on although its condition holds"},
	})...)
	f.Explanation = fmt.Sprintf("%s() used to wake with %s and now %s. The queue key is the same, but the waiters are filtered by object and bit: %s waits for %s on the object this path changed, and no wake-up reaches it. Wake the queue of the object whose state changed.",
		n.Fn.Name, o.Text(), what, siteWhere(w), condOrState(w))
	r.add(f)
}

// targetObject returns the object whose queue wake-up s wakes: for a
// wake-up through a helper or a member call, the variable it is made on
// (wakeup_pipe_readers(opipe), which wakes &pipe->rd_wait: opipe), with
// helper true, the queue's member being the helper's (the same for
// sites of one key); else the object its queue argument names.
func targetObject(s *wsite) (obj string, helper bool) {
	if s.Obj != "" {
		if len(s.Call.Args) > 0 && !strings.ContainsAny(s.Call.Name, ">.") {
			// The whole expression handed to the helper: out->peer is
			// not out.
			return strings.Join(strings.Fields(stripAddr(s.Call.Args[0])), ""), keyField(s.Q) != ""
		}
		return s.Obj, keyField(s.Q) != ""
	}
	return wakeObject(s.Arg), false
}

// twoObjects reports whether object expressions oo and no of f (the old
// and new wake-ups' at line) are two objects of one type, whose queues
// are two: two variables declared with the same struct type (or neither
// declared with one), or a variable and a member of it (tty and
// tty->link). Not when no is a copy of oo (o = out, o = bar_get(out)
// where bar_get() returns its argument), when one is a call's result
// (bar_get(out)) or their types differ (bc->port's and the tty looked up
// from it): the rule cannot tell which object that is.
func (r *checker) twoObjects(f *wfunc, oo, no string, line int) bool {
	v := indexValue(f, no, line)
	if v == oo {
		return false
	}
	if m := callArgRe.FindStringSubmatch(v); m != nil && strings.Join(strings.Fields(stripAddr(m[2])), "") == oo && r.returnsFirstParam(m[1], f.File) {
		return false
	}
	switch {
	case strings.Contains(oo, "(") || strings.Contains(no, "("):
		return false
	case identRe.MatchString(oo) && identRe.MatchString(no):
		if f.vt == nil {
			return true
		}
		return f.vt.types[oo] == f.vt.types[no]
	}
	return strings.HasPrefix(no, oo+"->") || strings.HasPrefix(no, oo+".") ||
		strings.HasPrefix(oo, no+"->") || strings.HasPrefix(oo, no+".")
}

// callArgRe matches a call with its first argument: "bar_get(out)".
var callArgRe = regexp.MustCompile(`^([A-Za-z_]\w*)\s*\(\s*([^,()]+?)\s*[,)]`)

// returnsFirstParam reports whether function name, as file sees it,
// returns its first parameter on every return (a get helper taking a
// reference: "kref_get(&c->ref); return c;").
func (r *checker) returnsFirstParam(name, file string) bool {
	if r.pass.Index == nil || r.tree == nil {
		return false
	}
	fns := cscan.PickDefs(r.pass.Index.Funcs(name), file)
	if len(fns) == 0 || len(fns[0].Returns) == 0 {
		return false
	}
	params := paramNames(r.tree.view(fns[0]).header(), name)
	if len(params) == 0 || params[0] == "" {
		return false
	}
	for _, ret := range fns[0].Returns {
		if strings.TrimSpace(ret.Expr) != params[0] {
			return false
		}
	}
	return true
}

// wakeObject returns the object a queue argument names: the argument
// without its last member ("peer" for &peer->wait, "tty->link" for
// &tty->link->write_wait), "" for a plain variable.
func wakeObject(arg string) string {
	a := strings.Join(strings.Fields(stripAddr(arg)), "")
	i := strings.LastIndex(a, "->")
	j := strings.LastIndex(a, ".")
	switch {
	case i < 0 && j < 0:
		return ""
	case i > j:
		return a[:i]
	}
	return a[:j]
}

// wakeMember returns the last member a queue argument names.
func wakeMember(arg string) string {
	a := strings.Join(strings.Fields(stripAddr(arg)), "")
	if i := strings.LastIndexAny(a, ">."); i >= 0 {
		return a[i+1:]
	}
	return a
}

// condFields returns the members the waiters' conditions read through
// the object that holds their own queue (p->done of
// wait_event(p->wq, p->done)): the state a wake-up of that object's queue
// announces. Waiters whose condition reads no such member add nothing.
func condFields(waiters []*wsite) map[string]bool {
	out := map[string]bool{}
	for _, w := range waiters {
		obj := waiterObject(w)
		if obj == "" {
			continue
		}
		for f := range memberReadsThrough(waitCond(w), obj) {
			out[f] = true
		}
	}
	return out
}

// waiterObject returns the object whose queue waiter w sleeps on: the
// object its queue argument names (wakeObject), or, for a queue an
// accessor returns (rcuwait_wait_event(kvm_arch_vcpu_get_wait(vcpu), ...),
// directly or through a local that holds it), the accessor's one
// argument. "" when neither names one.
func waiterObject(w *wsite) string {
	if obj := wakeObject(w.Arg); obj != "" {
		return obj
	}
	if structOfKey(w.Q) == "" {
		return "" // no accessor of a struct's queue
	}
	a := derefQueue(strings.Join(strings.Fields(stripAddr(w.Arg)), ""))
	if identRe.MatchString(a) {
		a = strings.Join(strings.Fields(indexValue(w.Fn, a, w.Line())), "")
	}
	if m := oneArgCallRe.FindStringSubmatch(a); m != nil {
		return stripAddr(m[1])
	}
	return ""
}

// oneArgCallRe matches a call with one argument that names an object.
var oneArgCallRe = regexp.MustCompile(`^[A-Za-z_]\w*\((&?[A-Za-z_]\w*(?:(?:->|\.)\w+)*)\)$`)

// memberReadRe finds a member access.
var memberReadRe = regexp.MustCompile(`(?:->|\.)([A-Za-z_]\w*)`)

// storeThrough returns the nearest line above line in f that stores
// through obj (obj->m = ..., WRITE_ONCE(obj->m, ...), an atomic or bit
// update of &obj->m) to a member in fields, "" if none.
func storeThrough(f *wfunc, line int, obj string, fields map[string]bool) string {
	for l := line - 1; l > 0 && l >= line-maxTargetLines; l-- {
		t, ok := f.lines[l]
		if !ok {
			continue
		}
		if handsObject(t, obj) {
			return strings.TrimSpace(t)
		}
		if !isStore(t) {
			continue
		}
		code := strings.Join(strings.Fields(codeOnly(t)), "")
		for _, sep := range []string{"->", "."} {
			for rest := code; ; {
				i := strings.Index(rest, obj+sep)
				if i < 0 {
					break
				}
				before := byte(' ')
				if i > 0 {
					before = rest[i-1]
				}
				head := rest[:i]
				rest = rest[i+len(obj)+len(sep):]
				m := identWords(rest)
				if isIdentByte(before) || before == '>' || before == '.' || len(m) == 0 {
					continue
				}
				if !assignedRe.MatchString(rest) && !storeCallRe.MatchString(head) {
					continue // read, not written
				}
				if fields[m[0]] {
					return strings.TrimSpace(t)
				}
			}
		}
	}
	return ""
}

// assignedRe matches the rest of a member chain that is assigned.
var assignedRe = regexp.MustCompile(`^\w+(?:(?:->|\.)\w+|\[[^\]]*\])*(?:[-+|&^]?=[^=]|\+\+|--)`)

// storeCallRe matches the text before an argument of a call that stores
// to it (WRITE_ONCE(x->m, ...), atomic_set(&x->m, ...), set_bit(n, &x->m)).
var storeCallRe = regexp.MustCompile(`(?:WRITE_ONCE|smp_store_release|atomic\w*_(?:inc|dec|set|add|sub|or|and|xchg|cmpxchg)\w*|refcount_\w+|set_bit|__set_bit|clear_bit\w*|__clear_bit|change_bit|list_add\w*|list_del\w*|list_move\w*|hlist_add\w*|llist_add|kref_\w+|complete\w*)\((?:[^(),]*,)?&?$`)

// handsObject reports whether line t calls a function with obj itself as
// an argument (__locks_delete_block(waiter)): the callee changes its
// state. Logging, tracing and assertions do not count.
func handsObject(t, obj string) bool {
	code := codeOnly(t)
	for _, m := range condCallRe.FindAllStringSubmatchIndex(code, -1) {
		name := code[m[2]:m[3]]
		if trivialCalls[name] || inertCallRe.MatchString(name) ||
			!mutatorNameRe.MatchString(name) && (keptValue(code[:m[0]]) || passedOn(code[:m[0]]) || comparedValue(code, m[1]-1)) {
			continue
		}
		for _, a := range topArgs(code[m[1]:]) {
			if strings.Join(strings.Fields(a), "") == obj {
				return true
			}
		}
	}
	return false
}

// keptValue reports whether the text before a call on its line assigns
// the call's value to something other than a status local (pc =
// psci_arg(vcpu), reset->be = kvm_vcpu_is_be(vcpu)): the call reads the
// object it is handed. A call made for its effect stands alone, returns a
// status (ret, err, r, ...), or is tested (if, WARN_ON(), |=).
func keptValue(before string) bool {
	m := keptValueRe.FindStringSubmatch(before)
	return m != nil && !statusLocalRe.MatchString(m[1])
}

// passedOn reports whether the text before a call makes its value an
// argument of another call (lookup(arg(vcpu))): it is read and handed
// on. A test (if, while, WARN_ON(), a branch hint) is not such a call.
func passedOn(before string) bool {
	t := strings.TrimSpace(before)
	if strings.HasSuffix(t, ",") {
		return true
	}
	m := enclosingCallRe.FindStringSubmatch(t)
	return m != nil && !testCallRe.MatchString(m[1])
}

var (
	// enclosingCallRe matches the call whose argument list a text ends
	// in.
	enclosingCallRe = regexp.MustCompile(`([A-Za-z_]\w*)\s*\(\s*[!(\s]*$`)
	// testCallRe matches what tests a value rather than reading it.
	testCallRe = regexp.MustCompile(`^(?:if|while|switch|return|WARN_ON\w*|WARN\w*|BUG_ON|likely|unlikely)$`)
)

// comparedValue reports whether the call whose argument list opens at
// code[open] has its value compared (version(vcpu) != 1): it reads the
// object. A bare test (if (test_and_set_bit(...))) may change it.
func comparedValue(code string, open int) bool {
	end := cscan.MatchParen(code, open)
	if end < 0 {
		return false
	}
	rest := strings.TrimSpace(code[end+1:])
	return strings.HasPrefix(rest, "==") || strings.HasPrefix(rest, "!=") || strings.HasPrefix(rest, "<") || strings.HasPrefix(rest, ">")
}

var (
	// keptValueRe matches the end of a plain assignment, with its target.
	keptValueRe = regexp.MustCompile(`(?:^|[;{(,])\s*(?:[A-Za-z_]\w*\s+\**\s*)*(\*?\s*[A-Za-z_](?:[\w.\[\]]|->)*)\s*=\s*$`)
	// mutatorNameRe matches the names of calls that change what they
	// are handed whatever is done with their value (a reference put, a
	// state set, a count decremented, a request finished).
	mutatorNameRe = regexp.MustCompile(`(?:^|_)(?:set|put|clear|inc|dec|add|del|remove|start|stop|finish|fill|detach|attach|take|drop|reset|submit|complete|release|free|mark|update|queue|kick)(?:_|$)`)
	// statusLocalRe matches the names kernel code gives a status local.
	statusLocalRe = regexp.MustCompile(`^\s*(?:ret|err|error|rc|r|res|result|status|rv|retval)\s*$`)
)

// inertCallRe matches calls that change no state a waiter reads.
var inertCallRe = regexp.MustCompile(`^(?:trace_\w+|\w*printk\w*|pr_\w+|dev_(?:dbg|info|warn|err|notice)\w*|WARN\w*|BUG\w*|lockdep_\w+|might_sleep|spin_\w+|raw_spin_\w+|mutex_\w+|read_\w+|write_\w+|rcu_\w+|_?enter|_?leave|kfree|kfree_rcu|put_\w+|\w+_put|get_\w+|\w+_get|\w*_(?:un)?lock(?:_\w+)?|wake_up\w*|complete\w*)$`)

// isIdentByte reports whether b may be part of a C identifier.
func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
