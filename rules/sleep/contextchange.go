package sleep

import (
	"fmt"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// contextChange reports the functions a touched function newly registers
// to run in an atomic context, when the patch leaves them alone but they
// may sleep there: request_threaded_irq(irq, NULL, fn) made
// request_irq(irq, fn), INIT_WORK(&w, fn) made timer_setup(&t, fn, 0).
// forward sees only the functions the patch touches; a registered
// function it touches is checked there, with the same contexts.
func (r *checker) contextChange(nf, of *cscan.Func) {
	if r.p.Index == nil {
		return
	}
	old := map[string]bool{}
	for _, reg := range r.oldR.Registered(of) {
		old[reg.Func+"|"+reg.Held.Kind] = true
	}
	done := map[string]bool{}
	for _, reg := range r.newR.Registered(nf) {
		key := reg.Func + "|" + reg.Held.Kind
		if old[key] || done[key] || r.touches(reg.Func) {
			continue
		}
		done[key] = true
		g := treeDef(r.p.Index, reg.Func, nf.File)
		if g == nil {
			continue
		}
		// What g did in the contexts its other registrations already
		// gave it is not this patch's doing.
		before := map[string]bool{}
		if og := treeDef(r.oldR.Index(), reg.Func, nf.File); og != nil {
			for _, e := range events(r.oldR, og) {
				before[eventKey(e)] = true
			}
		}
		entry := lockctx.State{Held: append([]lockctx.Held{reg.Held}, r.newR.Implicit(g)...)}
		for _, e := range eventsFrom(r.newR, g, entry) {
			if before[eventKey(e)] {
				continue
			}
			f, ok := r.finding(g, e.call.Line, e.state, e.proof, "")
			if !ok {
				continue
			}
			if r.touches(nf.Name) && reg.Held.At.File == nf.File && reg.Held.At.Line > 0 {
				// The finding belongs to the registration the patch
				// changed, as implicitChange's does, not to the
				// function it leaves alone.
				f = changedBy(f, nf, reg.Held.At.Line, g.Name)
			}
			r.p.Report(f)
		}
	}
}

// maxWrapperCallers bounds the callers of the wrappers a patch makes
// whose registrations wrapperChange checks.
const maxWrapperCallers = 64

// wrapperChange reports the functions that the tree's callers of nf
// register through it, when the patch made nf a registration wrapper
// (fb_register_client() now passes its notifier block to
// atomic_notifier_chain_register(), where its old version called the
// blocking chain's): they run in an atomic context now, though neither
// they nor the calls registering them changed. A caller passing its own
// parameter on is a wrapper too; its callers are checked in turn.
func (r *checker) wrapperChange(nf, of *cscan.Func) {
	if r.p.Index == nil {
		return
	}
	via, ok := r.newR.PatchWrapper(nf.Name)
	if !ok || r.newR.WrapsAs(of, via) {
		return // the old version registered the same way
	}
	queue := []string{nf.Name}
	done := map[string]bool{}
	checked := 0
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, site := range r.p.Index.Callers(name) {
			key := site.Func.File + ":" + site.Func.Name
			if done[key] {
				continue
			}
			done[key] = true
			if v, ok := r.newR.PatchWrapper(site.Func.Name); ok && v == name {
				// A wrapper of nf (the patch may touch it too): its
				// callers register through nf.
				queue = append(queue, site.Func.Name)
				continue
			}
			if r.touches(site.Func.Name) {
				continue // checked on its own (contextChange)
			}
			if checked == maxWrapperCallers {
				r.p.Note(fmt.Sprintf("sleep-in-atomic: %s() now registers to an atomic context; only %d of its callers were checked", nf.Name, maxWrapperCallers))
				return
			}
			checked++
			if g := r.p.Index.Full(site.Func); g != nil {
				r.contextChange(g, treeDef(r.oldR.Index(), g.Name, g.File))
			}
		}
	}
}

// touches reports whether the patch changes a function named name.
func (r *checker) touches(name string) bool {
	for fc := range r.newFuncs {
		if fc.Name == name {
			return true
		}
	}
	return false
}

// treeDef returns the definition of name a call from file reaches in
// view ix, with its statement tree; nil when there is none.
func treeDef(ix *index.Index, name, file string) *cscan.Func {
	if ix == nil {
		return nil
	}
	defs := cscan.PickDefs(ix.Funcs(name), file)
	if len(defs) == 0 {
		return nil
	}
	return ix.Full(defs[0])
}
