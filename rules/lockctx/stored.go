package lockctx

import (
	"context"
	"log/slog"

	"github.com/autosel-bot/autosel-bot/cscan"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/registrations"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/sumstore"
	"github.com/autosel-bot/autosel-bot/rules/lockctx/typing"
)

// The engine's side of the summary store (package sumstore): Prepare
// drives a Resolver over the whole tree, which notes on its stack what
// each summary is computed from (noteDep, noteMember) and hands the
// summary and its deps to the store's Builder when final (keep); a
// patch's Resolver reads the stored summaries that hold under its patch
// (stored) and lets the store's climb summarise through it
// (storeEngine).

// Prepare summarises every function of ix's tree with model m and stores
// the summaries (Stored), unless they are there already for the tree's
// current generation; first it stores the tree's struct typing
// (typing.Prepare), which the summarising then reads. For a persisted
// index they are written beside it, computed on an Index of their own,
// and processes preparing the same tree take turns; otherwise they are
// kept in ix's memory (sumstore.Prepare).
func Prepare(ctx context.Context, m *Model, ix *index.Index, log *slog.Logger) error {
	return prepare(ctx, m, ix, log, 0)
}

// prepare is Prepare with window files summarised by each engine
// (sumstore.Summariser.Window; 0 for the store's default).
func prepare(ctx context.Context, m *Model, ix *index.Index, log *slog.Logger, window int) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	root := ix.Underlying()
	if err := typing.Prepare(ctx, root, log); err != nil {
		return err
	}
	return sumstore.Prepare(ctx, root, sumstore.Summariser{
		ID:     m.id,
		Window: window,
		Engine: func(ix *index.Index, b *sumstore.Builder) sumstore.Engine {
			r := NewResolver(m, ix, nil)
			r.build, r.view = b, sumstore.NewView(b, ix, nil)
			return storeEngine{r}
		},
		Rows: func(ix *index.Index) []Callback { return registrations.DeriveRows(ix, m.id, m.callbacks) },
		Regs: func(ix *index.Index, rows []Callback) (registrations.StoredRegs, bool) {
			t := registrations.New(registrations.Config{Index: ix, ID: m.id, Callbacks: m.callbacks,
				Stored: func() ([]Callback, bool) { return rows, true }})
			return t.StoreTree()
		},
	}, log)
}

// Stored reports whether model m has a summary store for ix's tree in its
// current generation.
func Stored(m *Model, ix *index.Index) bool { return openStore(m, ix) != nil }

// openStore returns model m's summary store of ix's tree (nil without a
// tree, or when there is none for the index's generation).
func openStore(m *Model, ix *index.Index) sumstore.Source {
	if ix == nil {
		return nil
	}
	return sumstore.Open(ix, m.id)
}

// stored returns the stored summary of fn when there is one and the patch
// changes nothing it was computed from.
func (r *Resolver) stored(fn *cscan.Func) *Summary {
	if r.view == nil {
		return nil
	}
	ref, ok := r.storeRef(fn)
	if !ok {
		return nil
	}
	return r.view.Stored(ref)
}

// pairedOf returns the old ref of fn when fn is an unchanged function of
// a rescanned file (sumstore.View.Paired).
func (r *Resolver) pairedOf(fn *cscan.Func) (index.Ref, bool) {
	if r.view == nil {
		return 0, false
	}
	return r.view.Paired(fn)
}

// storeRef returns the ref fn's stored record is under: its old ref when
// fn is an unchanged function of a rescanned file, else its own.
func (r *Resolver) storeRef(fn *cscan.Func) (index.Ref, bool) {
	if ref, ok := r.pairedOf(fn); ok {
		return ref, true
	}
	return r.refOf(fn)
}

// noteDep records that the summary being computed looked up or summarised
// fn (Prepare only).
func (r *Resolver) noteDep(fn *cscan.Func) {
	if r.build == nil || len(r.frameDeps) == 0 {
		return
	}
	if ref, ok := r.refOf(fn); ok {
		top := &r.frameDeps[len(r.frameDeps)-1]
		top.deps = append(top.deps, ref)
	}
}

// noteMember records that the summary being computed resolved a call
// through member, or read the definition of a struct (typing.StructKey)
// (Prepare only).
func (r *Resolver) noteMember(member string) {
	if r.build == nil || len(r.frameDeps) == 0 {
		return
	}
	top := &r.frameDeps[len(r.frameDeps)-1]
	top.members = append(top.members, member)
}

// keep stores fn's record in a Prepare: its deps and members from its
// last computation, and s.
func (r *Resolver) keep(fn *cscan.Func, s *Summary) {
	if r.build == nil {
		return
	}
	ref, ok := r.refOf(fn)
	if !ok {
		return
	}
	d := r.lastDeps[fn]
	delete(r.lastDeps, fn)
	r.build.Put(ref, d.deps, d.members, s)
}

// depsOf are the deps and members of one computation.
type depsOf struct {
	deps    []index.Ref
	members []string
}

// storeEngine is a Resolver as the store drives it (sumstore.Engine).
type storeEngine struct{ r *Resolver }

// SummaryOf returns the resolver's summary of fn.
func (e storeEngine) SummaryOf(fn *cscan.Func) *Summary { return e.r.SummaryOf(fn) }

// Forget drops the resolver's summary of fn, reporting whether it had one.
func (e storeEngine) Forget(fn *cscan.Func) bool {
	_, ok := e.r.memo[fn]
	delete(e.r.memo, fn)
	return ok
}

// Reset drops every summary the resolver computed (resetMemo).
func (e storeEngine) Reset() { e.r.resetMemo() }

// resetMemo drops every summary computed so far, and what was found
// with them through lookup (which functions call the function passed in
// a parameter): findNeutral looks up its candidates as the tree's.
func (r *Resolver) resetMemo() {
	r.memo, r.tainted, r.prev = map[*cscan.Func]*Summary{}, map[*cscan.Func]bool{}, map[*cscan.Func]*Summary{}
	r.paramCalls = map[paramKey][]report.Step{}
	r.paramHeld = map[paramKey][]Held{}
	r.Computed = 0
}
