package wakeup

import (
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
const maxMemberImpls = 64

// memberWrapperOf returns the wake-up a call through a function-pointer
// member performs, from the functions assigned to that member of the
// base's struct type; nil when none of them wakes a queue.
func (r *checker) memberWrapperOf(c cscan.Call, f *wfunc) *wrapperWake {
	if r.tree == nil || r.typ == nil {
		return nil
	}
	base, member, ok := typing.PointerMember(c.Name)
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
	for _, a := range as {
		if seen[a.Func] || !r.assignsTag(a.Struct, a.Base, a.File, a.Line, tag) {
			continue
		}
		seen[a.Func] = true
		if w := r.wrapperOf(a.Func, a.File); w != nil {
			r.wrappers[memo] = w
			return w
		}
	}
	return nil
}

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
