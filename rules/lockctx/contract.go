package lockctx

import "github.com/autosel-bot/autosel-bot/cscan"

// ArgContract is implemented by an ArgTarget whose deciding argument is
// part of an interface's contract: a parameter declared with such a type
// (a gfp_t) tells every implementation of a function pointer what it may
// do. A call through the pointer passing a value that reaches the target
// (GFP_KERNEL in atomic context) is then wrong whichever implementation
// runs, even when only some of them use the parameter that way.
type ArgContract interface {
	// Contract reports whether a parameter declared as decl ("gfp_t gfp")
	// carries the contract.
	Contract(decl string) bool
}

// contractParam reports whether parameter i of fn carries the target's
// contract (see ArgContract).
func (r *Resolver) contractParam(fn *cscan.Func, i int) bool {
	ac, ok := r.m.target.(ArgContract)
	if !ok {
		return false
	}
	ds := r.typ.ParamDecls(fn)
	return i >= 0 && i < len(ds) && ac.Contract(ds[i])
}

// ContractParam reports whether parameter i of fn carries the target's
// contract (see ArgContract).
func (r *Resolver) ContractParam(fn *cscan.Func, i int) bool {
	return r.contractParam(fn, i)
}
