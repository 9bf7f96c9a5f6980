package wakeup

import (
	"path"
	"regexp"
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// Wake-ups through function-pointer members.
//
// A call through a member ("sk->sk_state_change(sk)") runs whatever
// function the object was given; when one of the functions assigned to
// that member of that struct type is a wrapper waker (wrapper.go) — the
// default sock_def_wakeup() waking the socket's queue — the call is a
// wake-up of that queue for the waiters that sleep on it, and removing
// it removes the wake-up they rely on.

// maxMemberImpls bounds the assignments of a member examined.
const maxMemberImpls = 256

// memberWrapperOf returns the wake-up a call through a function-pointer
// member performs, from the functions assigned to that member of the
// base's struct type; nil when none of them wakes a queue.
func (r *checker) memberWrapperOf(c cscan.Call, f *wfunc) *wrapperWake {
	if r.tree == nil || r.typ == nil {
		return nil
	}
	base, member, ok := typing.PointerMember(memberCallName(c, f))
	if !ok || !identRe.MatchString(member) {
		return nil
	}
	tag := r.exprTag(base, f)
	if tag == "" {
		return nil
	}
	memo := "ops:" + tag + "." + member
	if w, ok := r.wrappers[memo]; ok {
		return w
	}
	r.wrappers[memo] = nil
	as := r.pass.Index.AssignsTo(member)
	if len(as) > maxMemberImpls {
		as = as[:maxMemberImpls]
	}
	seen := map[string]bool{}
	var best *wrapperWake
	bestRank := 0
	for _, a := range as {
		// An initialiser of another struct type is never the one: that
		// needs no file read.
		k := a.File + ":" + a.Func + ":" + a.Struct + ":" + a.Base
		if a.Struct != "" && a.Struct != tag || seen[k] {
			continue
		}
		seen[k] = true
		// Then the wrapper test: it is memoised per function and cheap
		// for the large ones; typing a plain assignment reads its file.
		w := r.wrapperOf(a.Func, a.File)
		if w == nil {
			continue
		}
		rank := implRank(w, a.File, f.File)
		if rank > bestRank && r.assignsTag(a.Struct, a.Base, a.File, a.Line, tag) {
			best, bestRank = w, rank
		}
	}
	r.wrappers[memo] = best
	return best
}

// implRank ranks a waking function assigned to a member (in file) as the
// function a call from callerFile runs: one of the caller's own
// directory first; else one waking a queue of the object by its type (a
// shared default such as sock_def_readable()); never one waking a global
// queue of another subsystem (rfcomm's own data_ready), which only the
// objects that subsystem set up reach. 0: not taken.
func implRank(w *wrapperWake, file, callerFile string) int {
	if path.Dir(file) == path.Dir(callerFile) {
		return 3
	}
	q := w.inner.Q
	if i := strings.IndexByte(q, ':'); i >= 0 && prefixedKind(q[:i]) {
		q = q[i+1:]
	}
	if w.param >= 0 || strings.Contains(q, ".") && !strings.HasPrefix(q, "*.") && !strings.HasSuffix(q, "()") {
		return 2
	}
	return 0
}

// readMemberRe matches a call of a function pointer read through
// READ_ONCE() or an RCU accessor, as the scanner names it: the accessor
// with the member expression as its argument.
var readMemberRe = regexp.MustCompile(`^(?:READ_ONCE|rcu_dereference\w*)\((\w+(?:\s*(?:->|\.)\s*\w+)+)\)$`)

// exprTag returns the struct tag of the object expression e denotes in
// f: a declared variable, or a member chain typed through the struct
// definitions (canonKey).
func (r *checker) exprTag(e string, f *wfunc) string {
	e = stripAddr(e)
	if identRe.MatchString(e) {
		if f.vt != nil {
			return f.vt.types[e]
		}
		return ""
	}
	k := r.canonKey(queueKey(e+".x", f.vt, f.Name), f.File)
	if strings.HasPrefix(k, "*.") || strings.Count(k, ".") != 1 {
		return ""
	}
	tag, _, _ := strings.Cut(k, ".")
	return tag
}

// assignsTag reports whether an assignment of a function to a member
// (initialiser of struct st, or plain assignment to base in file at
// line) is one to the member of struct tag.
func (r *checker) assignsTag(st, base, file string, line int, tag string) bool {
	if st != "" {
		return st == tag
	}
	if base == "" {
		return false
	}
	cf := r.pass.Index.File(file)
	if cf == nil {
		return false
	}
	for _, fn := range cf.Funcs {
		if fn.BodyStart <= line && line <= fn.End {
			return r.typ.ExprTag(base, fn) == tag
		}
	}
	return false
}

// siteObject returns the variable whose object holds the queue site s
// wakes or waits on: the root of its queue argument, or, for a wake-up
// through a helper or a member call, the root of the object the call is
// made on ("parent" of parent->sk_data_ready(parent)); "" when unknown.
func siteObject(s *wsite) string {
	if s.Obj != "" {
		return s.Obj
	}
	if ws := identWords(stripAddr(s.Arg)); len(ws) > 0 {
		return ws[0]
	}
	return ""
}

// otherObject reports whether sites s and o of one function reach
// their queue through two different variables of the same struct type
// (sk and parent, both struct sock *): queues keyed by type alone, but
// of two objects, so that one does not stand for the other.
func otherObject(s, o *wsite) bool {
	if o == nil || s.Fn == nil || o.Fn == nil || s.Fn.Name != o.Fn.Name || s.Fn.vt == nil || o.Fn.vt == nil {
		return false
	}
	a, b := siteObject(s), siteObject(o)
	if a == "" || b == "" || a == b {
		return false
	}
	ta, tb := s.Fn.vt.types[a], o.Fn.vt.types[b]
	return ta != "" && ta == tb
}

// memberCallName returns the name of a call through a member read with
// READ_ONCE() or an RCU accessor ("sk->sk_data_ready" for
// READ_ONCE(sk->sk_data_ready)(sk), which the scanner names READ_ONCE),
// else the call's own name.
func memberCallName(c cscan.Call, f *wfunc) string {
	m := readMemberRe.FindStringSubmatch(c.Name + "(" + strings.Join(c.Args, ",") + ")")
	if m == nil {
		return c.Name
	}
	if t := strings.Join(strings.Fields(f.text(c.Line)), ""); strings.Contains(t, strings.Join(strings.Fields(m[0]), "")+"(") {
		return strings.Join(strings.Fields(m[1]), "")
	}
	return c.Name
}

// indirectCallRe matches the kernel's INDIRECT_CALL_n() macros.
var indirectCallRe = regexp.MustCompile(`^INDIRECT_CALL_([1-4])$`)

// indirectTargets returns the calls an INDIRECT_CALL_n(f, f1, ..., fn,
// args...) may make: each likely function fi, and the call through the
// pointer f (a member read, READ_ONCE(sk->sk_write_space)), all with the
// macro's line, guards and trailing arguments; nil for another call.
func indirectTargets(c cscan.Call) []cscan.Call {
	m := indirectCallRe.FindStringSubmatch(c.Name)
	if m == nil {
		return nil
	}
	n := int(m[1][0] - '0')
	if len(c.Args) < n+1 {
		return nil
	}
	args := c.Args[n+1:]
	var out []cscan.Call
	for _, a := range c.Args[1 : n+1] {
		if name := strings.TrimSpace(a); identRe.MatchString(name) {
			out = append(out, cscan.Call{Name: name, Args: args, Line: c.Line, Guards: c.Guards})
		}
	}
	ptr := strings.Join(strings.Fields(c.Args[0]), "")
	if strings.HasPrefix(ptr, "READ_ONCE(") && strings.HasSuffix(ptr, ")") {
		ptr = ptr[len("READ_ONCE(") : len(ptr)-1]
	}
	if strings.Contains(ptr, "->") || strings.Contains(ptr, ".") {
		out = append(out, cscan.Call{Name: ptr, Args: args, Line: c.Line, Guards: c.Guards})
	}
	return out
}
