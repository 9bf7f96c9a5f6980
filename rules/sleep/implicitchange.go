package sleep

import (
	"fmt"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// implicitChange reports the functions of the files a patch changes that
// it leaves alone but now runs in an atomic context it did not run in
// before, where they may sleep: the patch removed what lifted a callback
// row (gpio_chip.can_sleep, a PCM's nonatomic), or assigned the function
// to a member called in atomic context. contextChange covers the
// registrations made by calls of the functions the patch touches.
func (r *checker) implicitChange() {
	ix, oldIx := r.p.Index, r.oldR.Index()
	if ix == nil || oldIx == nil {
		return
	}
	for _, path := range ix.OverlaidPaths() {
		f := ix.File(path)
		if f == nil {
			continue
		}
		for _, fn := range f.Funcs {
			if fn.Name == "" || r.touches(fn.Name) {
				continue
			}
			r.implicitChangeOf(fn, oldIx)
		}
	}
}

// implicitChangeOf checks one function left alone in a changed file.
func (r *checker) implicitChangeOf(fn *cscan.Func, oldIx *index.Index) {
	now := r.newR.Implicit(fn)
	if len(now) == 0 {
		return
	}
	og := treeDef(oldIx, fn.Name, fn.File)
	var before []lockctx.Held
	if og != nil {
		before = r.oldR.Implicit(og)
	}
	var added []lockctx.Held
	for _, h := range now {
		if !hasKind(before, h.Kind) {
			added = append(added, h)
		}
	}
	if len(added) == 0 {
		return
	}
	g := r.p.Index.Full(fn)
	if g == nil {
		return
	}
	old := map[string]bool{}
	if og != nil {
		for _, e := range events(r.oldR, og) {
			old[eventKey(e)] = true
		}
	}
	owner, at := r.registeringChange(added)
	for _, e := range eventsFrom(r.newR, g, lockctx.State{Held: added}) {
		if old[eventKey(e)] {
			continue
		}
		f, ok := r.finding(g, e.call.Line, e.state, e.proof, "")
		if !ok {
			continue
		}
		if owner != nil {
			// The finding belongs to the function the patch changed,
			// the one registering fn (it removed can_sleep beside the
			// assignment, or made the assignment), not to fn.
			f = changedBy(f, owner, at, fn.Name)
		}
		r.p.Report(f)
	}
}

// changedBy returns finding f, about function g that the patch leaves
// alone, as the finding of owner, the function whose change at line
// changed g's context.
func changedBy(f report.Finding, owner *cscan.Func, line int, g string) report.Finding {
	f.Func, f.File, f.Line = owner.Name, owner.File, line
	f.Message = fmt.Sprintf("%s() changes the context of %s(): %s", owner.Name, g, f.Message)
	return f
}

// registeringChange returns the function the patch touches whose body
// makes the registration of one of the contexts added (h.At: the
// assignment to the member, the registration call), and that line; nil
// when the registration is made elsewhere.
func (r *checker) registeringChange(added []lockctx.Held) (*cscan.Func, int) {
	for _, h := range added {
		if h.At.File == "" || h.At.Line == 0 {
			continue
		}
		if fn := r.p.Index.File(h.At.File).FuncAt(h.At.Line); fn != nil && r.touches(fn.Name) {
			return fn, h.At.Line
		}
	}
	return nil, 0
}

// hasKind reports whether hs holds a context of kind.
func hasKind(hs []lockctx.Held, kind string) bool {
	for _, h := range hs {
		if h.Kind == kind {
			return true
		}
	}
	return false
}
