package wakeup

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// Wrapper wakers: small helpers that wake the queue they are handed
// (a driver's foo_wake(q) testing waitqueue_active() first). With a tree, a call of
// an unknown function whose body (a few lines) wakes one of its
// parameters counts as a wake-up of the queue passed in that position; a
// small helper that unconditionally wakes a typed or global queue counts
// as a wake-up of that queue.

// maxWrapperLines bounds the size of a function taken as a wrapper.
const maxWrapperLines = 20

var paramIdentRe = regexp.MustCompile(`([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*$`)

// paramNames returns the parameter names of a function header.
func paramNames(header, name string) []string {
	i := strings.Index(header, name)
	if i < 0 {
		return nil
	}
	h := header[i+len(name):]
	open := strings.IndexByte(h, '(')
	if open < 0 {
		return nil
	}
	depth, end := 0, -1
	for j := open; j < len(h); j++ {
		switch h[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				end = j
			}
		}
		if end >= 0 {
			break
		}
	}
	if end < 0 {
		return nil
	}
	var out []string
	for _, p := range strings.Split(h[open+1:end], ",") {
		m := paramIdentRe.FindStringSubmatch(strings.TrimSpace(p))
		if m == nil {
			out = append(out, "")
			continue
		}
		out = append(out, m[1])
	}
	return out
}

// header returns the lines of f's header, up to its opening brace, as
// one line.
func (f *wfunc) header() string {
	var head strings.Builder
	for l := f.F.Start; l <= f.F.BodyStart && l > 0; l++ {
		head.WriteString(f.lines[l])
		head.WriteByte(' ')
	}
	return head.String()
}

// wrapperWake is a wrapper's wake-up of one of its parameters.
type wrapperWake struct {
	param int
	inner *wsite
	// gated: the wake-up tests for sleepers without a barrier
	// (waitqueue_active()), so it is no unconditional wake-up.
	gated bool
	// derived: found through another helper or a member call.
	derived bool
}

// wrapperOf returns the wake-up a call of name performs on one of its
// arguments, nil if name is not a wrapper waker (memoised per run).
func (r *checker) wrapperOf(name, file string) *wrapperWake {
	if r.wrappers == nil {
		r.wrappers = map[string]*wrapperWake{}
	}
	if w, ok := r.wrappers[name]; ok {
		return w
	}
	r.wrappers[name] = nil
	if r.tree == nil || r.p.isPrimitive(name) || r.p.takesLock(name) || r.p.ordering(name) != "" || r.p.taskWakers[name] != nil {
		return nil
	}
	fns := lockctx.DropConfigStubs(cscan.PickDefs(r.pass.Index.Funcs(name), file))
	if len(fns) == 0 || fns[0].End-fns[0].Start > maxHelperLines {
		return nil
	}
	v := r.tree.view(fns[0])
	if fns[0].End-fns[0].Start > maxWrapperLines {
		return r.helperWake(name, v)
	}
	params := paramNames(v.header(), name)
	for _, s := range v.sitesOn(siteWake, "") {
		a := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s.Arg), "&"))
		for i, p := range params {
			if p != "" && a == p {
				w := &wrapperWake{param: i, inner: s}
				r.wrappers[name] = w
				return w
			}
		}
	}
	return r.helperWake(name, v)
}

// maxHelperLines bounds the size of a helper whose own wake-ups count as
// wake-ups of its callers.
const maxHelperLines = 40

// helperWake returns the wake-up a small helper v performs
// unconditionally on a queue that has the same key wherever it is named (a
// field of a typed object, a global queue): a caller of the helper wakes
// that queue (nfs_mark_client_ready() waking nfs_client_active_wq).
func (r *checker) helperWake(name string, v *wfunc) *wrapperWake {
	held := handedOn(v, paramNames(v.header(), name))
	for _, s := range v.sitesOn(siteWake, "") {
		ok, lockless := r.sleeperGuardsOnly(s.Call.Guards)
		if !globalKey(s.Q) || !ok || lookedUp(v, s, held) {
			continue
		}
		w := &wrapperWake{param: -1, inner: s, gated: lockless}
		r.wrappers[name] = w
		return w
	}
	if w := r.calleeWake(v); w != nil {
		r.wrappers[name] = w
		return w
	}
	return nil
}

// lookedUp reports whether wake-up s of helper v is made on a local that
// holds neither what v was handed nor an alias of it (a buffer the helper
// looks up by number): waking it announces nothing the caller did.
func lookedUp(v *wfunc, s *wsite, held map[string]bool) bool {
	head := firstIdent(stripAddr(s.Arg))
	return v.vt != nil && (v.vt.locals[head] || v.vt.types[head] != "") && !held[head]
}

// lookedUpArgs reports whether call c of helper v is made only on locals
// that hold neither what v was handed nor an alias of it (lookedUp).
func lookedUpArgs(v *wfunc, c cscan.Call, held map[string]bool) bool {
	if len(c.Args) == 0 || v.vt == nil {
		return false
	}
	for _, a := range c.Args {
		head := firstIdent(stripAddr(a))
		if !v.vt.locals[head] && v.vt.types[head] == "" || held[head] {
			return false
		}
	}
	return true
}

// sleeperGuardsOnly reports whether guards are at most one if testing for
// sleepers, besides loops over objects: the wake-up then reaches every
// waiter already queued, as an unconditional one does (a loop over the
// objects wakes each one's: iio_buffer_wakeup_poll() waking every
// attached buffer's pollq). lockless is set when the test has no barrier built in
// (waitqueue_active(), not wq_has_sleeper()): the caller must order its
// stores before the call.
func (r *checker) sleeperGuardsOnly(guards []cscan.Guard) (ok, lockless bool) {
	guards = slices.DeleteFunc(slices.Clone(guards), objectLoop)
	if len(guards) == 0 {
		return true, false
	}
	if len(guards) > 1 || guards[0].Kind != "if" {
		return false, false
	}
	c := strings.TrimSpace(guards[0].Cond)
	i := strings.IndexByte(c, '(')
	if i <= 0 || !strings.HasSuffix(c, ")") {
		return false, false
	}
	a := r.p.actives[strings.TrimSpace(c[:i])]
	if a == nil {
		return false, false
	}
	return true, !a.Barrier
}

// objectLoop reports whether guard g is a loop over objects: a for loop
// (its header has the ';'s) or an iterator macro (list_for_each_entry()),
// not a while loop whose condition gates the wake-up.
func objectLoop(g cscan.Guard) bool {
	return g.Kind == "loop" && (strings.Contains(g.Cond, ";") || strings.Contains(g.Cond, "for_each") || strings.Contains(g.Cond, "foreach"))
}

// maxWrapDepth bounds the helpers followed through helpers (calleeWake).
const maxWrapDepth = 3

// nullCheckRe matches a guard that only tests a pointer for NULL.
var nullCheckRe = regexp.MustCompile(`^!?\s*\(?\s*[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*\s*\)?(?:\s*!=\s*NULL)?$`)

// calleeWake returns the wake-up a small helper v performs through a call
// it makes unconditionally (or under a NULL check of what it calls with):
// a helper of a fixed queue, or a call through a function-pointer member
// whose functions wake one (tty_port_tty_wakeup() calling
// port->client_ops->write_wakeup(), whose default ends in tty_wakeup()).
func (r *checker) calleeWake(v *wfunc) *wrapperWake {
	if v.F == nil || r.wrapDepth >= maxWrapDepth {
		return nil
	}
	r.wrapDepth++
	defer func() { r.wrapDepth-- }()
	held := handedOn(v, paramNames(v.header(), v.Name))
	for _, c := range v.F.Calls {
		if r.p.isPrimitive(c.Name) || !nullGuardsOnly(c.Guards) || lookedUpArgs(v, c, held) {
			continue
		}
		w := r.wrapperOf(c.Name, v.File)
		if w == nil {
			w = r.memberWrapperOf(c, v)
		}
		if w == nil {
			w = r.deferredWake(c, v.File)
		}
		for _, t := range indirectTargets(c) {
			if w == nil {
				w = r.wrapperOf(t.Name, v.File)
			}
			if w == nil {
				w = r.memberWrapperOf(t, v)
			}
		}
		if w != nil && w.param < 0 && (w.inner.Breadth != "nr" || constNr.MatchString(w.inner.Nr)) && !r.takenBefore(v, c.Line, w.inner.Q) {
			// (A breadth the helper's caller decides is the helper
			// breadth check's business.)
			return &wrapperWake{param: -1, inner: w.inner, gated: w.gated, derived: true}
		}
	}
	return nil
}

// constNr matches a wake-up count written as a number.
var constNr = regexp.MustCompile(`^\d+$`)

// nullGuardsOnly reports whether guards are at most ifs testing pointers
// for NULL.
func nullGuardsOnly(guards []cscan.Guard) bool {
	for _, g := range guards {
		if g.Kind != "if" || !nullCheckRe.MatchString(strings.TrimSpace(g.Cond)) {
			return false
		}
	}
	return true
}

// globalKey reports whether queue key q names the same queue in every
// function: not a local, not a field of an untyped pointer, not a call's
// result.
func globalKey(q string) bool {
	plain := q
	if i := strings.IndexByte(plain, ':'); i >= 0 && prefixedKind(plain[:i]) {
		plain = plain[i+1:]
	}
	return plain != "" && !strings.HasPrefix(plain, "local:") && !weakKey(plain) && identRe.MatchString(strings.SplitN(plain, ".", 2)[0])
}

// addWrapperSites adds the wake-ups f performs through wrapper wakers.
func (r *checker) addWrapperSites(f *wfunc) {
	if f == nil || f.F == nil || r.tree == nil {
		return
	}
	added := false
	for _, c := range f.F.Calls {
		if r.p.isPrimitive(c.Name) {
			continue
		}
		w := r.wrapperOf(c.Name, f.File)
		if len(c.Args) == 0 && (w == nil || w.param >= 0) {
			// Only a helper of a fixed queue wakes without arguments
			// (rfcomm_schedule() waking rfcomm_wq).
			continue
		}
		member, deferred := false, false
		if w == nil {
			if w = r.memberWrapperOf(c, f); w != nil {
				c.Name = memberCallName(c, f)
				member = true
			}
		}
		if w == nil {
			w = r.deferredWake(c, f.File)
			deferred = w != nil
		}
		for _, t := range indirectTargets(c) {
			if w != nil {
				break
			}
			if w = r.wrapperOf(t.Name, f.File); w == nil {
				w = r.memberWrapperOf(t, f)
			}
			if w != nil {
				c = t
				member = true // a wake-up through a pointer: evidence, not cover
			}
		}
		if w == nil || w.param >= len(c.Args) {
			continue
		}
		in := w.inner
		s := &wsite{Kind: siteWake, Fn: f, Call: c, Arg: in.Arg, Breadth: in.Breadth, Nr: in.Nr, Mode: in.Mode, Sync: in.Sync, PollKey: in.PollKey, WKind: in.WKind, Q: in.Q, Gated: w.gated, Derived: w.derived || w.gated || member}
		if row := r.p.waker(in.Call.Name); row != nil && row.Lockless {
			s.Gated = true
		}
		if w.gated {
			// Whether it wakes anyone depends on a racy load the
			// caller must order: evidence for the barrier between
			// them, not a wake-up to remove, move or cover with.
			s.Kind = siteGatedWake
		}
		if base, _, ok := typing.PointerMember(c.Name); ok {
			if ws := identWords(base); len(ws) > 0 {
				s.Obj = ws[0]
			}
		} else if deferred {
			if ws := identWords(stripAddr(c.Args[r.p.deferQueue[c.Name].Item])); len(ws) > 0 {
				s.Obj = ws[0]
			}
		} else if len(c.Args) > 0 && w.param < 0 {
			if ws := identWords(stripAddr(c.Args[0])); len(ws) > 0 {
				s.Obj = ws[0]
			}
		}
		if w.param >= 0 {
			s.Arg = c.Args[w.param]
			s.Q = queueKey(s.Arg, f.vt, f.Name)
			if prefixedKind(in.WKind) {
				s.Q = in.WKind + ":" + s.Q
			}
		}
		f.Sites = append(f.Sites, s)
		added = true
	}
	if added {
		sort.SliceStable(f.Sites, func(i, j int) bool { return f.Sites[i].Line() < f.Sites[j].Line() })
	}
}
