package sleep

import (
	"strings"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx"
)

// walkerCall is a call that hands a function to a walker which calls it
// in an atomic context of its own: "iterate_fd(files, 0, match_file, p)"
// runs match_file() under files->file_lock.
type walkerCall struct {
	call  cscan.Call
	fn    string
	held  []lockctx.Held
	proof *lockctx.Reach
}

// walkerCalls returns the calls of fn (in view res) that hand a function
// reaching a sleeping primitive to a walker holding an atomic context
// where it calls it.
func walkerCalls(res *lockctx.Resolver, fn *cscan.Func) []walkerCall {
	if fn == nil || res.Index() == nil {
		return nil
	}
	ix := res.Index()
	var out []walkerCall
	for _, c := range fn.Calls {
		if strings.ContainsAny(c.Name, ">.") {
			continue
		}
		var g *cscan.Func
		for i, a := range c.Args {
			name := strings.TrimPrefix(strings.TrimSpace(a), "&")
			if name == "" || !cscan.IsIdentChar(name[0]) || strings.ToUpper(name) == name {
				continue
			}
			defs := cscan.PickDefs(ix.Funcs(name), fn.File)
			if len(defs) != 1 {
				continue
			}
			if g == nil {
				gs := cscan.PickDefs(ix.Funcs(c.Name), fn.File)
				if len(gs) != 1 {
					break
				}
				g = ix.Full(gs[0])
			}
			steps, ok := res.ParamCalled(g, i)
			if !ok {
				continue
			}
			held := res.ParamCallHeld(g, i)
			if len(held) == 0 {
				continue
			}
			s := res.SummaryOf(defs[0])
			if !lockctx.Unconditional(s.Reach) {
				continue
			}
			chain := append([]report.Step{lockctx.StepOf(fn, c.Line, "calls "+c.Name+"()")}, steps...)
			last := chain[len(chain)-1]
			last.What += ": " + name + "()"
			chain[len(chain)-1] = last
			p := *s.Reach
			p.Steps = append(chain, s.Reach.Steps...)
			out = append(out, walkerCall{call: c, fn: name, held: held, proof: &p})
		}
	}
	return out
}

// walkers reports the functions nf newly hands to a walker that calls
// them in atomic context while they may sleep (the old version did not
// make such a call with that function).
func (r *checker) walkers(nf, of *cscan.Func) {
	old := map[string]bool{}
	for _, w := range walkerCalls(r.oldR, of) {
		old[w.call.Name+"|"+w.fn] = true
	}
	for _, w := range walkerCalls(r.newR, nf) {
		if old[w.call.Name+"|"+w.fn] {
			continue
		}
		r.report(nf, w.call.Line, effective(lockctx.State{Held: w.held}, w.proof), w.proof, "")
	}
}
