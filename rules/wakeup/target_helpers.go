package wakeup

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
)

// A waiter often tests its state through a helper it hands the object:
// swait_event(rdp->nocb_cb_wq, nocb_cb_wait_cond(rdp)), whose body reads
// !READ_ONCE(rdp->nocb_cb_sleep). The members the helper reads through
// that parameter are the waiter's state as much as those its condition
// names itself (condFields).

// maxCondHelperLines bounds the size of a condition helper read for the
// members it tests.
const maxCondHelperLines = 40

// waiterFields returns condFields of waiters with, with a tree, the
// members their condition helpers read through the parameter that
// receives the queue's object.
func (r *checker) waiterFields(waiters []*wsite) map[string]bool {
	out := condFields(waiters)
	if r.tree == nil {
		return out
	}
	for _, w := range waiters {
		obj := waiterObject(w)
		if obj == "" {
			continue
		}
		for m := range r.helperFields(w, obj) {
			out[m] = true
		}
	}
	return out
}

// helperFields returns the members that the functions waiter w's
// condition calls with obj as an argument read through that parameter.
func (r *checker) helperFields(w *wsite, obj string) map[string]bool {
	out := map[string]bool{}
	cond := waitCond(w)
	for _, m := range condCallNameRe.FindAllStringSubmatchIndex(cond, -1) {
		name := cond[m[2]:m[3]]
		args, ok := cscan.SplitArgs(cond[m[1]:], len(cond))
		if !ok {
			continue
		}
		k := -1
		for i, a := range args {
			if stripAddr(a) == obj {
				k = i
				break
			}
		}
		if k < 0 {
			continue
		}
		defs := cscan.PickDefs(r.pass.Index.Funcs(name), w.Fn.File)
		if len(defs) == 0 || defs[0].End-defs[0].Start > maxCondHelperLines {
			continue
		}
		v := r.tree.view(defs[0])
		params := paramNames(v.header(), name)
		if k >= len(params) || params[k] == "" {
			continue
		}
		for l := v.F.BodyStart + 1; l <= v.F.End; l++ {
			for f := range memberReadsThrough(v.lines[l], params[k]) {
				out[f] = true
			}
		}
	}
	return out
}

// memberReadsThrough returns the members line reads directly through
// variable p (p->m or p.m, p not itself a member of something else).
func memberReadsThrough(line, p string) map[string]bool {
	out := map[string]bool{}
	t := strings.Join(strings.Fields(line), "")
	for _, m := range memberReadRe.FindAllStringSubmatchIndex(t, -1) {
		before := t[:m[0]]
		if !strings.HasSuffix(before, p) {
			continue
		}
		if i := len(before) - len(p); i > 0 && (isIdentByte(before[i-1]) || before[i-1] == '>' || before[i-1] == '.') {
			continue
		}
		out[t[m[2]:m[3]]] = true
	}
	return out
}
